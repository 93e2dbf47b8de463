// ModelLibrary on a scratch models folder: the catalog's variants with fits on a fixed GPU and one
// recommendation per family; files that appear in the folder (a finished download, a copy) show
// without a rescan, in LocalModels and as "downloaded"; Delete removes a model (a split GGUF's
// parts, a Hugging Face folder) and nothing outside the folder; Download asks the downloader.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTest>

#include "apptestdata.h"
#include "enginetestkit.h"
#include "localmodels.h"
#include "modellibrary.h"

namespace {

void touch(const QString& path, const QByteArray& content = "x")
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(content);
}

// Four families: one the engine runs (two quants), one that is coming, a hybrid one (Qwen3.5-27B's
// shape, with a 16-bit source whose shards come from its index) and one of the same architecture
// whose sizes the catalog does not know.
QByteArray testCatalog()
{
    auto file = [](const QString& repo, const QString& path) {
        return QJsonObject{{"repo", repo}, {"path", path}, {"size", 1000}};
    };
    const QJsonObject shape{{"architecture", "qwen3"}, {"layers", 36}, {"hidden", 4096}, {"heads", 32}, {"kvHeads", 8},
                            {"headDim", 128}, {"vocab", 151936}, {"ffn", 12288}, {"context", 40960}};
    const QJsonArray variants{
        QJsonObject{{"quant", "Q4_K_M"}, {"format", "gguf"}, {"files", QJsonArray{file("Q/M-GGUF", "m-Q4_K_M.gguf")}}},
        QJsonObject{{"quant", "Q8_0"},
                    {"format", "gguf"},
                    {"files", QJsonArray{file("Q/M-GGUF", "Q8_0/m-Q8_0-00001-of-00002.gguf"),
                                         file("Q/M-GGUF", "Q8_0/m-Q8_0-00002-of-00002.gguf")}}}};
    const QJsonObject runs{{"id", "m"}, {"name", "M"}, {"license", "apache-2.0"}, {"shape", shape}, {"variants", variants}};
    const auto oneVariant = [&](const QString& repo, const QString& path) {
        return QJsonArray{QJsonObject{{"quant", "Q4_K_M"}, {"format", "gguf"}, {"files", QJsonArray{file(repo, path)}}}};
    };
    const QJsonObject coming{{"id", "c"}, {"name", "C"}, {"license", "apache-2.0"}, {"requires", "mamba2"},
                             {"shape", QJsonObject{{"architecture", "mamba2"}}},
                             {"variants", oneVariant("U/C-GGUF", "c-Q4_K_M.gguf")}};
    const QJsonObject hybridShape{{"architecture", "qwen35"}, {"layers", 64}, {"hidden", 5120}, {"heads", 24},
                                  {"kvHeads", 4}, {"headDim", 256}, {"vocab", 248320}, {"ffn", 17408},
                                  {"context", 262144}, {"ropeDims", 64}, {"linearKeyHeads", 16},
                                  {"linearValueHeads", 48}, {"linearKeyDim", 128}, {"linearValueDim", 128}};
    QJsonArray hybridVariants = oneVariant("U/H-GGUF", "h-Q4_K_M.gguf");
    QJsonObject generation = file("Pub/H", "generation_config.json");
    generation["optional"] = true;
    hybridVariants.append(QJsonObject{{"quant", "BF16"}, {"format", "safetensors"}, {"shardsFromIndex", true},
                                      {"files", QJsonArray{file("Pub/H", "config.json"), generation,
                                                           file("Pub/H", "model.safetensors.index.json")}}});
    const QJsonObject hybrid{{"id", "h"}, {"name", "H"}, {"license", "apache-2.0"}, {"shape", hybridShape},
                             {"variants", hybridVariants}};
    const QJsonObject unknown{{"id", "u"}, {"name", "U"}, {"license", "apache-2.0"},
                              {"shape", QJsonObject{{"architecture", "qwen35"}}},
                              {"variants", oneVariant("U/U-GGUF", "u-Q4_K_M.gguf")}};
    return QJsonDocument(QJsonObject{{"schemaVersion", 1}, {"families", QJsonArray{runs, coming, hybrid, unknown}}}).toJson();
}

hearth::DeviceInfo gpu24()
{
    hearth::DeviceInfo d;
    d.kind = hearth::DeviceKind::Cuda;
    d.name = "test GPU";
    d.totalBytes = 24ull << 30;
    d.freeBytes = 23ull << 30;
    return d;
}

} // namespace

