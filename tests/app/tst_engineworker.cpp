// EngineHost and EngineWorker, loading: the load runs on the engine thread with progress while
// the GUI thread's event loop keeps turning, can be cancelled, reports a vanished file as a
// signal; a quant switch F32 -> Q8_0 changes the weights the memory report shows and keeps the
// conversation (the next turn rebuilds the session from the app's history).
#include <QDir>
#include <QFile>
#include <QTest>
#include <QTimer>

#include <algorithm>

#include "apptestdata.h"
#include "enginetestkit.h"
#include "memorymeter.h"

using namespace enginetest;

class TestEngineWorker : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void loadRunsOnTheEngineThreadWithProgress();
    void eventLoopTurnsWhileLoading();
    void cancelledLoadReportsCancelled();
    void vanishedModelFailsWithMessage();
    void replyWithoutModelFails();
    void quantSwitchChangesWeightBytesAndKeepsTheConversation();

private:
    QString m_dir, m_model;
};

void TestEngineWorker::initTestCase()
{
    m_dir = apptest::scratchDir(QStringLiteral("engineworker"));
    // Big enough (8M weights) that converting it takes a while.
    m_model = writeTinyModel(m_dir, QStringLiteral("small-f32.gguf"), 512, 4);
    QVERIFY(QFile::exists(m_model));
}

void TestEngineWorker::loadRunsOnTheEngineThreadWithProgress()
{
    LoadLog log;
    EngineHost host;
    followLoad(host, log);
    host.loadModel(cpuLoad(m_model, QStringLiteral("q8_0")));
    QVERIFY(host.isLoading());
    QTRY_VERIFY_WITH_TIMEOUT(log.done, 60000);
    QVERIFY2(log.ok, qPrintable(log.error.message));
    QVERIFY(log.progressThread && log.progressThread != QThread::currentThread());
    QVERIFY(!host.isLoading());
    QVERIFY(host.isLoaded());

    // Progress: from 0 to 1, never back, converting in between, the context prepared last.
    QVERIFY2(log.fractions.size() >= 3, qPrintable(QString::number(log.fractions.size())));
    QCOMPARE(log.fractions.first(), 0.0);
    QCOMPARE(log.fractions.last(), 1.0);
    for (int i = 1; i < log.fractions.size(); ++i)
        QVERIFY(log.fractions[i] >= log.fractions[i - 1]);
    QVERIFY(log.phases.contains(LoadPhase::Converting));
    QCOMPARE(log.phases.last(), LoadPhase::PreparingContext);

    QCOMPARE(log.model.preset, QStringLiteral("Q8_0"));
    QCOMPARE(log.model.quant, QStringLiteral("Q8_0"));
    QCOMPARE(log.model.facts.quant, QStringLiteral("F32")); // the source, as the file has it
    QVERIFY(log.model.facts.fullPrecision);
    QCOMPARE(log.model.facts.architecture, QStringLiteral("llama"));
    QCOMPARE(log.model.device, hearth::DeviceKind::Cpu);
    QVERIFY(!log.model.deviceName.isEmpty());
    QVERIFY(log.model.contextSize > 0);
    QCOMPARE(host.quant(), QStringLiteral("Q8_0"));
}

void TestEngineWorker::eventLoopTurnsWhileLoading()
{
    QElapsedTimer clock;
    clock.start();
    QList<qint64> ticks;
    QTimer timer;
    timer.setInterval(10);
    connect(&timer, &QTimer::timeout, this, [&] { ticks << clock.elapsed(); });
    timer.start();
    LoadLog log;
    EngineHost host;
    followLoad(host, log);
    LoadRequest request = cpuLoad(m_model, QStringLiteral("Q4_K_M"));
    request.threads = 1;
    const qint64 asked = clock.elapsed();
    host.loadModel(request);
    QVERIFY(clock.elapsed() - asked < 50); // the request itself does not wait
    QTRY_VERIFY_WITH_TIMEOUT(log.done, 60000);
    QVERIFY2(log.ok, qPrintable(log.error.message));
    const qint64 loadedAt = clock.elapsed();
    const double seconds = double(loadedAt - asked) / 1000;
    int during = 0;
    for (qint64 t : ticks)
        during += t >= asked && t <= loadedAt;
    qInfo("load with conversion: %.3f s, %d ticks of the GUI thread's timer", seconds, during);
    QVERIFY2(during >= std::max(2.0, 20 * seconds), qPrintable(QStringLiteral("%1 ticks in %2 s").arg(during).arg(seconds)));
}

