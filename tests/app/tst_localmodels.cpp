// LocalModels: finds .gguf files and Hugging Face folders in the models folder and below it,
// describes them off the GUI thread with the engine's facts and fit, takes user-added paths, and
// fills the quant switcher: every preset for a 16/32-bit source, the other files of the same
// model for a quantized one.
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTest>

#include "apptestdata.h"
#include "enginetestkit.h"
#include "hearth/quant.h"
#include "fitestimate.h"
#include "hearth/memory.h"
#include "library/fitadvisor.h"
#include "localmodels.h"
#include "model_builder.h"

using namespace enginetest;

class TestLocalModels : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void findsAndDescribesModels();
    void userAddedPathsAndErrors();
    void contextChangesTheEstimate();
    void settingsChangeDuringAScanKeepsTheList();
    void presetsForAFullPrecisionModel();
    void sameModelFilesForAQuantizedOne();
    void cpuFitIgnoresGpuSettingsAndCapsTheContext();

private:
    QVariant role(const LocalModels& models, const QString& path, int role) const;
    void waitIdle(LocalModels& models);
    void loadInto(EngineHost& host, const QString& path);

    QString m_dir, m_f32, m_q8, m_hf, m_other;
};

void TestLocalModels::initTestCase()
{
    m_dir = apptest::scratchDir(QStringLiteral("localmodels"));
    m_f32 = writeTinyModel(m_dir, QStringLiteral("tiny-f32.gguf"));
    m_q8 = QDir(m_dir).filePath(QStringLiteral("tiny-q8_0.gguf"));
    hearth::QuantizeParams q;
    q.inputPath = m_f32.toStdString();
    q.outputPath = m_q8.toStdString();
    q.preset = "Q8_0";
    QVERIFY(hearth::quantizeModel(q).isOk());
    QVERIFY(QDir(m_dir).mkpath(QStringLiteral("sub/tiny-hf")));
    m_hf = QDir(m_dir).filePath(QStringLiteral("sub/tiny-hf"));
    hearth::test::writeTinyHfFolder({}, m_hf.toStdString());
    hearth::test::TinyModelSpec qwen;
    qwen.arch = "qwen3";
    m_other = QDir(m_dir).filePath(QStringLiteral("sub/tiny-qwen3.gguf"));
    hearth::test::writeTinyGguf(qwen, m_other.toStdString());
    QFile notes(QDir(m_dir).filePath(QStringLiteral("notes.txt")));
    QVERIFY(notes.open(QIODevice::WriteOnly));
    notes.write("not a model");
}

QVariant TestLocalModels::role(const LocalModels& models, const QString& path, int role) const
{
    return models.data(models.index(models.indexOfPath(path)), role);
}

void TestLocalModels::waitIdle(LocalModels& models)
{
    QTRY_VERIFY_WITH_TIMEOUT(!models.isBusy(), 60000);
}

void TestLocalModels::loadInto(EngineHost& host, const QString& path)
{
    const LoadLog log = loadAndWait(host, cpuLoad(path));
    QVERIFY2(log.ok, qPrintable(log.error.message));
}

