// MemoryMeter and LiveStats: the meter polls the engine thread's memory reports and shows a CPU
// backend with the model's RAM and why no GPU is used; fed reports give the categories, the
// other processes' share and the reason codes; LiveStats follows a reply and computes the live
// decode rate over the last second.
#include <QDir>
#include <QSignalSpy>
#include <QTest>

#include "apptestdata.h"
#include "enginetestkit.h"
#include "hearth/memory.h"
#include "hearth/synth.h"
#include "livestats.h"
#include "memorymeter.h"

using namespace enginetest;

class TestMemoryMeter : public QObject
{
    Q_OBJECT

private slots:
    void cpuBackendShowsRamAndReason();
    void gpuReportSplitsByCategory();
    void hybridModelShowsItsRecurrentState();
    void reasonsFollowTheProbe_data();
    void reasonsFollowTheProbe();
    void historyKeepsFiveMinutes();
    void liveRateOverTheLastSecond();
    void liveStatsFollowAReply();
};

namespace {

MemorySnapshot gpuSnapshot()
{
    MemorySnapshot s;
    s.loaded = true;
    s.cudaBuilt = true;
    s.report.device.kind = hearth::DeviceKind::Cuda;
    s.report.device.name = "NVIDIA GeForce RTX 4090";
    s.report.device.totalBytes = 24ull << 30;
    s.report.device.freeBytes = 8ull << 30;
    s.report.weightsBytes = 9ull << 30;
    s.report.kvCacheBytes = 2ull << 30;
    s.report.workspaceBytes = 1ull << 29;
    s.report.deviceContextBytes = 1ull << 29;
    return s;
}

} // namespace

void TestMemoryMeter::cpuBackendShowsRamAndReason()
{
    APPTEST_DATA(path, "models/stories260K/stories260K-f32.gguf");
    EngineHost host;
    MemoryMeter meter;
    meter.setIntervalMs(100);
    meter.setEngine(&host);
    QTRY_VERIFY_WITH_TIMEOUT(meter.isValid(), 30000); // a first reading without a model
    QVERIFY(!meter.isLoaded());
    const LoadLog log = loadAndWait(host, cpuLoad(path), 30000);
    QVERIFY2(log.ok, qPrintable(log.error.message));
    QTRY_VERIFY_WITH_TIMEOUT(meter.isLoaded(), 30000);
    QVERIFY(!meter.onGpu());
    QVERIFY(!meter.deviceName().isEmpty());
    QVERIFY(meter.weightsBytes() > 0);
    QVERIFY(meter.kvCacheBytes() > 0);
    QCOMPARE(meter.usedBytes(), meter.weightsBytes() + meter.kvCacheBytes() + meter.recurrentStateBytes() +
                                    meter.workspaceBytes() + meter.deviceContextBytes());
    QCOMPARE(meter.deviceContextBytes(), 0.0);
    QVERIFY(meter.totalBytes() > meter.usedBytes());
    QVERIFY(meter.freeBytes() > 0);
    // Why the CPU: "chosen" where a GPU is usable, else the probe's reason; in words either way.
    QVERIFY(!meter.noGpuReasonCode().isEmpty());
    QVERIFY(meter.noGpuReasonCode() != QLatin1String("none"));
    QVERIFY(!meter.noGpuReason().isEmpty());
    // It keeps polling: new readings about every interval.
    QSignalSpy readings(&meter, &MemoryMeter::reportChanged);
    QTRY_VERIFY_WITH_TIMEOUT(readings.count() >= 3, 5000);
    QVERIFY(meter.historyBytes().size() >= 3);
    QCOMPARE(meter.historyBytes().last(), meter.usedBytes());
}

void TestMemoryMeter::gpuReportSplitsByCategory()
{
    MemoryMeter meter;
    meter.apply(gpuSnapshot());
    QVERIFY(meter.onGpu());
    QCOMPARE(meter.deviceName(), QStringLiteral("NVIDIA GeForce RTX 4090"));
    QCOMPARE(meter.usedBytes(), double(12ull << 30));
    QCOMPARE(meter.otherProcessesBytes(), double(4ull << 30)); // 24 - 8 free - 12 Hearth's
    QVERIFY(meter.noGpuReason().isEmpty());
    QVERIFY(meter.noGpuReasonCode().isEmpty());
    MemorySnapshot crowded = gpuSnapshot();
    crowded.report.device.freeBytes = 20ull << 30; // readings taken at different moments
    meter.apply(crowded);
    QCOMPARE(meter.otherProcessesBytes(), 0.0);
}

