// DeviceStatus: the probe runs off the GUI thread, the properties arrive together with ready, and
// the backend and plain-words reason follow the report. Fake reports cover the GPU cases.
#include <QSignalSpy>
#include <QTest>
#include <QThread>

#include "devicestatus.h"

namespace {

hearth::DeviceInfo fakeCpu()
{
    hearth::DeviceInfo cpu;
    cpu.name = "Test CPU (8 threads)";
    cpu.totalBytes = 32ull << 30;
    cpu.freeBytes = 24ull << 30;
    return cpu;
}

hearth::DeviceInfo fakeGpu()
{
    hearth::DeviceInfo gpu;
    gpu.kind = hearth::DeviceKind::Cuda;
    gpu.name = "NVIDIA GeForce RTX 4090";
    gpu.totalBytes = 24ull << 30;
    gpu.freeBytes = 18ull << 30;
    gpu.computeCapability = "8.9";
    return gpu;
}

hearth::DeviceReport report(std::vector<hearth::DeviceInfo> devices, bool cudaBuilt, hearth::CudaUnavailable why,
                            std::string reason)
{
    hearth::DeviceReport r;
    r.devices = std::move(devices);
    r.cudaBuilt = cudaBuilt;
    r.cudaUnavailable = why;
    r.cudaUnavailableReason = std::move(reason);
    return r;
}

} // namespace

class TestDeviceStatus : public QObject
{
    Q_OBJECT

private slots:
    void realProbeFillsProperties();
    void probeRunsOffTheGuiThread();
    void gpuReportSelectsCuda();
    void fallbackMessages_data();
    void fallbackMessages();
    void modelRowsAndFormatting();
    void destroyWhileProbing();
};

void TestDeviceStatus::realProbeFillsProperties()
{
    DeviceStatus status;
    QSignalSpy spy(&status, &DeviceStatus::readyChanged);
    QVERIFY(!status.isReady());
    QVERIFY(status.backendName().isEmpty());
    QVERIFY(spy.wait(10000));
    QCOMPARE(spy.count(), 1);
    QVERIFY(status.isReady());
    QCOMPARE(status.version(), QStringLiteral(HEARTH_VERSION));

    DeviceModel* devices = status.devices();
    QVERIFY(devices->rowCount() >= 1);
    const QVariantMap cpu = devices->get(0);
    QCOMPARE(cpu.value("kind").toString(), QStringLiteral("cpu"));
    QVERIFY(!cpu.value("name").toString().isEmpty());
    QVERIFY(cpu.value("totalBytes").toULongLong() > 0);
    QVERIFY(cpu.value("memoryText").toString().contains("GiB"));

    // This machine has no GPU (and the test build may have no CUDA backend).
    bool anyCuda = false;
    for (int row = 0; row < devices->rowCount(); ++row)
        anyCuda = anyCuda || devices->get(row).value("kind").toString() == QStringLiteral("cuda");
    if (anyCuda)
        QSKIP("a CUDA device is present: the CPU-only expectations do not apply");
    QCOMPARE(status.backendName(), QStringLiteral("CPU"));
    QVERIFY(!status.usingGpu());
    QVERIFY(!status.cudaUnavailableReason().isEmpty());
    QVERIFY(status.cpuFallbackMessage().contains(QStringLiteral("CPU")));
}

void TestDeviceStatus::probeRunsOffTheGuiThread()
{
    QThread* probeThread = nullptr;
    DeviceStatus status([&probeThread] {
        probeThread = QThread::currentThread();
        return report({fakeCpu()}, false, hearth::CudaUnavailable::NotBuilt, "this build of Hearth has no CUDA backend");
    });
    QSignalSpy spy(&status, &DeviceStatus::readyChanged);
    QVERIFY(spy.wait(5000));
    QVERIFY(probeThread != nullptr);
    QVERIFY(probeThread != QThread::currentThread());
}

void TestDeviceStatus::gpuReportSelectsCuda()
{
    DeviceStatus status([] { return report({fakeCpu(), fakeGpu()}, true, hearth::CudaUnavailable::None, ""); });
    QSignalSpy spy(&status, &DeviceStatus::readyChanged);
    QVERIFY(spy.wait(5000));
    QCOMPARE(status.backendName(), QStringLiteral("CUDA"));
    QVERIFY(status.usingGpu());
    QVERIFY(status.cudaBuilt());
    QVERIFY(status.cudaUnavailableReason().isEmpty());
    QVERIFY(status.cpuFallbackMessage().isEmpty());
    QVERIFY(status.cpuFallbackDetails().isEmpty());
    QCOMPARE(status.devices()->rowCount(), 2);
    const QVariantMap gpu = status.devices()->get(1);
    QCOMPARE(gpu.value("name").toString(), QStringLiteral("NVIDIA GeForce RTX 4090"));
    QCOMPARE(gpu.value("kindLabel").toString(), QStringLiteral("GPU"));
    QCOMPARE(gpu.value("computeCapability").toString(), QStringLiteral("8.9"));
}

