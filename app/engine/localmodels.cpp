#include "localmodels.h"

#include <QFileInfo>
#include <QUrl>

#include <cmath>
#include <memory>

namespace {

QString normalized(const QString& pathOrUrl)
{
    const QUrl url(pathOrUrl);
    const QString path = url.isLocalFile() ? url.toLocalFile() : pathOrUrl;
    return path.isEmpty() ? QString() : QFileInfo(path).absoluteFilePath();
}

} // namespace

LocalModels::LocalModels(QObject* parent)
    : QAbstractListModel(parent)
    , m_quantOptions(new QuantOptionsModel(this))
    , m_watch(new FolderWatch(this))
{
    connect(m_watch, &FolderWatch::changed, this, &LocalModels::rescan);
    m_settings.device = deviceChoiceFromName(m_device);
}

LocalModels::~LocalModels() = default; // m_jobs, the last member, waits for the reads first

int LocalModels::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_entries.size());
}

const ModelEntry* LocalModels::entry(int row) const
{
    return row >= 0 && row < m_entries.size() ? &m_entries[row] : nullptr;
}

int LocalModels::indexOfPath(const QString& path) const
{
    const QString wanted = normalized(path);
    for (int i = 0; i < m_entries.size(); ++i)
        if (m_entries[i].path == wanted)
            return i;
    return -1;
}

QVariant LocalModels::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const ModelEntry& e = m_entries.at(index.row());
    const ModelFacts& f = e.facts;
    switch (role) {
    case PathRole: return e.path;
    case Qt::DisplayRole:
    case NameRole: return f.name.isEmpty() ? QFileInfo(e.path).fileName() : f.name;
    case FormatRole: return f.format;
    case ArchitectureRole: return f.architecture;
    case ParameterCountRole: return double(f.parameterCount);
    case ParametersRole: return e.error.isEmpty() && e.ready ? formatParameterCount(f.parameterCount) : QString();
    case QuantRole: return f.quant;
    case TensorTypesRole: return f.tensorTypes;
    case FileBytesRole: return double(f.fileBytes);
    case ContextLengthRole: return f.contextLength;
    case LicenseRole: return f.license;
    case ReadyRole: return e.ready;
    case ErrorRole: return e.error.isEmpty() ? e.fit.error : e.error;
    case EstimatedBytesRole: return double(e.fit.totalBytes);
    case FitsRole: return e.fit.ok && e.fit.fits;
    case MaxContextRole: return e.fit.maxContext;
    case DeviceNameRole: return e.fit.deviceName;
    case TokensPerSecondRole: return e.fit.tokensPerSecond;
    case UserAddedRole: return e.userAdded;
    case LoadedRole: return !m_loadedPath.isEmpty() && e.path == m_loadedPath;
    }
    return {};
}

QHash<int, QByteArray> LocalModels::roleNames() const
{
    return {{PathRole, "path"},
            {NameRole, "name"},
            {FormatRole, "format"},
            {ArchitectureRole, "architecture"},
            {ParameterCountRole, "parameterCount"},
            {ParametersRole, "parameters"},
            {QuantRole, "quant"},
            {TensorTypesRole, "tensorTypes"},
            {FileBytesRole, "fileBytes"},
            {ContextLengthRole, "contextLength"},
            {LicenseRole, "license"},
            {ReadyRole, "ready"},
            {ErrorRole, "error"},
            {EstimatedBytesRole, "estimatedBytes"},
            {FitsRole, "fits"},
            {MaxContextRole, "maxContext"},
            {DeviceNameRole, "deviceName"},
            {TokensPerSecondRole, "tokensPerSecond"},
            {UserAddedRole, "userAdded"},
            {LoadedRole, "loaded"}};
}

void LocalModels::submit(std::function<void()> work, std::function<void()> done)
{
    m_jobs.submit(std::move(work), std::move(done));
}

void LocalModels::setFolder(const QString& folder)
{
    if (folder == m_folder)
        return;
    m_folder = folder;
    m_watch->setFolder(folder);
    emit folderChanged();
    rescan();
}

QStringList LocalModels::addedPaths() const
{
    QStringList paths;
    for (const ModelEntry& e : m_entries)
        if (e.userAdded)
            paths << e.path;
    return paths;
}

void LocalModels::setAddedPaths(const QStringList& paths)
{
    QStringList wanted;
    for (const QString& p : paths)
        wanted << normalized(p);
    for (const QString& p : addedPaths())
        if (!wanted.contains(p))
            removeAddedPath(p);
    for (const QString& p : wanted)
        addPath(p);
}

void LocalModels::setContextLength(int context)
{
    if (context == m_settings.context || context < 0)
        return;
    m_settings.context = context;
    emit contextLengthChanged();
    redescribeAll();
}

void LocalModels::setDevice(const QString& device)
{
    if (device == m_device)
        return;
    m_device = device;
    m_settings.device = deviceChoiceFromName(device);
    emit deviceChanged();
    redescribeAll();
}

void LocalModels::setKvType(const QString& kvType)
{
    if (kvType == m_kvType)
        return;
    m_kvType = kvType;
    m_settings.kvType = loadRequestFrom({}, {}, {{QStringLiteral("kvType"), kvType}}).kvType;
    emit kvTypeChanged();
    redescribeAll();
}

