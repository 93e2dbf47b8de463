// The model picker's list: the .gguf files and Hugging Face folders in the models folder plus
// those the user opened, each with its facts (architecture, parameters, quant, size, context,
// licence) and whether it fits at the chosen context on the chosen device (the engine's
// estimate), with the largest context that fits. For the loaded model it also fills the quant
// switcher's choices (quantOptions). Files are read on a worker pool, never on the GUI thread;
// rows show ready = false until then. The folder is watched (FolderWatch): a model added, renamed
// into place or removed shows without a rescan, so a finished download joins the quant switcher.
#pragma once

#include <QAbstractListModel>
#include <QPointer>
#include <QQmlEngine>

#include <functional>

#include "enginehost.h"
#include "folderwatch.h"
#include "modelscan.h"
#include "quantoptions.h"
#include "serialworker.h"

class LocalModels : public QAbstractListModel
{
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(QString folder READ folder WRITE setFolder NOTIFY folderChanged)
    Q_PROPERTY(QStringList addedPaths READ addedPaths WRITE setAddedPaths NOTIFY addedPathsChanged)
    Q_PROPERTY(int contextLength READ contextLength WRITE setContextLength NOTIFY contextLengthChanged)
    Q_PROPERTY(QString device READ device WRITE setDevice NOTIFY deviceChanged) // "auto", "cpu", "cuda"
    Q_PROPERTY(QString kvType READ kvType WRITE setKvType NOTIFY kvTypeChanged) // "f16", "bf16", "f32"
    Q_PROPERTY(double vramBudgetGiB READ vramBudgetGiB WRITE setVramBudgetGiB NOTIFY vramBudgetGiBChanged) // 0: none
    // Followed for the loaded model (its quant options, the memory a load would free).
    Q_PROPERTY(EngineHost* engine READ engine WRITE setEngine NOTIFY engineChanged)
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)
    Q_PROPERTY(bool busy READ isBusy NOTIFY busyChanged) // files are being read
    Q_PROPERTY(QuantOptionsModel* quantOptions READ quantOptions CONSTANT)

public:
    enum Role {
        PathRole = Qt::UserRole + 1,
        NameRole,
        FormatRole,
        ArchitectureRole,
        ParameterCountRole,
        ParametersRole,     // "260K", "8.2B"
        QuantRole,
        TensorTypesRole,    // "Q4_K 98 · Q6_K 12 · F32 65"
        FileBytesRole,
        ContextLengthRole,  // trained maximum
        LicenseRole,
        ReadyRole,
        ErrorRole,
        EstimatedBytesRole, // at the chosen context
        FitsRole,
        MaxContextRole,     // the largest context that fits; 0: none
        DeviceNameRole,
        TokensPerSecondRole, // CPU: the decode speed the memory bandwidth allows; 0: a GPU
        UserAddedRole,
        LoadedRole,
    };
    Q_ENUM(Role)

    explicit LocalModels(QObject* parent = nullptr);
    ~LocalModels() override; // waits for the file reads under way (header reads: short)

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    QString folder() const { return m_folder; }
    void setFolder(const QString& folder);
    QStringList addedPaths() const;
    void setAddedPaths(const QStringList& paths);
    int contextLength() const { return m_settings.context; }
    void setContextLength(int context);
    QString device() const { return m_device; }
    void setDevice(const QString& device);
    QString kvType() const { return m_kvType; }
    void setKvType(const QString& kvType);
    double vramBudgetGiB() const { return double(m_settings.budgetBytes) / double(1ull << 30); }
    void setVramBudgetGiB(double gib);
    EngineHost* engine() const { return m_engine; }
    void setEngine(EngineHost* engine);
    bool isBusy() const { return m_jobs.busy(); }
    QuantOptionsModel* quantOptions() const { return m_quantOptions; }

    // Reads the folder again and describes every model anew.
    Q_INVOKABLE void rescan();
    // Adds a file or folder the user opened (a path or a file: URL); returns its row.
    Q_INVOKABLE int addPath(const QString& pathOrUrl);
    Q_INVOKABLE void removeAddedPath(const QString& path);
    // Bytes the model loaded now holds (0: none); a load releases them first.
    quint64 freedBytes() const { return m_settings.freedBytes; }
    Q_INVOKABLE int indexOfPath(const QString& path) const;
    const ModelEntry* entry(int row) const;

signals:
    void folderChanged();
    void addedPathsChanged();
    void contextLengthChanged();
    void deviceChanged();
    void kvTypeChanged();
    void vramBudgetGiBChanged();
    void engineChanged();
    void countChanged();
    void busyChanged();
    // What the loaded model holds changed (a load releases it first, so fits count it as free).
    void freedBytesChanged();

private:
    // Runs `work` on the pool, then `done` on this thread (which drops results that a rescan or
    // a settings change made stale).
    void submit(std::function<void()> work, std::function<void()> done);
    void describe(int row);
    void redescribeAll();
    void updateQuantOptions();
    void setLoaded(const ModelSummary* model);

    QList<ModelEntry> m_entries;
    QString m_folder;
    QString m_device = QStringLiteral("auto");
    QString m_kvType = QStringLiteral("f16");
    FitSettings m_settings;
    QPointer<EngineHost> m_engine;
    QString m_loadedPath, m_loadedQuant;
    quint64 m_generation = 0;     // bumped when earlier descriptions are no longer wanted
    quint64 m_scanGeneration = 0; // bumped by each rescan: only the newest scan's list counts
    QuantOptionsModel* m_quantOptions; // child
    FolderWatch* m_watch;              // child
    SerialWorker m_jobs{this, [this] { emit busyChanged(); }}; // last: destroyed (and waited for) first
};