void TestEngineWorker::cancelledLoadReportsCancelled()
{
    LoadLog log;
    EngineHost host;
    followLoad(host, log);
    host.loadModel(cpuLoad(m_model, QStringLiteral("Q4_K_M")));
    host.cancelLoad(); // before the worker starts it: the load must still see it
    QTRY_VERIFY_WITH_TIMEOUT(log.done, 60000);
    QVERIFY(!log.ok);
    QVERIFY2(log.error.cancelled(), qPrintable(log.error.message));
    QVERIFY(!host.isLoaded());
    QVERIFY(!host.isLoading());
}

void TestEngineWorker::vanishedModelFailsWithMessage()
{
    const QString path = writeTinyModel(m_dir, QStringLiteral("vanishing.gguf"));
    QVERIFY(QFile::remove(path));
    EngineHost host;
    const LoadLog log = loadAndWait(host, cpuLoad(path));
    QVERIFY(log.done);
    QVERIFY(!log.ok);
    QCOMPARE(log.error.code, hearth::StatusCode::NotFound);
    QVERIFY2(log.error.message.contains(QStringLiteral("vanishing.gguf")), qPrintable(log.error.message));
    QVERIFY(!host.isLoaded());
}

void TestEngineWorker::replyWithoutModelFails()
{
    QElapsedTimer clock;
    clock.start();
    ReplyLog log;
    EngineHost host;
    followReply(host, host.startTurn(greedyTurn(QStringLiteral("Hello"), 8)), log, clock);
    QVERIFY(host.isGenerating());
    QTRY_VERIFY_WITH_TIMEOUT(log.done, 30000);
    QVERIFY(!log.ok);
    QCOMPARE(log.failure.error.code, hearth::StatusCode::FailedPrecondition);
    QVERIFY(!log.failure.error.message.isEmpty());
    QVERIFY(!host.isGenerating());
}

void TestEngineWorker::quantSwitchChangesWeightBytesAndKeepsTheConversation()
{
    QElapsedTimer clock;
    clock.start();
    LoadLog load;
    ReplyLog before, after;
    EngineHost host;
    MemoryMeter meter;
    meter.setEngine(&host);
    followLoad(host, load);
    host.loadModel(cpuLoad(m_model));
    QTRY_VERIFY_WITH_TIMEOUT(load.done && meter.isLoaded(), 60000);
    QVERIFY2(load.ok, qPrintable(load.error.message));
    const double f32Weights = meter.weightsBytes();
    QVERIFY(f32Weights > 0);
    followReply(host, host.startTurn(greedyTurn(QStringLiteral("Hello"), 6)), before, clock);
    QTRY_VERIFY_WITH_TIMEOUT(before.done, 60000);
    QVERIFY2(before.ok, qPrintable(before.failure.error.message));

    load = LoadLog{};
    QVERIFY(host.switchQuant(QStringLiteral("Q8_0")) != 0);
    QTRY_VERIFY_WITH_TIMEOUT(load.done && meter.isLoaded() && meter.weightsBytes() != f32Weights, 60000);
    QVERIFY2(load.ok, qPrintable(load.error.message));
    QCOMPARE(load.model.quant, QStringLiteral("Q8_0"));
    QCOMPARE(load.model.facts.path, m_model);
    // Q8_0 keeps 34 bytes per 32 weights where F32 keeps 128; norms stay F32.
    QVERIFY2(meter.weightsBytes() < 0.4 * f32Weights,
             qPrintable(QStringLiteral("%1 vs %2").arg(meter.weightsBytes()).arg(f32Weights)));

    // The conversation goes on from the app's history on the new weights.
    const QList<TurnMessage> history{{QStringLiteral("user"), QStringLiteral("Hello"), {}, {}},
                                     {QStringLiteral("assistant"), before.result.content, {}, {}}};
    followReply(host, host.startTurn(greedyTurn(QStringLiteral("Again"), 6, history)), after, clock);
    QTRY_VERIFY_WITH_TIMEOUT(after.done, 60000);
    QVERIFY2(after.ok, qPrintable(after.failure.error.message));
    QVERIFY(after.result.restored);
    QVERIFY(after.result.stats.promptTokens > before.result.stats.promptTokens);
}

APPTEST_MAIN(TestEngineWorker)
#include "tst_engineworker.moc"
