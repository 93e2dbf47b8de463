#include "enginehost.h"

#include <QThread>

#include "engineflags.h"
#include "engineworker.h"

EngineHost::EngineHost(QObject* parent)
    : ReplyBackend(parent)
    , m_flags(std::make_shared<EngineFlags>())
    , m_thread(std::make_unique<QThread>())
    , m_worker(new EngineWorker(m_flags))
{
    m_thread->setObjectName(QStringLiteral("Hearth engine"));
    m_worker->moveToThread(m_thread.get());
    // The model is freed on the engine thread, where it was made.
    connect(m_thread.get(), &QThread::finished, m_worker, &QObject::deleteLater);
    connectWorker();
    // Whoever reports the failure (the worker through the relays below, or a test), a lost
    // device is noticed once here.
    connect(this, &EngineHost::loadFailed, this, [this](quint64, const EngineError& e) { noteFailure(e); });
    connect(this, &EngineHost::replyFailed, this, [this](quint64, const ReplyFailure& f) { noteFailure(f.error); });
    m_thread->start();
}

EngineHost::~EngineHost()
{
    m_flags->stopTurnsUpTo(m_lastId);
    m_flags->cancelLoadsUpTo(m_lastId);
    // The loop ends after the call in progress, which the flags end at its next check; calls
    // still queued are dropped with the worker.
    m_thread->quit();
    m_thread->wait();
}

void EngineHost::connectWorker()
{
    // Worker signals cross threads: queued, delivered on the GUI thread.
    connect(m_worker, &EngineWorker::loadProgress, this, [this](quint64 id, double fraction, LoadPhase phase) {
        if (id == m_loadingId) {
            m_loadFraction = fraction;
            m_loadPhase = phase;
            emit loadProgressChanged();
        }
        emit loadProgress(id, fraction, phase);
    });
    connect(m_worker, &EngineWorker::modelLoaded, this, [this](quint64 id, const ModelSummary& model) {
        m_loaded = true;
        m_model = model;
        if (id == m_loadingId) {
            m_loadingId = 0;
            emit loadingChanged();
        }
        emit modelChanged();
        emit modelLoaded(id, model);
    });
    connect(m_worker, &EngineWorker::loadFailed, this, [this](quint64 id, const EngineError& error) {
        if (id == m_loadingId) {
            m_loadingId = 0;
            emit loadingChanged();
            setLoadError(error.cancelled() ? QString() : error.message);
        }
        emit loadFailed(id, error);
    });
    connect(m_worker, &EngineWorker::modelUnloaded, this, [this] {
        m_loaded = false;
        emit modelChanged();
        emit modelUnloaded();
    });
    connect(m_worker, &EngineWorker::replyPieces, this, &EngineHost::replyPieces);
    connect(m_worker, &EngineWorker::replyFinished, this, [this](quint64 id, const ReplyResult& result) {
        turnEnded();
        emit replyFinished(id, result);
    });
    connect(m_worker, &EngineWorker::replyFailed, this, [this](quint64 id, const ReplyFailure& failure) {
        turnEnded();
        emit replyFailed(id, failure);
    });
    connect(m_worker, &EngineWorker::memoryReport, this, &EngineHost::memoryReport);
}

quint64 EngineHost::loadModel(const LoadRequest& request)
{
    m_flags->stopTurnsUpTo(m_lastTurnId);
    m_flags->cancelLoadsUpTo(m_lastId); // an earlier load still queued or running
    const quint64 id = ++m_lastId;
    const bool wasLoading = isLoading();
    m_loadingId = id;
    setLoadError({});
    m_loadFraction = 0;
    m_loadPhase = LoadPhase::Reading;
    QMetaObject::invokeMethod(m_worker, [worker = m_worker, id, request] { worker->load(id, request); },
                              Qt::QueuedConnection);
    if (!wasLoading)
        emit loadingChanged();
    emit loadProgressChanged();
    return id;
}

quint64 EngineHost::load(const QString& path, const QString& quant, const QVariantMap& options)
{
    return loadModel(loadRequestFrom(path, quant, options));
}

void EngineHost::setLoadError(const QString& message)
{
    if (message == m_loadError)
        return;
    m_loadError = message;
    emit loadErrorChanged();
}

void EngineHost::noteFailure(const EngineError& error)
{
    if (error.code != hearth::StatusCode::DeviceLost || m_deviceLost)
        return;
    m_deviceLost = true;
    emit deviceLostChanged();
}

quint64 EngineHost::switchQuant(const QString& preset)
{
    if (!m_loaded)
        return 0;
    LoadRequest request = m_model.request;
    request.quant = preset;
    return loadModel(request);
}

void EngineHost::cancelLoad()
{
    m_flags->cancelLoadsUpTo(m_lastId);
}

void EngineHost::unload()
{
    m_flags->stopTurnsUpTo(m_lastTurnId);
    m_flags->cancelLoadsUpTo(m_lastId);
    QMetaObject::invokeMethod(m_worker, &EngineWorker::unload, Qt::QueuedConnection);
}

quint64 EngineHost::startTurn(const TurnRequest& request)
{
    const quint64 id = ++m_lastId;
    m_lastTurnId = id;
    QMetaObject::invokeMethod(m_worker, [worker = m_worker, id, request] { worker->runTurn(id, request); },
                              Qt::QueuedConnection);
    if (m_pendingTurns++ == 0)
        emit generatingChanged();
    return id;
}

void EngineHost::turnEnded()
{
    if (m_pendingTurns > 0 && --m_pendingTurns == 0)
        emit generatingChanged();
}

void EngineHost::stop()
{
    m_flags->stopTurnsUpTo(m_lastTurnId);
    emit stopRequested();
}

void EngineHost::requestMemoryReport()
{
    if (m_flags->requestMemoryReport())
        QMetaObject::invokeMethod(m_worker, &EngineWorker::reportMemoryIfWanted, Qt::QueuedConnection);
}

QString EngineHost::loadPhaseText() const
{
    if (!isLoading())
        return {};
    switch (m_loadPhase) {
    case LoadPhase::Reading: return tr("Reading the model");
    case LoadPhase::Converting: return tr("Converting the weights");
    case LoadPhase::Uploading: return tr("Uploading to the GPU");
    case LoadPhase::QuantizingOnGpu: return tr("Quantizing on the GPU");
    case LoadPhase::PreparingContext: return tr("Preparing the context");
    }
    return {};
}