void TestDeviceStatus::fallbackMessages_data()
{
    using hearth::CudaUnavailable;
    QTest::addColumn<bool>("cudaBuilt");
    QTest::addColumn<int>("why");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<QString>("expectedStart");
    QTest::addColumn<bool>("hasDetails");

    QTest::newRow("not built") << false << int(CudaUnavailable::NotBuilt) << "this build of Hearth has no CUDA backend"
                               << "This build of Hearth has no GPU support" << false;
    QTest::newRow("no driver") << true << int(CudaUnavailable::NoDriver) << "no NVIDIA driver is installed"
                               << "No NVIDIA driver found" << true;
    QTest::newRow("driver broken") << true << int(CudaUnavailable::DriverBroken) << "the driver does not work"
                                   << "The NVIDIA driver is installed but not working" << true;
    QTest::newRow("driver too old") << true << int(CudaUnavailable::DriverTooOld) << "the driver is too old"
                                    << "The NVIDIA driver is too old" << true;
    QTest::newRow("no device") << true << int(CudaUnavailable::NoDevice) << "no CUDA device found"
                               << "No NVIDIA graphics card found" << true;
    QTest::newRow("mismatch") << true << int(CudaUnavailable::ModuleMismatch) << "module does not match"
                              << "Hearth's GPU support belongs to a different version" << true;
    QTest::newRow("module missing") << true << int(CudaUnavailable::ModuleMissing) << "module missing"
                                    << "Hearth's GPU support could not be loaded" << true;
    QTest::newRow("library missing") << true << int(CudaUnavailable::LibraryMissing) << "needs libcudart.so.13"
                                     << "Hearth's GPU support could not be loaded" << true;
    QTest::newRow("other") << true << int(CudaUnavailable::CudaError) << "CUDA runtime error: unknown error"
                           << "The NVIDIA graphics card can't be used" << true;
    // The reason decides, not the words: words that name another cause change nothing.
    QTest::newRow("words ignored") << true << int(CudaUnavailable::NoDevice) << "no NVIDIA driver (libcuda.so)"
                                   << "No NVIDIA graphics card found" << true;
}

void TestDeviceStatus::fallbackMessages()
{
    QFETCH(bool, cudaBuilt);
    QFETCH(int, why);
    QFETCH(QString, reason);
    QFETCH(QString, expectedStart);
    QFETCH(bool, hasDetails);

    DeviceStatus status([=] { return report({fakeCpu()}, cudaBuilt, hearth::CudaUnavailable(why), reason.toStdString()); });
    QSignalSpy spy(&status, &DeviceStatus::readyChanged);
    QVERIFY(spy.wait(5000));
    QCOMPARE(status.backendName(), QStringLiteral("CPU"));
    QCOMPARE(status.cudaUnavailableReason(), reason);
    QVERIFY2(status.cpuFallbackMessage().startsWith(expectedStart), qPrintable(status.cpuFallbackMessage()));
    QVERIFY(status.cpuFallbackMessage().endsWith(QStringLiteral("Hearth will run on the CPU (slower).")));
    QCOMPARE(!status.cpuFallbackDetails().isEmpty(), hasDetails);
}

void TestDeviceStatus::modelRowsAndFormatting()
{
    QCOMPARE(DeviceModel::formatGiB(0), QStringLiteral("0.0 GiB"));
    QCOMPARE(DeviceModel::formatGiB(24ull << 30), QStringLiteral("24.0 GiB"));

    DeviceModel model;
    QSignalSpy countSpy(&model, &DeviceModel::countChanged);
    model.setDevices({fakeCpu(), fakeGpu()});
    QCOMPARE(countSpy.count(), 1);
    QCOMPARE(model.rowCount(), 2);
    const QVariantMap gpu = model.get(1);
    QCOMPARE(gpu.value("memoryText").toString(), QStringLiteral("24.0 GiB total · 18.0 GiB free"));
    QCOMPARE(gpu.value("usedFraction").toDouble(), 0.25);
    QVERIFY(model.get(2).isEmpty());
    QVERIFY(model.get(-1).isEmpty());
    QVERIFY(!model.data(model.index(5, 0), DeviceModel::NameRole).isValid());
}

void TestDeviceStatus::destroyWhileProbing()
{
    // The destructor waits for the probe; the late result must not reach a deleted object.
    auto status = std::make_unique<DeviceStatus>([] {
        QThread::msleep(200);
        return report({fakeCpu()}, false, hearth::CudaUnavailable::NotBuilt, "no CUDA backend");
    });
    status.reset();
    QTest::qWait(50); // deliver anything queued
}

QTEST_GUILESS_MAIN(TestDeviceStatus)
#include "tst_devicestatus.moc"