class TestModelLibrary : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void catalogRowsWithFits();
    void badCatalogIsReported();
    void watchesTheFolder();
    void deletesOnlyModelsInTheFolder();
    void downloadRequests();

private:
    QVariant role(const QString& spec, int role) const;
    void waitIdle();

    QString m_root, m_folder, m_catalogPath;
    std::unique_ptr<LocalModels> m_local;
    std::unique_ptr<ModelLibrary> m_library;
    int m_round = 0;
};

void TestModelLibrary::initTestCase()
{
    qunsetenv("HEARTH_CATALOG");
    m_root = apptest::scratchDir(QStringLiteral("modellibrary"));
    m_catalogPath = QDir(m_root).filePath(QStringLiteral("catalog.json"));
    touch(m_catalogPath, testCatalog());
}

void TestModelLibrary::init()
{
    m_library.reset();
    m_local.reset();
    m_folder = QDir(m_root).filePath(QStringLiteral("models%1").arg(++m_round));
    QVERIFY(QDir().mkpath(m_folder));
    m_local = std::make_unique<LocalModels>();
    m_local->setDevice(QStringLiteral("cpu"));
    m_local->setFolder(m_folder);
    m_library = std::make_unique<ModelLibrary>();
    m_library->setLocalModels(m_local.get());
    m_library->setFixedDevice(gpu24());
    m_library->setContextLength(4096);
    m_library->setCatalogPath(m_catalogPath);
    m_library->setFolder(m_folder);
    waitIdle();
}

QVariant TestModelLibrary::role(const QString& spec, int role) const
{
    const CatalogVariantModel* rows = m_library->variants();
    return rows->data(rows->index(rows->indexOfSpec(spec)), role);
}

void TestModelLibrary::waitIdle()
{
    QTRY_VERIFY_WITH_TIMEOUT(!m_library->isBusy() && !m_local->isBusy(), 30000);
}

