#include "modellibrary.h"

#include <QFileInfo>
#include <QStorageInfo>

#include <algorithm>
#include <cmath>
#include <memory>

#include "libraryfiles.h"
#include "localmodels.h"

hearth::DeviceInfo chooseFitDevice(DeviceChoice choice, int gpu)
{
    if (choice != DeviceChoice::Cpu)
        for (const hearth::DeviceInfo& d : hearth::probeDevices().devices)
            if (d.kind == hearth::DeviceKind::Cuda && d.index == gpu)
                return d;
    return hearth::probeCpuNow();
}

ModelLibrary::ModelLibrary(QObject* parent)
    : QObject(parent)
    , m_variants(new CatalogVariantModel(this))
{
    connect(&m_watch, &FolderWatch::changed, this, &ModelLibrary::folderChanged_);
    // The catalog is read once the properties QML sets are in; a later change reads it again.
    QTimer::singleShot(0, this, [this] {
        if (m_catalogSource.isEmpty())
            loadCatalog();
    });
}

ModelLibrary::~ModelLibrary() = default; // m_jobs, the last member, waits for the estimates first

void ModelLibrary::submit(std::function<void()> work, std::function<void()> done)
{
    m_jobs.submit(std::move(work), std::move(done));
}

void ModelLibrary::setCatalogPath(const QString& path)
{
    if (path == m_catalogPath && !m_catalogSource.isEmpty())
        return;
    m_catalogPath = path;
    loadCatalog();
}

void ModelLibrary::loadCatalog()
{
    m_catalogSource = Catalog::choosePath(m_catalogPath);
    Catalog catalog;
    QString error;
    if (catalog.load(m_catalogSource, &error)) {
        m_catalog = catalog;
        m_catalogError.clear();
    } else {
        m_catalog = Catalog();
        m_catalogError = error;
        qWarning("library: the catalog could not be read: %s", qPrintable(error));
    }
    emit catalogChanged();
    rebuildRows();
}

void ModelLibrary::rebuildRows()
{
    QList<CatalogRow> rows;
    for (const CatalogFamily& family : m_catalog.families()) {
        CatalogFamily bare = family;
        bare.variants.clear();
        for (const CatalogVariant& v : family.variants)
            rows << CatalogRow{bare, v, {}, false, false, variantLocalPath(m_folder, v), false};
    }
    m_variants->setRows(rows);
    estimate();
}

void ModelLibrary::setFixedDevice(const hearth::DeviceInfo& device)
{
    m_fixedDevice = true;
    m_target.device = device;
    estimate();
}

void ModelLibrary::estimate()
{
    const quint64 generation = ++m_generation;
    auto rows = std::make_shared<QList<CatalogRow>>(m_variants->rows());
    auto target = std::make_shared<FitTarget>(m_target);
    auto disk = std::make_shared<std::pair<quint64, quint64>>();
    const bool fixed = m_fixedDevice;
    const DeviceChoice choice = deviceChoiceFromName(m_device);
    submit(
        [rows, target, disk, fixed, choice, gpu = m_gpu, folder = m_folder, families = m_catalog.families()] {
            if (!fixed)
                target->device = chooseFitDevice(choice, gpu);
            if (target->device.kind != hearth::DeviceKind::Cuda && target->cpuBandwidth <= 0)
                target->cpuBandwidth = measuredCpuBandwidth();
            QHash<QString, QList<int>> byFamily;
            for (int i = 0; i < rows->size(); ++i) {
                CatalogRow& r = (*rows)[i];
                r.fit = estimateVariantFit(r.family, r.variant, *target);
                r.fitReady = true;
                r.downloaded = isVariantDownloaded(folder, r.variant);
                byFamily[r.family.id] << i;
            }
            for (const CatalogFamily& f : families) {
                const QList<int> at = byFamily.value(f.id);
                QList<VariantFit> fits;
                for (int i : at)
                    fits << (*rows)[i].fit;
                const int best = recommendedVariant(f, fits);
                for (int k = 0; k < at.size(); ++k)
                    (*rows)[at[k]].recommended = k == best;
            }
            disk->first = folderBytes(folder);
            const QStorageInfo storage(folder);
            disk->second = storage.isValid() ? quint64(storage.bytesAvailable()) : 0;
        },
        [this, rows, target, disk, generation] {
            if (generation != m_generation)
                return; // settings or the catalog changed meanwhile: a newer estimate follows
            m_target.device = target->device;
            m_cpuBandwidth = target->cpuBandwidth > 0 ? target->cpuBandwidth : kDefaultCpuBandwidth;
            m_variants->updateRows(*rows);
            emit fitsChanged();
            if (disk->first != m_diskUsed || disk->second != m_diskFree) {
                m_diskUsed = disk->first;
                m_diskFree = disk->second;
                emit diskChanged();
            }
        });
}

