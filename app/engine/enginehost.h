// The app's way to the engine: starts the engine thread with its EngineWorker, passes requests to
// it as queued calls, and re-emits its results on the GUI thread. Nothing here waits for the
// engine: every request returns at once with an id that the results carry (a result whose id is
// no longer wanted is the caller's to drop). Stop and cancel take effect at the engine's next
// check (a token, a tensor), even while a reply or load runs. The destructor stops what runs and
// joins the thread. The reply side is the ReplyBackend interface the chat talks to.
#pragma once

#include <QObject>
#include <QPointer>
#include <QQmlEngine>

#include <memory>

#include "enginetypes.h"
#include "replybackend.h"

class EngineFlags;
class EngineWorker;
class QThread;

class EngineHost : public ReplyBackend
{
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("EngineHost belongs to the chat controller")
    Q_PROPERTY(bool loaded READ isLoaded NOTIFY modelChanged)
    Q_PROPERTY(QString modelPath READ modelPath NOTIFY modelChanged)
    Q_PROPERTY(QString modelName READ modelName NOTIFY modelChanged)
    Q_PROPERTY(QString quant READ quant NOTIFY modelChanged)
    Q_PROPERTY(QString deviceName READ deviceName NOTIFY modelChanged)
    Q_PROPERTY(bool loading READ isLoading NOTIFY loadingChanged)
    Q_PROPERTY(double loadFraction READ loadFraction NOTIFY loadProgressChanged)
    Q_PROPERTY(QString loadPhaseText READ loadPhaseText NOTIFY loadProgressChanged)
    // Why the latest load failed, in the engine's words; empty after a success, a cancel or a new load.
    Q_PROPERTY(QString loadError READ loadError NOTIFY loadErrorChanged)
    // A load or reply failed with StatusCode::DeviceLost: the GPU works again only after a
    // restart of the process (AppInstance.restartApp). Stays true until then.
    Q_PROPERTY(bool deviceLost READ isDeviceLost NOTIFY deviceLostChanged)

public:
    explicit EngineHost(QObject* parent = nullptr);
    ~EngineHost() override;

    // Loads a model (the current one is released first). A later load supersedes an earlier
    // one still queued; a reply in progress is stopped.
    quint64 loadModel(const LoadRequest& request);
    // The same for QML: a path (or file: URL), a preset (empty: as stored) and the other fields
    // by name (loadRequestFrom; AppSettings.loadOptions has them).
    Q_INVOKABLE quint64 load(const QString& path, const QString& quant = {}, const QVariantMap& options = {});
    // Reloads the loaded model's source with another preset (empty: as stored), keeping the
    // rest of its request. The conversation is kept by the app: the next turn rebuilds the
    // session from its history. Returns 0 (and does nothing) when no model is loaded.
    Q_INVOKABLE quint64 switchQuant(const QString& preset);
    Q_INVOKABLE void cancelLoad();
    Q_INVOKABLE void unload();
    // Starts a reply. Replies run one after another, in the order asked.
    quint64 startTurn(const TurnRequest& request) override;
    // Stops the reply in progress and any queued one: the engine stops before its next token
    // and replyFinished arrives with stopReason "cancel" and the text so far. stopRequested()
    // then stops a request of the API server running on the engine (LocalServer), which the
    // chat's reply may be waiting behind.
    void stop() override;
    // Asks for a MemorySnapshot (memoryReport); requests made before it is sent count once.
    Q_INVOKABLE void requestMemoryReport();

    bool isLoaded() const { return m_loaded; }
    const ModelSummary& model() const { return m_model; } // valid while loaded
    QString modelPath() const { return m_loaded ? m_model.facts.path : QString(); }
    QString modelName() const { return m_loaded ? m_model.facts.name : QString(); }
    QString quant() const { return m_loaded ? m_model.quant : QString(); }
    QString deviceName() const { return m_loaded ? m_model.deviceName : QString(); }
    bool isLoading() const { return m_loadingId != 0; }
    double loadFraction() const { return m_loadFraction; }
    QString loadPhaseText() const;
    QString loadError() const { return m_loadError; }
    bool isGenerating() const override { return m_pendingTurns > 0; }
    ReplyOrigin origin() const override { return {modelName(), quant(), deviceName(), modelPath()}; }
    bool isDeviceLost() const { return m_deviceLost; }

    // The worker itself, for tests that watch its thread; use the host's signals otherwise.
    EngineWorker* worker() const { return m_worker; }

signals:
    void loadProgress(quint64 id, double fraction, LoadPhase phase);
    void modelLoaded(quint64 id, const ModelSummary& model);
    void loadFailed(quint64 id, const EngineError& error);
    void modelUnloaded();
    void memoryReport(const MemorySnapshot& snapshot);
    void stopRequested();

    void modelChanged();
    void loadingChanged();
    void loadProgressChanged();
    void loadErrorChanged();
    void deviceLostChanged();

private:
    void connectWorker();
    void turnEnded();
    void setLoadError(const QString& message);
    void noteFailure(const EngineError& error);

    std::shared_ptr<EngineFlags> m_flags;
    std::unique_ptr<QThread> m_thread;
    EngineWorker* m_worker = nullptr; // lives on m_thread; deleted there when it finishes
    quint64 m_lastId = 0, m_lastTurnId = 0, m_loadingId = 0;
    int m_pendingTurns = 0;
    bool m_loaded = false;
    ModelSummary m_model;
    double m_loadFraction = 0;
    LoadPhase m_loadPhase = LoadPhase::Reading;
    QString m_loadError;
    bool m_deviceLost = false;
};
