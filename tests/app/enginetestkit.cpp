#include "enginetestkit.h"

#include <QDir>
#include <QTest>

#include "engineworker.h"
#include "model_builder.h"

namespace enginetest {

void followLoad(EngineHost& host, LoadLog& log, QObject* context)
{
    if (!context)
        context = &host;
    // Direct: runs on the engine thread, to see where the load runs.
    QObject::connect(host.worker(), &EngineWorker::loadProgress, context,
                     [&log](quint64, double, LoadPhase) { log.progressThread = QThread::currentThread(); },
                     Qt::DirectConnection);
    QObject::connect(&host, &EngineHost::loadProgress, context, [&log](quint64, double fraction, LoadPhase phase) {
        log.fractions << fraction;
        log.phases << phase;
    });
    QObject::connect(&host, &EngineHost::modelLoaded, context, [&log](quint64, const ModelSummary& model) {
        log.done = log.ok = true;
        log.model = model;
    });
    QObject::connect(&host, &EngineHost::loadFailed, context, [&log](quint64, const EngineError& error) {
        log.done = true;
        log.error = error;
    });
}

LoadRequest cpuLoad(const QString& path, const QString& quant)
{
    LoadRequest request;
    request.path = path;
    request.quant = quant;
    request.device = DeviceChoice::Cpu;
    return request;
}

LoadLog loadAndWait(EngineHost& host, const LoadRequest& request, int timeoutMs)
{
    LoadLog log;
    QObject scope; // the log's connections end with this call
    followLoad(host, log, &scope);
    host.loadModel(request);
    if (!QTest::qWaitFor([&] { return log.done; }, timeoutMs))
        qWarning("load of %s: no outcome in %d ms", qPrintable(request.path), timeoutMs);
    return log;
}

void followReply(EngineHost& host, quint64 id, ReplyLog& log, const QElapsedTimer& clock)
{
    QObject::connect(&host, &EngineHost::replyPieces, &host,
                     [&log, &clock, id](quint64 got, const QString& content, const QString& reasoning,
                                        const ReplyStats& stats) {
                         if (got != id)
                             return;
                         if (log.firstPieceMs < 0)
                             log.firstPieceMs = clock.elapsed();
                         ++log.pieces;
                         log.content += content;
                         log.reasoning += reasoning;
                         log.stats << stats;
                     });
    QObject::connect(&host, &EngineHost::replyFinished, &host, [&log, &clock, id](quint64 got, const ReplyResult& r) {
        if (got != id)
            return;
        log.done = log.ok = true;
        log.result = r;
        log.doneMs = clock.elapsed();
    });
    QObject::connect(&host, &EngineHost::replyFailed, &host, [&log, &clock, id](quint64 got, const ReplyFailure& f) {
        if (got != id)
            return;
        log.done = true;
        log.failure = f;
        log.doneMs = clock.elapsed();
    });
}

TurnRequest greedyTurn(const QString& text, int maxTokens, const QList<TurnMessage>& history)
{
    TurnRequest r;
    r.history = history;
    r.userText = text;
    r.sampling = hearth::SamplingParams{}; // greedy
    r.maxTokens = maxTokens;
    return r;
}

QString writeTinyModel(const QString& dir, const QString& name, int hidden, int layers)
{
    hearth::test::TinyModelSpec spec;
    spec.hidden = hidden;
    spec.layers = layers;
    spec.ffn = hidden * 3 / 2;
    spec.headDim = hidden / spec.heads;
    const QString path = QDir(dir).filePath(name);
    hearth::test::writeTinyGguf(spec, path.toStdString());
    return path;
}

} // namespace enginetest