void ModelLibrary::setFolder(const QString& folder)
{
    if (folder == m_folder)
        return;
    m_folder = folder;
    emit folderChanged();
    m_watch.setFolder(folder);
    rebuildRows();
}

void ModelLibrary::folderChanged_()
{
    estimate(); // the downloaded flags and the disk use
}

void ModelLibrary::setLocalModels(LocalModels* models)
{
    if (models == m_localModels)
        return;
    if (m_localModels)
        disconnect(m_localModels, nullptr, this, nullptr);
    m_localModels = models;
    if (m_localModels)
        connect(m_localModels, &LocalModels::freedBytesChanged, this,
                [this] { setFreedBytes(m_localModels->freedBytes()); });
    emit localModelsChanged();
    setFreedBytes(m_localModels ? m_localModels->freedBytes() : 0);
}

void ModelLibrary::setFreedBytes(quint64 bytes)
{
    if (bytes == m_target.freedBytes)
        return;
    m_target.freedBytes = bytes;
    estimate();
}

void ModelLibrary::setDevice(const QString& device)
{
    if (device == m_device)
        return;
    m_device = device;
    emit fitSettingsChanged();
    estimate();
}

void ModelLibrary::setGpu(int gpu)
{
    if (gpu == m_gpu || gpu < 0)
        return;
    m_gpu = gpu;
    emit fitSettingsChanged();
    estimate();
}

void ModelLibrary::setContextLength(int context)
{
    if (context == m_target.context || context < 0)
        return;
    m_target.context = context;
    emit fitSettingsChanged();
    estimate();
}

void ModelLibrary::setKvType(const QString& kvType)
{
    if (kvType == m_kvType)
        return;
    m_kvType = kvType;
    m_target.kvType = loadRequestFrom({}, {}, {{QStringLiteral("kvType"), kvType}}).kvType;
    emit fitSettingsChanged();
    estimate();
}

void ModelLibrary::setVramBudgetGiB(double gib)
{
    const quint64 bytes = gib > 0 && std::isfinite(gib) ? quint64(gib * double(1ull << 30)) : 0;
    if (bytes == m_target.budgetBytes)
        return;
    m_target.budgetBytes = bytes;
    emit fitSettingsChanged();
    estimate();
}

void ModelLibrary::refresh()
{
    loadCatalog();
    if (m_localModels)
        m_localModels->rescan();
}

bool ModelLibrary::canDelete(const QString& path) const
{
    if (deletionTargets(m_folder, path, nullptr).isEmpty())
        return false;
    if (m_localModels) { // the loaded model stays: its weights are mapped from the file
        const int row = m_localModels->indexOfPath(path);
        if (row >= 0 && m_localModels->data(m_localModels->index(row), LocalModels::LoadedRole).toBool())
            return false;
    }
    return true;
}

bool ModelLibrary::deleteModel(const QString& path)
{
    QString why;
    const QStringList targets = deletionTargets(m_folder, path, &why);
    if (!targets.isEmpty() && !canDelete(path))
        why = tr("%1 is loaded; load another model or close the chat first.").arg(QFileInfo(path).fileName());
    if (targets.isEmpty() || !canDelete(path) || !removeTargets(targets, &why)) {
        qWarning("library: not deleted: %s", qPrintable(why));
        emit deleteFailed(why);
        return false;
    }
    qInfo("library: deleted %s", qPrintable(targets.join(QStringLiteral(", "))));
    emit modelDeleted(path);
    // Do not wait for the watch: the lists should change now.
    if (m_localModels)
        m_localModels->rescan();
    estimate();
    return true;
}

bool ModelLibrary::requestDownload(const QString& spec)
{
    QString why;
    const CatalogVariant* v = m_catalog.resolve(spec, &why);
    if (!v || !v->requiresArch.isEmpty()) {
        qWarning("library: no download for %s: %s", qPrintable(spec),
                 qPrintable(v ? QStringLiteral("needs %1").arg(v->requiresArch) : why));
        return false;
    }
    emit downloadRequested(v->id());
    return true;
}
