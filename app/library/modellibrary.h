// The library behind the Library page: the catalog (built in, or the one HEARTH_CATALOG or the
// setting names) as a list of variants with the fit of each on the chosen device and the one to
// recommend per family; the models folder, watched so that files added, downloaded or removed
// show as downloaded without a restart (LocalModels, which lists and describes the local models,
// watches it too); its disk use; and deleting a model (the page asks first). Downloads are not done here: Download
// emits downloadRequested(spec) for the downloader. Estimates and folder reads run on a worker
// pool, never on the GUI thread.
#pragma once

#include <QObject>
#include <QPointer>
#include <QQmlEngine>

#include <functional>

#include "catalog.h"
#include "catalogmodel.h"
#include "enginetypes.h"
#include "fitadvisor.h"
#include "folderwatch.h"
#include "localmodels.h"
#include "serialworker.h"

class ModelLibrary : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(QString catalogPath READ catalogPath WRITE setCatalogPath NOTIFY catalogChanged) // the setting; empty: built in
    Q_PROPERTY(QString catalogSource READ catalogSource NOTIFY catalogChanged) // the file actually read
    Q_PROPERTY(QString catalogError READ catalogError NOTIFY catalogChanged)
    Q_PROPERTY(QString folder READ folder WRITE setFolder NOTIFY folderChanged)
    Q_PROPERTY(LocalModels* localModels READ localModels WRITE setLocalModels NOTIFY localModelsChanged)
    Q_PROPERTY(QString device READ device WRITE setDevice NOTIFY fitSettingsChanged)  // "auto", "cpu", "cuda"
    Q_PROPERTY(int gpu READ gpu WRITE setGpu NOTIFY fitSettingsChanged)
    Q_PROPERTY(int contextLength READ contextLength WRITE setContextLength NOTIFY fitSettingsChanged)
    Q_PROPERTY(QString kvType READ kvType WRITE setKvType NOTIFY fitSettingsChanged)
    Q_PROPERTY(double vramBudgetGiB READ vramBudgetGiB WRITE setVramBudgetGiB NOTIFY fitSettingsChanged)
    Q_PROPERTY(CatalogVariantModel* variants READ variants CONSTANT)
    Q_PROPERTY(QString deviceName READ deviceName NOTIFY fitsChanged)      // what the fits are for
    Q_PROPERTY(bool cpuOnly READ cpuOnly NOTIFY fitsChanged)               // no GPU: CPU speed classes shown
    // The memory bandwidth the CPU speeds come from (bytes/s, measured on this machine).
    Q_PROPERTY(double cpuBandwidth READ cpuBandwidth NOTIFY fitsChanged)
    Q_PROPERTY(double deviceTotalBytes READ deviceTotalBytes NOTIFY fitsChanged)
    Q_PROPERTY(double deviceFreeBytes READ deviceFreeBytes NOTIFY fitsChanged)
    Q_PROPERTY(double diskUsedBytes READ diskUsedBytes NOTIFY diskChanged) // the models folder's files
    Q_PROPERTY(double diskFreeBytes READ diskFreeBytes NOTIFY diskChanged) // on its file system
    Q_PROPERTY(bool busy READ isBusy NOTIFY busyChanged)

public:
    explicit ModelLibrary(QObject* parent = nullptr);
    ~ModelLibrary() override; // waits for the estimates under way

    QString catalogPath() const { return m_catalogPath; }
    void setCatalogPath(const QString& path);
    QString catalogSource() const { return m_catalogSource; }
    QString catalogError() const { return m_catalogError; }
    const Catalog& catalog() const { return m_catalog; }
    QString folder() const { return m_folder; }
    void setFolder(const QString& folder);
    LocalModels* localModels() const { return m_localModels; }
    void setLocalModels(LocalModels* models);
    QString device() const { return m_device; }
    void setDevice(const QString& device);
    int gpu() const { return m_gpu; }
    void setGpu(int gpu);
    int contextLength() const { return m_target.context; }
    void setContextLength(int context);
    QString kvType() const { return m_kvType; }
    void setKvType(const QString& kvType);
    double vramBudgetGiB() const { return double(m_target.budgetBytes) / double(1ull << 30); }
    void setVramBudgetGiB(double gib);
    CatalogVariantModel* variants() const { return m_variants; }
    QString deviceName() const { return QString::fromStdString(m_target.device.name); }
    bool cpuOnly() const { return m_target.device.kind != hearth::DeviceKind::Cuda; }
    double cpuBandwidth() const { return m_cpuBandwidth; }
    double deviceTotalBytes() const { return double(m_target.device.totalBytes); }
    double deviceFreeBytes() const { return double(m_target.device.freeBytes); }
    double diskUsedBytes() const { return double(m_diskUsed); }
    double diskFreeBytes() const { return double(m_diskFree); }
    bool isBusy() const { return m_jobs.busy(); }

    // Tests: estimate against this device instead of the one the settings choose.
    void setFixedDevice(const hearth::DeviceInfo& device);
    // What the loaded model holds: a download of another variant would be loaded in its place,
    // so the fits count it as free (LocalModels reports it; tests set it).
    void setFreedBytes(quint64 bytes);

    // Reads the catalog again, re-estimates every variant and rereads the folder.
    Q_INVOKABLE void refresh();
    // Whether `path` is a model Delete may remove (inside the models folder, not loaded now).
    Q_INVOKABLE bool canDelete(const QString& path) const;
    // Removes the model at `path` (a split GGUF's parts, a Hugging Face folder with its files).
    // The page confirms first. False, with deleteFailed(message), when it is not allowed or fails.
    Q_INVOKABLE bool deleteModel(const QString& path);
    // The Download button: asks the downloader for "FAMILY:QUANT" (downloadRequested). False when
    // the catalog has no such variant or it needs an architecture the engine does not run yet.
    Q_INVOKABLE bool requestDownload(const QString& spec);

signals:
    void catalogChanged();
    void folderChanged();
    void localModelsChanged();
    void fitSettingsChanged();
    void fitsChanged();
    void diskChanged();
    void busyChanged();
    void downloadRequested(const QString& spec); // the downloader's queue connects here
    void modelDeleted(const QString& path);
    void deleteFailed(const QString& message);

private:
    void loadCatalog();
    void rebuildRows();
    void estimate();
    void folderChanged_(); // the watch saw the folder change
    void submit(std::function<void()> work, std::function<void()> done);

    Catalog m_catalog;
    QString m_catalogPath, m_catalogSource, m_catalogError;
    QString m_folder;
    QPointer<LocalModels> m_localModels;
    QString m_device = QStringLiteral("auto"), m_kvType = QStringLiteral("f16");
    int m_gpu = 0;
    FitTarget m_target;
    double m_cpuBandwidth = kDefaultCpuBandwidth;
    bool m_fixedDevice = false;
    CatalogVariantModel* m_variants; // child
    FolderWatch m_watch;
    quint64 m_generation = 0;
    quint64 m_diskUsed = 0, m_diskFree = 0;
    SerialWorker m_jobs{this, [this] { emit busyChanged(); }}; // last: destroyed (and waited for) first
};

// The device a fit is estimated for: the chosen CUDA device when `choice` allows one and it is
// there, else the CPU with its memory read now.
hearth::DeviceInfo chooseFitDevice(DeviceChoice choice, int gpu);