// A Qwen3.5-shaped model (Gated DeltaNet layers) keeps a recurrent state: the meter shows the
// engine's figure as its own category, counted in Hearth's use.
void TestMemoryMeter::hybridModelShowsItsRecurrentState()
{
    const QString path = QDir(apptest::scratchDir(QStringLiteral("memorymeter"))).filePath(QStringLiteral("hybrid.gguf"));
    hearth::SynthModelParams p;
    p.shape = "tiny-qwen35";
    p.preset = "Q8_0";
    p.threads = 2;
    p.outputPath = path.toStdString();
    const auto written = hearth::synthesizeModel(p);
    QVERIFY2(written.isOk(), written.status().message().c_str());
    EngineHost host;
    MemoryMeter meter;
    meter.setIntervalMs(100);
    meter.setEngine(&host);
    const LoadLog log = loadAndWait(host, cpuLoad(path), 30000);
    QVERIFY2(log.ok, qPrintable(log.error.message));
    QTRY_VERIFY_WITH_TIMEOUT(meter.isLoaded(), 30000);
    const auto estimate = hearth::estimateMemory(path.toStdString(), 0, hearth::KvType::F16, hearth::DeviceKind::Cpu);
    QVERIFY2(estimate.isOk(), estimate.status().message().c_str());
    QVERIFY(estimate->recurrentStateBytes > 0);
    QCOMPARE(meter.recurrentStateBytes(), double(estimate->recurrentStateBytes));
    QCOMPARE(meter.usedBytes(), meter.weightsBytes() + meter.kvCacheBytes() + meter.recurrentStateBytes() +
                                    meter.workspaceBytes() + meter.deviceContextBytes());
    // A fed GPU report: the state is Hearth's, not another process's.
    MemorySnapshot s = gpuSnapshot();
    s.report.recurrentStateBytes = 1ull << 30;
    meter.apply(s);
    QCOMPARE(meter.recurrentStateBytes(), double(1ull << 30));
    QCOMPARE(meter.usedBytes(), double(13ull << 30));
    QCOMPARE(meter.otherProcessesBytes(), double(3ull << 30)); // 24 - 8 free - 13 Hearth's
}

void TestMemoryMeter::reasonsFollowTheProbe_data()
{
    QTest::addColumn<bool>("built");
    QTest::addColumn<int>("why");
    QTest::addColumn<bool>("chosen");
    QTest::addColumn<QString>("code");
    using W = hearth::CudaUnavailable;
    QTest::newRow("not built") << false << int(W::None) << false << "not_built";
    QTest::newRow("no driver") << true << int(W::NoDriver) << false << "no_driver";
    QTest::newRow("no device") << true << int(W::NoDevice) << false << "no_device";
    QTest::newRow("module missing") << true << int(W::ModuleMissing) << false << "module_missing";
    QTest::newRow("chosen") << true << int(W::None) << true << "chosen";
}

void TestMemoryMeter::reasonsFollowTheProbe()
{
    QFETCH(bool, built);
    QFETCH(int, why);
    QFETCH(bool, chosen);
    QFETCH(QString, code);
    MemorySnapshot s;
    s.cudaBuilt = built;
    s.cudaUnavailable = hearth::CudaUnavailable(why);
    s.cpuChosen = chosen;
    s.report.device.name = "Test CPU";
    MemoryMeter meter;
    meter.apply(s);
    QCOMPARE(meter.noGpuReasonCode(), code);
    QVERIFY(!meter.noGpuReason().isEmpty());
    QVERIFY(!meter.noGpuReason().contains(QLatin1Char('_'))); // words, not the code
}

void TestMemoryMeter::historyKeepsFiveMinutes()
{
    MemoryMeter meter;
    for (int i = 0; i < 5; ++i)
        meter.apply(gpuSnapshot());
    QCOMPARE(meter.historyBytes().size(), 5);
    QCOMPARE(meter.historySecondsAgo().size(), 5);
    QCOMPARE(meter.historySecondsAgo().last(), 0.0);
    QVERIFY(meter.historySecondsAgo().first() >= 0);
    QCOMPARE(MemoryMeter::historyWindowSeconds(), 300);
}

void TestMemoryMeter::liveRateOverTheLastSecond()
{
    LiveStats stats;
    // 2 s of decoding: 20 tok/s in the first second, 50 tok/s in the second.
    int tokens = 0;
    for (int ms = 100; ms <= 2000; ms += 100) {
        tokens += ms <= 1000 ? 2 : 5;
        ReplyStats s;
        s.tokens = tokens;
        s.elapsedMs = ms;
        s.decodeTokPerS = 1; // the engine's average: not what the live figure shows
        stats.update(7, s);
    }
    QVERIFY(stats.isActive());
    QCOMPARE(stats.tokens(), tokens);
    QVERIFY2(qAbs(stats.decodeTokPerS() - 50) < 1, qPrintable(QString::number(stats.decodeTokPerS())));
    QCOMPARE(stats.decodeHistory().size(), stats.historyMs().size());
    QVERIFY(stats.decodeHistory().first() < 25);
    ReplyStats final;
    final.tokens = tokens;
    final.decodeTokPerS = 35;
    stats.end(7, final);
    QVERIFY(!stats.isActive());
    QCOMPARE(stats.decodeTokPerS(), 35.0);
}

void TestMemoryMeter::liveStatsFollowAReply()
{
    APPTEST_DATA(path, "models/stories260K/stories260K-f32.gguf");
    EngineHost host;
    LiveStats stats;
    stats.setEngine(&host);
    const LoadLog load = loadAndWait(host, cpuLoad(path), 30000);
    QVERIFY2(load.ok, qPrintable(load.error.message));
    QElapsedTimer clock;
    clock.start();
    ReplyLog log;
    bool sawActive = false;
    connect(&stats, &LiveStats::statsChanged, this, [&] { sawActive = sawActive || stats.isActive(); });
    followReply(host, host.startTurn(greedyTurn(QStringLiteral("Once upon a time"), 200)), log, clock);
    QTRY_VERIFY_WITH_TIMEOUT(log.done, 30000);
    QVERIFY(log.ok);
    QVERIFY(sawActive);
    QVERIFY(!stats.isActive());
    QCOMPARE(stats.tokens(), log.result.stats.tokens);
    QCOMPARE(stats.decodeTokPerS(), log.result.stats.decodeTokPerS);
    QCOMPARE(stats.contextUsed(), log.result.stats.contextUsed);
    QVERIFY(stats.contextSize() > 0);
    QVERIFY(stats.prefillTokPerS() > 0);
}

APPTEST_MAIN(TestMemoryMeter)
#include "tst_memorymeter.moc"
