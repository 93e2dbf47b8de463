#include "downloadlistmodel.h"

#include <QCoreApplication>

#include "appsettings.h"
#include "catalog.h"
#include "downloadqueue.h"
#include "downloadtext.h"
#include "hfendpoint.h"
#include "hftoken.h"
#include "store/conversation_store.h"

namespace {

// The variant `spec` names in the catalog the settings choose, with its family; nullptr and
// `error` when there is none to download.
const CatalogVariant* resolveSpec(Catalog& catalog, const AppSettings* settings, const QString& spec, QString* error)
{
    if (!catalog.load(Catalog::choosePath(settings ? settings->catalogPath() : QString()), error))
        return nullptr;
    const CatalogVariant* v = catalog.resolve(spec, error);
    if (v && !v->requiresArch.isEmpty()) {
        *error = DownloadListModel::tr("%1 needs the %2 architecture, which this Hearth does not run yet")
                     .arg(v->id(), v->requiresArch);
        return nullptr;
    }
    return v;
}

} // namespace

DownloadListModel::DownloadListModel(QObject* parent)
    : QAbstractListModel(parent)
{
    qRegisterMetaType<DownloadProgress>();
}

DownloadListModel::~DownloadListModel()
{
    if (m_queue) {
        QMetaObject::invokeMethod(m_queue, &DownloadQueue::shutdown, Qt::BlockingQueuedConnection);
        m_thread.quit();
        m_thread.wait();
    }
}

DownloadListModel* DownloadListModel::shared()
{
    static QPointer<DownloadListModel> instance;
    if (!instance) {
        instance = new DownloadListModel(QCoreApplication::instance());
        QJSEngine::setObjectOwnership(instance, QJSEngine::CppOwnership);
    }
    return instance;
}

DownloadListModel* DownloadListModel::create(QQmlEngine*, QJSEngine*)
{
    return shared();
}

void DownloadListModel::start(const QString& databasePath, AppSettings* settings, HfTokenStore* token)
{
    if (m_queue)
        return;
    m_settings = settings;
    m_queue = new DownloadQueue;
    m_queue->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_queue, &QObject::deleteLater);
    connect(m_queue, &DownloadQueue::changed, this, &DownloadListModel::onChanged);
    connect(m_queue, &DownloadQueue::removed, this, &DownloadListModel::onRemoved);
    connect(m_queue, &DownloadQueue::registered, this,
            [this](qint64, const QString& key, const QString& path) { emit registered(key, path); });
    m_thread.setObjectName(QStringLiteral("downloads"));
    m_thread.start();
    if (settings)
        connect(settings, &AppSettings::downloadSettingsChanged, this, &DownloadListModel::applySettings);
    applySettings();
    if (token) {
        auto setToken = [queue = m_queue](const QByteArray& value) {
            QMetaObject::invokeMethod(queue, [queue, value] { queue->setToken(value); });
        };
        connect(token, &HfTokenStore::tokenChanged, this, setToken);
        setToken(token->token());
    }
    const QString database = databasePath.isEmpty() ? store::ConversationStore::defaultPath() : databasePath;
    QMetaObject::invokeMethod(m_queue, [queue = m_queue, database] {
        if (const hearth::Status s = queue->open(database); !s.isOk())
            qWarning("downloads: the download list could not be opened (downloads are not remembered): %s",
                     s.message().c_str());
    });
}

void DownloadListModel::applySettings()
{
    if (!m_queue)
        return;
    const QString endpoint = chooseHfEndpoint(m_settings ? m_settings->hfEndpoint() : QString());
    const int parallel = m_settings ? m_settings->parallelDownloads() : 2;
    QMetaObject::invokeMethod(m_queue, [queue = m_queue, endpoint, parallel] {
        DownloadOptions o = queue->options();
        o.parallel = parallel;
        queue->setOptions(o);
        queue->setEndpoint(endpoint);
    });
}

int DownloadListModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

QVariant DownloadListModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() < 0 || index.row() >= m_rows.size())
        return {};
    const DownloadProgress& p = m_rows[index.row()];
    switch (role) {
    case IdRole: return p.id;
    case KeyRole: return p.key;
    case NameRole:
    case Qt::DisplayRole: return p.name;
    case StateRole: return stateName(p.state);
    case StateTextRole: return downloadtext::stateText(p.state);
    case DetailRole: return downloadtext::detail(p);
    case ErrorRole: return p.error;
    case ReceivedBytesRole: return double(p.receivedBytes);
    case TotalBytesRole: return double(p.totalBytes);
    case FractionRole:
        return p.totalBytes > 0 ? double(p.receivedBytes) / double(p.totalBytes) : (p.state == DownloadState::Done ? 1.0 : -1.0);
    case BytesPerSecondRole: return p.bytesPerSecond;
    case SecondsLeftRole: return double(p.secondsLeft);
    case LicenseRole: return p.license;
    case LicenseUrlRole: return p.licenseUrl;
    case PathRole: return p.path;
    case CanPauseRole:
        return p.state == DownloadState::Queued || p.state == DownloadState::Running || p.state == DownloadState::Verifying;
    case CanResumeRole: return p.state == DownloadState::Paused || p.state == DownloadState::Failed;
    default: return {};
    }
}