void TestLocalModels::findsAndDescribesModels()
{
    LocalModels models;
    QSignalSpy busy(&models, &LocalModels::busyChanged);
    models.setFolder(m_dir);
    QVERIFY(models.isBusy()); // the folder is read on the pool, not here
    waitIdle(models);
    QCOMPARE(models.rowCount(), 4); // f32, q8_0, the HF folder, qwen3; not notes.txt
    for (int row = 0; row < models.rowCount(); ++row) {
        const QModelIndex i = models.index(row);
        QVERIFY(i.data(LocalModels::ReadyRole).toBool());
        QVERIFY2(i.data(LocalModels::ErrorRole).toString().isEmpty(), qPrintable(i.data(LocalModels::ErrorRole).toString()));
        QVERIFY(i.data(LocalModels::FitsRole).toBool()); // tiny models fit anywhere
        QVERIFY(i.data(LocalModels::EstimatedBytesRole).toDouble() > 0);
        QCOMPARE(i.data(LocalModels::MaxContextRole).toInt(), i.data(LocalModels::ContextLengthRole).toInt());
        QVERIFY(!i.data(LocalModels::UserAddedRole).toBool());
    }
    QCOMPARE(role(models, m_f32, LocalModels::ArchitectureRole).toString(), QStringLiteral("llama"));
    QCOMPARE(role(models, m_f32, LocalModels::QuantRole).toString(), QStringLiteral("F32"));
    QCOMPARE(role(models, m_f32, LocalModels::FormatRole).toString(), QStringLiteral("gguf"));
    QCOMPARE(role(models, m_f32, LocalModels::FileBytesRole).toDouble(), double(QFileInfo(m_f32).size()));
    QCOMPARE(role(models, m_f32, LocalModels::ContextLengthRole).toInt(), 256);
    QVERIFY(role(models, m_f32, LocalModels::ParameterCountRole).toDouble() > 0);
    QVERIFY(!role(models, m_f32, LocalModels::ParametersRole).toString().isEmpty());
    QCOMPARE(role(models, m_q8, LocalModels::QuantRole).toString(), QStringLiteral("Q8_0"));
    QVERIFY(role(models, m_q8, LocalModels::TensorTypesRole).toString().startsWith(QStringLiteral("Q8_0 ")));
    QVERIFY(role(models, m_q8, LocalModels::TensorTypesRole).toString().contains(QStringLiteral("F32 ")));
    QCOMPARE(role(models, m_hf, LocalModels::FormatRole).toString(), QStringLiteral("hf"));
    QCOMPARE(role(models, m_other, LocalModels::ArchitectureRole).toString(), QStringLiteral("qwen3"));
    QVERIFY(role(models, m_q8, LocalModels::EstimatedBytesRole).toDouble() <
            role(models, m_f32, LocalModels::EstimatedBytesRole).toDouble());
    QVERIFY(busy.count() >= 2);
}

void TestLocalModels::userAddedPathsAndErrors()
{
    LocalModels models;
    const QString missing = QDir(m_dir).filePath(QStringLiteral("gone.gguf"));
    const int row = models.addPath(QUrl::fromLocalFile(missing).toString()); // as a file dialog gives it
    QCOMPARE(row, 0);
    QCOMPARE(models.addPath(missing), 0); // once
    models.addPath(m_f32);
    waitIdle(models);
    QCOMPARE(models.rowCount(), 2);
    QCOMPARE(models.addedPaths(), (QStringList{missing, m_f32}));
    QVERIFY(role(models, missing, LocalModels::ReadyRole).toBool());
    QVERIFY(role(models, missing, LocalModels::ErrorRole).toString().contains(QStringLiteral("gone.gguf")));
    QVERIFY(!role(models, missing, LocalModels::FitsRole).toBool());
    QVERIFY(role(models, m_f32, LocalModels::UserAddedRole).toBool());
    models.removeAddedPath(missing);
    QCOMPARE(models.addedPaths(), QStringList{m_f32});
}

void TestLocalModels::contextChangesTheEstimate()
{
    LocalModels models;
    models.addPath(m_f32);
    waitIdle(models);
    const double full = role(models, m_f32, LocalModels::EstimatedBytesRole).toDouble();
    models.setContextLength(64);
    waitIdle(models);
    QVERIFY(role(models, m_f32, LocalModels::EstimatedBytesRole).toDouble() < full);
}

void TestLocalModels::settingsChangeDuringAScanKeepsTheList()
{
    LocalModels models;
    models.setFolder(m_dir);
    models.setContextLength(128); // while the folder is still being read
    models.setDevice(QStringLiteral("cpu"));
    waitIdle(models);
    QCOMPARE(models.rowCount(), 4);
    for (int row = 0; row < models.rowCount(); ++row)
        QVERIFY(models.index(row).data(LocalModels::ReadyRole).toBool());
    QCOMPARE(models.index(0).data(LocalModels::MaxContextRole).toInt(), 256);
}

void TestLocalModels::presetsForAFullPrecisionModel()
{
    EngineHost host;
    LocalModels models;
    models.setFolder(m_dir);
    models.setEngine(&host);
    loadInto(host, m_f32);
    waitIdle(models);
    QTRY_VERIFY_WITH_TIMEOUT(models.quantOptions()->rowCount() > 0 && !models.isBusy(), 60000);
    const QList<QuantOption> options = models.quantOptions()->options();
    QCOMPARE(options.size(), qsizetype(hearth::quantPresets().size())); // nothing re-quantizes an F32 source
    quint64 f32 = 0, q8 = 0;
    for (const QuantOption& o : options) {
        QCOMPARE(o.kind, QStringLiteral("preset"));
        QCOMPARE(o.path, m_f32);
        QVERIFY(o.estimatedBytes > 0 && o.fits);
        QCOMPARE(o.current, o.preset == QLatin1String("F32"));
        if (o.preset == QLatin1String("F32"))
            f32 = o.estimatedBytes;
        if (o.preset == QLatin1String("Q8_0"))
            q8 = o.estimatedBytes;
    }
    QVERIFY(q8 > 0 && q8 < f32);
    QVERIFY(role(models, m_f32, LocalModels::LoadedRole).toBool());
    QVERIFY(!role(models, m_q8, LocalModels::LoadedRole).toBool());
}