void TestModelLibrary::catalogRowsWithFits()
{
    QCOMPARE(m_library->catalogError(), QString());
    QCOMPARE(m_library->catalogSource(), m_catalogPath);
    QCOMPARE(m_library->deviceName(), QStringLiteral("test GPU"));
    QVERIFY(!m_library->cpuOnly());
    const CatalogVariantModel* rows = m_library->variants();
    QCOMPARE(rows->rowCount(), 6);
    QVERIFY(role(QStringLiteral("m:Q4_K_M"), CatalogVariantModel::FitReadyRole).toBool());
    QCOMPARE(role(QStringLiteral("m:Q4_K_M"), CatalogVariantModel::VerdictRole).toString(), QStringLiteral("fits"));
    QCOMPARE(role(QStringLiteral("m:Q4_K_M"), CatalogVariantModel::ContextRole).toInt(), 4096);
    QCOMPARE(role(QStringLiteral("m:Q4_K_M"), CatalogVariantModel::MaxContextRole).toInt(), 40960);
    QCOMPARE(role(QStringLiteral("m:Q8_0"), CatalogVariantModel::FileCountRole).toInt(), 2);
    QCOMPARE(role(QStringLiteral("m:Q8_0"), CatalogVariantModel::SizeBytesRole).toDouble(), 2000.0);
    QCOMPARE(role(QStringLiteral("m:Q8_0"), CatalogVariantModel::ParametersRole).toString(), QStringLiteral("8.2B"));
    // On 24 GB both fit with the whole context: the better quant is the one to take.
    QVERIFY(role(QStringLiteral("m:Q8_0"), CatalogVariantModel::RecommendedRole).toBool());
    QVERIFY(!role(QStringLiteral("m:Q4_K_M"), CatalogVariantModel::RecommendedRole).toBool());
    QVERIFY(role(QStringLiteral("c:Q4_K_M"), CatalogVariantModel::ComingRole).toBool());
    QCOMPARE(role(QStringLiteral("c:Q4_K_M"), CatalogVariantModel::VerdictRole).toString(), QStringLiteral("unknown"));
    QVERIFY(!role(QStringLiteral("c:Q4_K_M"), CatalogVariantModel::RecommendedRole).toBool());
    QVERIFY(!role(QStringLiteral("c:Q4_K_M"), CatalogVariantModel::SizesUnknownRole).toBool());
    // The hybrid model: the engine's estimate, a 32K context and more beside its ~16 GB of weights.
    QVERIFY(!role(QStringLiteral("h:Q4_K_M"), CatalogVariantModel::ComingRole).toBool());
    QCOMPARE(role(QStringLiteral("h:Q4_K_M"), CatalogVariantModel::VerdictRole).toString(), QStringLiteral("fits"));
    QVERIFY(role(QStringLiteral("h:Q4_K_M"), CatalogVariantModel::MaxContextRole).toInt() > 32768);
    QVERIFY(role(QStringLiteral("h:Q4_K_M"), CatalogVariantModel::WeightsBytesRole).toDouble() > double(14ull << 30));
    QVERIFY(role(QStringLiteral("h:Q4_K_M"), CatalogVariantModel::RecommendedRole).toBool());
    QCOMPARE(role(QStringLiteral("h:Q4_K_M"), CatalogVariantModel::ParametersRole).toString(), QStringLiteral("26.9B"));
    // Its 16-bit source takes its shards from its index: no size until downloaded (the listed
    // files' sizes are not the model's), the fit from the shape all the same.
    QCOMPARE(role(QStringLiteral("h:BF16"), CatalogVariantModel::SizeBytesRole).toDouble(), -1.0);
    QVERIFY(role(QStringLiteral("h:BF16"), CatalogVariantModel::ShardsFromIndexRole).toBool());
    QVERIFY(!role(QStringLiteral("h:Q4_K_M"), CatalogVariantModel::ShardsFromIndexRole).toBool());
    QVERIFY(role(QStringLiteral("h:BF16"), CatalogVariantModel::FitReadyRole).toBool());
    QVERIFY(!role(QStringLiteral("h:BF16"), CatalogVariantModel::SizesUnknownRole).toBool());
    QCOMPARE(role(QStringLiteral("h:BF16"), CatalogVariantModel::VerdictRole).toString(), QStringLiteral("no"));
    QVERIFY(role(QStringLiteral("h:BF16"), CatalogVariantModel::WeightsBytesRole).toDouble() > double(45ull << 30));
    QVERIFY(!role(QStringLiteral("h:BF16"), CatalogVariantModel::RecommendedRole).toBool());
    // Unknown sizes: offered, not estimated, and said so.
    QVERIFY(!role(QStringLiteral("u:Q4_K_M"), CatalogVariantModel::ComingRole).toBool());
    QVERIFY(role(QStringLiteral("u:Q4_K_M"), CatalogVariantModel::FitReadyRole).toBool());
    QCOMPARE(role(QStringLiteral("u:Q4_K_M"), CatalogVariantModel::VerdictRole).toString(), QStringLiteral("unknown"));
    QVERIFY(role(QStringLiteral("u:Q4_K_M"), CatalogVariantModel::SizesUnknownRole).toBool());
    QCOMPARE(role(QStringLiteral("u:Q4_K_M"), CatalogVariantModel::EstimatedBytesRole).toDouble(), 0.0);
    QVERIFY(!role(QStringLiteral("u:Q4_K_M"), CatalogVariantModel::RecommendedRole).toBool());
    QCOMPARE(role(QStringLiteral("u:Q4_K_M"), CatalogVariantModel::ParametersRole).toString(), QString());
    // A smaller card: the recommendation moves down, and the context setting follows.
    hearth::DeviceInfo small = gpu24();
    small.totalBytes = 10ull << 30;
    small.freeBytes = 10ull << 30;
    m_library->setFixedDevice(small);
    waitIdle();
    QVERIFY(role(QStringLiteral("m:Q4_K_M"), CatalogVariantModel::RecommendedRole).toBool());
    QVERIFY(!role(QStringLiteral("m:Q8_0"), CatalogVariantModel::RecommendedRole).toBool());
    QCOMPARE(role(QStringLiteral("h:Q4_K_M"), CatalogVariantModel::VerdictRole).toString(), QStringLiteral("no"));
    QCOMPARE(role(QStringLiteral("h:Q4_K_M"), CatalogVariantModel::MaxContextRole).toInt(), 0);
    const int before = role(QStringLiteral("m:Q4_K_M"), CatalogVariantModel::EstimatedBytesRole).toInt();
    m_library->setContextLength(16384);
    waitIdle();
    QVERIFY(role(QStringLiteral("m:Q4_K_M"), CatalogVariantModel::EstimatedBytesRole).toDouble() > before);

    // A card whose memory the loaded model holds: nothing fits the free memory, but a load
    // releases that model first, so counting what it holds brings the fit back.
    hearth::DeviceInfo busy = gpu24();
    busy.freeBytes = 1ull << 30;
    m_library->setFixedDevice(busy);
    m_library->setContextLength(4096);
    waitIdle();
    QVERIFY(role(QStringLiteral("m:Q4_K_M"), CatalogVariantModel::VerdictRole).toString() != QStringLiteral("fits"));
    m_library->setFreedBytes(20ull << 30);
    waitIdle();
    QCOMPARE(role(QStringLiteral("m:Q4_K_M"), CatalogVariantModel::VerdictRole).toString(), QStringLiteral("fits"));
}