QHash<int, QByteArray> DownloadListModel::roleNames() const
{
    return {{IdRole, "downloadId"},       {KeyRole, "key"},
            {NameRole, "name"},           {StateRole, "downloadState"},
            {StateTextRole, "stateText"}, {DetailRole, "detail"},
            {ErrorRole, "error"},         {ReceivedBytesRole, "receivedBytes"},
            {TotalBytesRole, "totalBytes"}, {FractionRole, "fraction"},
            {BytesPerSecondRole, "bytesPerSecond"}, {SecondsLeftRole, "secondsLeft"},
            {LicenseRole, "license"},     {LicenseUrlRole, "licenseUrl"},
            {PathRole, "path"},           {CanPauseRole, "canPause"},
            {CanResumeRole, "canResume"}};
}

int DownloadListModel::activeCount() const
{
    int n = 0;
    for (const DownloadProgress& p : m_rows)
        n += (p.state == DownloadState::Queued || p.state == DownloadState::Running || p.state == DownloadState::Verifying) ? 1 : 0;
    return n;
}

double DownloadListModel::overallFraction() const
{
    qint64 received = 0, total = 0;
    for (const DownloadProgress& p : m_rows) {
        if (p.state != DownloadState::Queued && p.state != DownloadState::Running && p.state != DownloadState::Verifying)
            continue;
        if (p.totalBytes < 0)
            return -1;
        received += p.receivedBytes;
        total += p.totalBytes;
    }
    return total > 0 ? double(received) / double(total) : -1;
}

QString DownloadListModel::summary() const
{
    const int active = activeCount();
    if (active == 0)
        return {};
    const double f = overallFraction();
    return f >= 0 ? tr("Downloading: %1 · %2%").arg(active).arg(int(f * 100)) : tr("Downloading: %1").arg(active);
}

QVariantMap DownloadListModel::describe(const QString& spec) const
{
    Catalog catalog;
    QString error;
    const CatalogVariant* v = resolveSpec(catalog, m_settings, spec, &error);
    if (!v)
        return {{QStringLiteral("error"), error}};
    const CatalogFamily* family = catalog.family(v->familyId);
    const DownloadRequest r = requestFromCatalog(*family, *v);
    return {{QStringLiteral("spec"), v->id()},
            {QStringLiteral("name"), r.name},
            {QStringLiteral("sizeBytes"), double(v->totalBytes())},
            {QStringLiteral("sizeText"), downloadtext::bytes(v->totalBytes())},
            {QStringLiteral("files"), int(r.items.size())},
            {QStringLiteral("license"), r.license},
            {QStringLiteral("licenseUrl"), r.licenseUrl},
            {QStringLiteral("folder"), m_settings ? m_settings->modelsFolder() : QString()}};
}

bool DownloadListModel::download(const QString& spec)
{
    Catalog catalog;
    QString error;
    const CatalogVariant* v = resolveSpec(catalog, m_settings, spec, &error);
    if (!m_queue || !m_settings)
        error = tr("downloads are not available in this run");
    if (!v || !m_queue || !m_settings) {
        emit errorOccurred(error);
        return false;
    }
    const DownloadRequest request = requestFromCatalog(*catalog.family(v->familyId), *v);
    const QString folder = m_settings->modelsFolder();
    QMetaObject::invokeMethod(m_queue, [this, queue = m_queue, request, folder] {
        const hearth::Result<qint64> added = queue->add(request, folder);
        if (!added.isOk()) {
            const QString message = QString::fromStdString(added.status().message());
            QMetaObject::invokeMethod(this, [this, message] { emit errorOccurred(message); });
        }
    });
    return true;
}

void DownloadListModel::pause(qint64 id)
{
    if (m_queue)
        QMetaObject::invokeMethod(m_queue, [queue = m_queue, id] { queue->pause(id); });
}

void DownloadListModel::resume(qint64 id)
{
    if (m_queue)
        QMetaObject::invokeMethod(m_queue, [queue = m_queue, id] { queue->resume(id); });
}

void DownloadListModel::cancel(qint64 id)
{
    if (m_queue)
        QMetaObject::invokeMethod(m_queue, [queue = m_queue, id] { queue->cancel(id); });
}

void DownloadListModel::onChanged(const DownloadProgress& progress)
{
    const int row = rowOf(progress.id);
    if (row < 0) {
        beginInsertRows({}, int(m_rows.size()), int(m_rows.size()));
        m_rows << progress;
        endInsertRows();
        emit countChanged();
    } else {
        m_rows[row] = progress;
        emit dataChanged(index(row), index(row));
    }
    emit summaryChanged();
}

void DownloadListModel::onRemoved(qint64 id)
{
    const int row = rowOf(id);
    if (row < 0)
        return;
    beginRemoveRows({}, row, row);
    m_rows.removeAt(row);
    endRemoveRows();
    emit countChanged();
    emit summaryChanged();
}

int DownloadListModel::rowOf(qint64 id) const
{
    for (int i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].id == id)
            return i;
    return -1;
}