void TestLocalModels::sameModelFilesForAQuantizedOne()
{
    EngineHost host;
    LocalModels models;
    models.setFolder(m_dir);
    models.setEngine(&host);
    loadInto(host, m_q8);
    QTRY_VERIFY_WITH_TIMEOUT(models.quantOptions()->rowCount() > 0 && !models.isBusy(), 60000);
    QStringList paths;
    for (const QuantOption& o : models.quantOptions()->options()) {
        QCOMPARE(o.kind, QStringLiteral("file"));
        QCOMPARE(o.current, o.path == m_q8);
        paths << o.path;
    }
    paths.sort();
    // The same shape in other files and formats; not the qwen3 model.
    QStringList expected{m_f32, m_q8, m_hf};
    expected.sort();
    QCOMPARE(paths, expected);
}

// The CPU backend stores its KV cache in the chosen type (f16 by default: half of f32's) and has
// no VRAM budget; a context beyond the model's own is estimated (and loaded) at the model's own.
void TestLocalModels::cpuFitIgnoresGpuSettingsAndCapsTheContext()
{
    FitQuery q;
    q.path = m_f32;
    q.trainedContext = 256;
    q.device = DeviceChoice::Cpu;
    q.context = 128;
    const FitEstimate f16 = estimateFit(q);
    QVERIFY2(f16.ok, qPrintable(f16.error));
    // The CPU's speed: the measured bandwidth over the bytes a token reads at half the context.
    hearth::MemoryEstimateParams half;
    half.path = m_f32.toStdString();
    half.contextLength = 128;
    half.kvType = hearth::KvType::F16;
    half.device = hearth::DeviceKind::Cpu;
    const auto halfEstimate = hearth::estimateMemory(half);
    QVERIFY(halfEstimate.isOk());
    QVERIFY(f16.tokensPerSecond > 0);
    QCOMPARE(f16.tokensPerSecond, measuredCpuBandwidth() / double(halfEstimate->decode.at(64)));
    q.kvType = hearth::KvType::F32;
    const FitEstimate f32 = estimateFit(q);
    QVERIFY(f32.totalBytes > f16.totalBytes);
    QVERIFY(f32.tokensPerSecond < f16.tokensPerSecond); // a wider cache to read
    QCOMPARE(f32.weightsBytes, f16.weightsBytes);
    q.kvType = hearth::KvType::BF16;
    QCOMPARE(estimateFit(q).totalBytes, f16.totalBytes);
    q.kvType = hearth::KvType::F16;
    q.budgetBytes = 1; // a GPU budget: no effect here
    QVERIFY(estimateFit(q).fits);
    QCOMPARE(estimateFit(q).maxContext, 256);
    q.context = 100000;
    const FitEstimate capped = estimateFit(q);
    QCOMPARE(capped.context, 256);
    q.context = 256;
    QCOMPARE(estimateFit(q).totalBytes, capped.totalBytes);
    q.quant = QStringLiteral("Q8_0"); // the engine sizes the preset's weights
    QVERIFY(estimateFit(q).weightsBytes < capped.weightsBytes);

    LocalModels models;
    models.setDevice(QStringLiteral("cpu"));
    models.addPath(m_f32);
    waitIdle(models);
    QVERIFY(role(models, m_f32, LocalModels::TokensPerSecondRole).toDouble() > 0);
    const double before = role(models, m_f32, LocalModels::EstimatedBytesRole).toDouble();
    QSignalSpy kv(&models, &LocalModels::kvTypeChanged);
    models.setKvType(QStringLiteral("bf16"));
    models.setVramBudgetGiB(0.001);
    QCOMPARE(kv.count(), 1);
    QCOMPARE(models.kvType(), QStringLiteral("bf16"));
    QVERIFY(qAbs(models.vramBudgetGiB() - 0.001) < 1e-6);
    waitIdle(models);
    QCOMPARE(role(models, m_f32, LocalModels::EstimatedBytesRole).toDouble(), before);
    QVERIFY(role(models, m_f32, LocalModels::FitsRole).toBool());
}

APPTEST_MAIN(TestLocalModels)
#include "tst_localmodels.moc"