void TestModelLibrary::badCatalogIsReported()
{
    const QString bad = QDir(m_root).filePath(QStringLiteral("bad.json"));
    touch(bad, R"({"schemaVersion": 1, "families": [{"id": "x", "name": "X", "license": "mit",
                   "shape": {"architecture": "qwen3"}, "variants": []}]})");
    QSignalSpy changed(m_library.get(), &ModelLibrary::catalogChanged);
    m_library->setCatalogPath(bad);
    QCOMPARE(changed.count(), 1);
    QVERIFY2(m_library->catalogError().contains(QStringLiteral("families[0] (x).variants")),
             qPrintable(m_library->catalogError()));
    QCOMPARE(m_library->variants()->rowCount(), 0);
    // HEARTH_CATALOG wins over the setting.
    qputenv("HEARTH_CATALOG", m_catalogPath.toUtf8());
    m_library->refresh();
    qunsetenv("HEARTH_CATALOG");
    QCOMPARE(m_library->catalogError(), QString());
    QCOMPARE(m_library->variants()->rowCount(), 6);
}

void TestModelLibrary::watchesTheFolder()
{
    QCOMPARE(m_local->rowCount(), 0);
    QVERIFY(!role(QStringLiteral("m:Q4_K_M"), CatalogVariantModel::DownloadedRole).toBool());
    // A finished download: the file appears under its final name. No rescan is asked for.
    const QString tiny = enginetest::writeTinyModel(m_folder, QStringLiteral("staging.part"));
    QVERIFY(QFile::rename(tiny, QDir(m_folder).filePath(QStringLiteral("m-Q4_K_M.gguf"))));
    QTRY_VERIFY_WITH_TIMEOUT(role(QStringLiteral("m:Q4_K_M"), CatalogVariantModel::DownloadedRole).toBool(), 10000);
    QTRY_COMPARE_WITH_TIMEOUT(m_local->rowCount(), 1, 10000);
    waitIdle();
    QCOMPARE(m_local->data(m_local->index(0), LocalModels::ReadyRole).toBool(), true);
    QCOMPARE(role(QStringLiteral("m:Q4_K_M"), CatalogVariantModel::LocalPathRole).toString(),
             QDir(m_folder).filePath(QStringLiteral("m-Q4_K_M.gguf")));
    QVERIFY(m_library->diskUsedBytes() > 0);
    // Half of a split model is not the model: downloaded only with every part.
    touch(QDir(m_folder).filePath(QStringLiteral("m-Q8_0-00001-of-00002.gguf")));
    waitIdle();
    QTest::qWait(500);
    waitIdle();
    QVERIFY(!role(QStringLiteral("m:Q8_0"), CatalogVariantModel::DownloadedRole).toBool());
    touch(QDir(m_folder).filePath(QStringLiteral("m-Q8_0-00002-of-00002.gguf")));
    QTRY_VERIFY_WITH_TIMEOUT(role(QStringLiteral("m:Q8_0"), CatalogVariantModel::DownloadedRole).toBool(), 10000);
    // A model folder made later (a Hugging Face download) is watched too.
    QVERIFY(QDir(m_folder).mkpath(QStringLiteral("pub")));
    QTest::qWait(500);
    enginetest::writeTinyModel(QDir(m_folder).filePath(QStringLiteral("pub")), QStringLiteral("late.gguf"));
    QTRY_VERIFY_WITH_TIMEOUT(m_local->indexOfPath(QDir(m_folder).filePath(QStringLiteral("pub/late.gguf"))) >= 0, 10000);
    // A source whose shards come from its index is there once every shard the index names is
    // (its optional file may be missing).
    const QDir h(QDir(m_folder).filePath(QStringLiteral("H")));
    QVERIFY(h.mkpath(QStringLiteral(".")));
    QTest::qWait(500);
    touch(h.filePath(QStringLiteral("config.json")), "{}");
    touch(h.filePath(QStringLiteral("model.safetensors.index.json")),
          R"({"weight_map": {"a": "m-1.safetensors", "b": "m-2.safetensors", "c": "m-1.safetensors"}})");
    touch(h.filePath(QStringLiteral("m-1.safetensors")));
    waitIdle();
    QTest::qWait(500);
    waitIdle();
    QVERIFY(!role(QStringLiteral("h:BF16"), CatalogVariantModel::DownloadedRole).toBool());
    touch(h.filePath(QStringLiteral("m-2.safetensors")));
    QTRY_VERIFY_WITH_TIMEOUT(role(QStringLiteral("h:BF16"), CatalogVariantModel::DownloadedRole).toBool(), 10000);
}

