// Diagnostics: the log file (format, flushing, rotation), "Copy diagnostics" from a faked device
// probe and a real loaded model, the last error, and the licences the About page lists.
#include <QFile>
#include <QGuiApplication>
#include <QRegularExpression>
#include <QSysInfo>
#include <QTemporaryDir>
#include <QTest>

#include "clipboard.h"
#include "diagnostics.h"
#include "enginehost.h"
#include "enginetestkit.h"
#include "logfile.h"
#include "model_builder.h"

namespace {

QString readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

hearth::DeviceReport noDriver()
{
    hearth::DeviceReport r;
    r.devices.push_back({hearth::DeviceKind::Cpu, 0, "Test CPU (2 threads)", 8ull << 30, 4ull << 30, ""});
    r.cudaBuilt = true;
    r.cudaUnavailable = hearth::CudaUnavailable::NoDriver;
    r.cudaUnavailableReason = "libcuda.so.1 not found (test)";
    return r;
}

hearth::DeviceReport oneGpu()
{
    hearth::DeviceReport r = noDriver();
    r.devices.push_back({hearth::DeviceKind::Cuda, 0, "NVIDIA Test GPU", 80ull << 30, 70ull << 30, "9.0"});
    r.cudaUnavailable = hearth::CudaUnavailable::None;
    r.cudaUnavailableReason.clear();
    return r;
}

QStringList components(const Diagnostics& d)
{
    QStringList out;
    for (const QVariant& entry : d.licences())
        out << entry.toMap().value(QStringLiteral("component")).toString();
    return out;
}

QString licenceOf(const Diagnostics& d, const QString& component)
{
    for (const QVariant& entry : d.licences()) {
        if (entry.toMap().value(QStringLiteral("component")).toString() == component)
            return entry.toMap().value(QStringLiteral("licence")).toString();
    }
    return {};
}

} // namespace