void LocalModels::setVramBudgetGiB(double gib)
{
    const quint64 bytes = gib > 0 && std::isfinite(gib) ? quint64(gib * double(1ull << 30)) : 0;
    if (bytes == m_settings.budgetBytes)
        return;
    m_settings.budgetBytes = bytes;
    emit vramBudgetGiBChanged();
    redescribeAll();
}

void LocalModels::setEngine(EngineHost* engine)
{
    if (!followEngine(this, m_engine, engine))
        return;
    if (m_engine) {
        connect(m_engine, &EngineHost::modelChanged, this,
                [this] { setLoaded(m_engine->isLoaded() ? &m_engine->model() : nullptr); });
        // A load releases the model loaded now: its memory counts as free for every row.
        connect(m_engine, &EngineHost::memoryReport, this, [this](const MemorySnapshot& s) {
            const quint64 freed = s.loaded ? s.report.totalBytes() : 0;
            const quint64 before = m_settings.freedBytes;
            if (freed == before || (freed > 0 && before > 0 && qAbs(double(freed) - double(before)) < 0.02 * double(before)))
                return;
            m_settings.freedBytes = freed;
            redescribeAll();
            emit freedBytesChanged();
        });
        setLoaded(m_engine->isLoaded() ? &m_engine->model() : nullptr);
    }
    emit engineChanged();
}

void LocalModels::rescan()
{
    ++m_generation; // descriptions of the old list are not wanted
    const quint64 scan = ++m_scanGeneration;
    auto found = std::make_shared<QStringList>();
    submit([folder = m_folder, found] { *found = findModelPaths(folder); },
           [this, found, scan] {
               if (scan != m_scanGeneration)
                   return;
               QList<ModelEntry> entries;
               for (const QString& path : *found) {
                   const int old = indexOfPath(path);
                   entries << (old >= 0 ? m_entries[old] : ModelEntry{path});
                   entries.last().userAdded = false;
               }
               for (const ModelEntry& e : m_entries)
                   if (e.userAdded && !found->contains(e.path))
                       entries << e;
               beginResetModel();
               m_entries = entries;
               endResetModel();
               emit countChanged();
               for (int row = 0; row < m_entries.size(); ++row)
                   describe(row);
           });
}

int LocalModels::addPath(const QString& pathOrUrl)
{
    const QString path = normalized(pathOrUrl);
    if (path.isEmpty())
        return -1;
    if (const int row = indexOfPath(path); row >= 0)
        return row;
    const int row = int(m_entries.size());
    beginInsertRows({}, row, row);
    m_entries << ModelEntry{path, true};
    endInsertRows();
    emit countChanged();
    emit addedPathsChanged();
    describe(row);
    return row;
}

void LocalModels::removeAddedPath(const QString& path)
{
    const int row = indexOfPath(path);
    if (row < 0 || !m_entries[row].userAdded)
        return;
    beginRemoveRows({}, row, row);
    m_entries.removeAt(row);
    endRemoveRows();
    emit countChanged();
    emit addedPathsChanged();
}

void LocalModels::describe(int row)
{
    auto described = std::make_shared<ModelEntry>(m_entries[row]);
    submit([described, settings = m_settings] { describeEntry(*described, settings); },
           [this, described, generation = m_generation] {
               const int at = indexOfPath(described->path);
               if (at < 0 || generation != m_generation)
                   return;
               described->userAdded = m_entries[at].userAdded;
               m_entries[at] = *described;
               emit dataChanged(index(at), index(at));
               // Presets are planned from the loaded file alone; file choices from every row.
               const ModelEntry* loaded = entry(indexOfPath(m_loadedPath));
               if (described->path == m_loadedPath || (loaded && !loaded->facts.fullPrecision))
                   updateQuantOptions();
           });
}

void LocalModels::redescribeAll()
{
    ++m_generation;
    for (int row = 0; row < m_entries.size(); ++row)
        describe(row);
}

void LocalModels::setLoaded(const ModelSummary* model)
{
    m_loadedPath = model ? normalized(model->facts.path) : QString();
    m_loadedQuant = model ? model->quant : QString();
    if (!m_loadedPath.isEmpty() && indexOfPath(m_loadedPath) < 0)
        addPath(m_loadedPath); // opened from elsewhere: the user's now
    if (!m_entries.isEmpty())
        emit dataChanged(index(0), index(int(m_entries.size()) - 1), {LoadedRole});
    updateQuantOptions();
}

void LocalModels::updateQuantOptions()
{
    const ModelEntry* loaded = entry(indexOfPath(m_loadedPath));
    if (m_loadedPath.isEmpty() || !loaded || !loaded->ready || !loaded->error.isEmpty()) {
        m_quantOptions->setOptions({});
        return;
    }
    if (!loaded->facts.fullPrecision) {
        m_quantOptions->setOptions(fileOptions(m_entries, loaded->facts));
        return;
    }
    auto options = std::make_shared<QList<QuantOption>>();
    submit([options, facts = loaded->facts, quant = m_loadedQuant, settings = m_settings] {
        *options = presetOptions(facts, quant, settings);
    },
           [this, options, path = m_loadedPath, generation = m_generation] {
               if (path == m_loadedPath && generation == m_generation)
                   m_quantOptions->setOptions(*options);
           });
}