void TestModelLibrary::deletesOnlyModelsInTheFolder()
{
    const QString single = enginetest::writeTinyModel(m_folder, QStringLiteral("one.gguf"));
    const QString part1 = QDir(m_folder).filePath(QStringLiteral("two-00001-of-00002.gguf"));
    const QString part2 = QDir(m_folder).filePath(QStringLiteral("two-00002-of-00002.gguf"));
    touch(part1);
    touch(part2);
    const QString hf = QDir(m_folder).filePath(QStringLiteral("HfModel"));
    touch(QDir(hf).filePath(QStringLiteral("config.json")), "{}");
    touch(QDir(hf).filePath(QStringLiteral("model.safetensors")));
    const QString outside = enginetest::writeTinyModel(m_root, QStringLiteral("outside-%1.gguf").arg(m_round));
    const QString notes = QDir(m_folder).filePath(QStringLiteral("notes.txt"));
    touch(notes);
    waitIdle();

    QSignalSpy failed(m_library.get(), &ModelLibrary::deleteFailed);
    QSignalSpy deleted(m_library.get(), &ModelLibrary::modelDeleted);
    for (const QString& refused : {outside, notes, m_folder, QDir(m_folder).filePath(QStringLiteral("../outside-%1.gguf").arg(m_round)),
                                   QDir(m_folder).filePath(QStringLiteral("missing.gguf"))}) {
        QVERIFY2(!m_library->canDelete(refused), qPrintable(refused));
        QVERIFY2(!m_library->deleteModel(refused), qPrintable(refused));
    }
    QCOMPARE(failed.count(), 5);
    QVERIFY(QFile::exists(outside) && QFile::exists(notes));

    QVERIFY(m_library->canDelete(part1));
    QVERIFY(m_library->deleteModel(part1));
    QVERIFY(!QFile::exists(part1) && !QFile::exists(part2)); // the split model goes whole
    QVERIFY(m_library->deleteModel(hf));
    QVERIFY(!QFileInfo::exists(hf));
    QVERIFY(m_library->deleteModel(single));
    QVERIFY(!QFile::exists(single));
    QCOMPARE(deleted.count(), 3);
    QTRY_COMPARE_WITH_TIMEOUT(m_local->rowCount(), 0, 10000);
    QVERIFY(QFile::exists(notes));
}

void TestModelLibrary::downloadRequests()
{
    QSignalSpy asked(m_library.get(), &ModelLibrary::downloadRequested);
    QVERIFY(m_library->requestDownload(QStringLiteral("M:q8_0")));
    QCOMPARE(asked.count(), 1);
    QCOMPARE(asked.first().first().toString(), QStringLiteral("m:Q8_0"));
    QVERIFY(!m_library->requestDownload(QStringLiteral("c:Q4_K_M"))); // coming: not offered
    QVERIFY(m_library->requestDownload(QStringLiteral("u:Q4_K_M"))); // sizes unknown: offered all the same
    QCOMPARE(asked.count(), 2);
    QVERIFY(!m_library->requestDownload(QStringLiteral("m:Q2_K")));
    QCOMPARE(asked.count(), 2);
}

APPTEST_MAIN(TestModelLibrary)
#include "tst_modellibrary.moc"