class TestDiagnostics : public QObject
{
    Q_OBJECT

private slots:
    void logLinesAreTimestampedAndFlushed()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("state/hearth/hearth.log")); // the folder is made
        QVERIFY(logfile::install(path));
        QCOMPARE(logfile::currentPath(), path);
        qInfo("first line");
        qWarning("two\nlines");
        // Read while still installed: nothing waits in a buffer.
        const QString log = readAll(path);
        logfile::uninstall();
        const QString pid = QString::number(QCoreApplication::applicationPid());
        QVERIFY2(log.contains(QRegularExpression(QStringLiteral("^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} \\[") +
                                                 pid + QStringLiteral("\\] info first line$"),
                                                 QRegularExpression::MultilineOption)),
                 qPrintable(log));
        QVERIFY2(log.contains(QStringLiteral("warning two\n  lines\n")), qPrintable(log));
        qInfo("after uninstall");
        QVERIFY(!readAll(path).contains(QStringLiteral("after uninstall")));
    }

    void logRotatesPastItsSize()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("hearth.log"));
        constexpr qint64 kMax = 4096;
        QVERIFY(logfile::install(path, kMax));
        for (int i = 0; i < 200; ++i)
            qInfo("line %03d of a log that grows past its size", i);
        logfile::uninstall();
        const QString current = readAll(path), older = readAll(path + QStringLiteral(".1"));
        QVERIFY(!older.isEmpty());
        QVERIFY(QFile(path).size() <= kMax);
        QVERIFY(QFile(path + QStringLiteral(".1")).size() <= kMax);
        QVERIFY(current.contains(QStringLiteral("line 199 ")));           // the newest is in the file
        QVERIFY(!QFile::exists(path + QStringLiteral(".2")));             // one older file is kept
        QVERIFY(!older.contains(QStringLiteral("line 000 ")));            // the oldest went
    }

    void copyTextNamesVersionsDeviceAndError()
    {
        Diagnostics d(noDriver);
        QTRY_VERIFY(d.probed());
        const QString text = d.copyText();
        QVERIFY2(text.startsWith(QStringLiteral("Hearth " HEARTH_VERSION "\n")), qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("Qt: ") + QString::fromLatin1(qVersion())));
        QVERIFY(text.contains(QStringLiteral("OS: ") + QSysInfo::prettyProductName()));
        QVERIFY(text.contains(QStringLiteral("GPU: none usable\n")));
        QVERIFY(text.contains(QStringLiteral("CUDA: unavailable (no_driver): libcuda.so.1 not found (test)\n")));
        QVERIFY(text.contains(QStringLiteral("CUDA module: installed\n")));
        QVERIFY(text.contains(QStringLiteral("CPU: Test CPU (2 threads), 8.0 GiB RAM\n")));
        QVERIFY(text.contains(QStringLiteral("Model: none loaded\n")));
        QVERIFY(text.contains(QStringLiteral("Last error: none\n")));

        d.reportError(QStringLiteral("The disk is full"));
        QCOMPARE(d.lastError(), QStringLiteral("The disk is full"));
        QVERIFY(d.copyText().contains(QStringLiteral("Last error: The disk is full\n")));

        d.copyToClipboard();
        QCOMPARE(Clipboard().text(), d.copyText());
    }

    void gpuAndCudaLicencesWhenTheModuleIsThere()
    {
        Diagnostics gpu(oneGpu);
        QTRY_VERIFY(gpu.probed());
        QVERIFY(gpu.copyText().contains(QStringLiteral("GPU 0: NVIDIA Test GPU (compute 9.0, 80.0 GiB)\n")));
        QVERIFY(gpu.copyText().contains(QStringLiteral("CUDA: available\n")));
        QVERIFY(gpu.copyText().contains(QStringLiteral("CUDA module: loaded\n")));
        QVERIFY(components(gpu).contains(QStringLiteral("NVIDIA CUDA runtime, cuBLAS")));
        QCOMPARE(licenceOf(gpu, QStringLiteral("Qt 6")), QStringLiteral("LGPL-3.0"));
        QCOMPARE(licenceOf(gpu, QStringLiteral("SentencePiece")), QStringLiteral("Apache-2.0"));
        QCOMPARE(licenceOf(gpu, QStringLiteral("md4c")), QStringLiteral("MIT"));

        Diagnostics cpuOnly([] {
            hearth::DeviceReport r = noDriver();
            r.cudaUnavailable = hearth::CudaUnavailable::ModuleMissing;
            return r;
        });
        QTRY_VERIFY(cpuOnly.probed());
        QVERIFY(cpuOnly.copyText().contains(QStringLiteral("CUDA module: missing\n")));
        QVERIFY(!components(cpuOnly).contains(QStringLiteral("NVIDIA CUDA runtime, cuBLAS")));
        QVERIFY(!Diagnostics::hearthLicence().isEmpty());
    }

    void followsTheLoadedModel()
    {
        QTemporaryDir dir;
        hearth::test::TinyModelSpec spec;
        spec.extraStringKeys["general.license"] = "apache-2.0";
        spec.extraStringKeys["general.name"] = "Tiny Licensed";
        const QString path = dir.filePath(QStringLiteral("licensed.gguf"));
        hearth::test::writeTinyGguf(spec, path.toStdString());

        EngineHost host;
        Diagnostics d(noDriver);
        d.setEngine(&host);
        const enginetest::LoadLog log = enginetest::loadAndWait(host, enginetest::cpuLoad(path), 30000);
        QVERIFY2(log.ok, qPrintable(log.error.message));
        const QString text = d.copyText();
        QVERIFY2(text.contains(QStringLiteral("Model: Tiny Licensed (llama, ") + path + QStringLiteral(")\n")), qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("Quant: F32\n")));
        QVERIFY(text.contains(QStringLiteral(" (cpu)\n")));
        QCOMPARE(licenceOf(d, QStringLiteral("Tiny Licensed")), QStringLiteral("apache-2.0"));

        // A failed load becomes the last error, in the engine's words.
        const enginetest::LoadLog failed =
            enginetest::loadAndWait(host, enginetest::cpuLoad(dir.filePath(QStringLiteral("missing.gguf"))), 30000);
        QVERIFY(failed.done && !failed.ok);
        QVERIFY2(d.lastError().startsWith(QStringLiteral("Loading the model failed: ")), qPrintable(d.lastError()));
        QVERIFY(d.lastError().contains(QStringLiteral("missing.gguf")));
    }
};

int main(int argc, char** argv)
{
    QGuiApplication app(argc, argv); // the clipboard needs it (offscreen platform)
    TestDiagnostics test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_diagnostics.moc"
