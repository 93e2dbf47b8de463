// `hearth --list-models`, the real executable in a scratch home: the library as JSON on stdout
// (the models folder's models described with their fit, every catalog variant with its fit and
// the recommendation, HEARTH_CATALOG honoured), and a malformed catalog named on stderr with exit 1.
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

#include "apptestdata.h"
#include "enginetestkit.h"

namespace {

struct Run {
    int exitCode = -1;
    QJsonObject report;
    QString stderrText;
};

Run listModels(const QTemporaryDir& home, const QString& catalog = {})
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("HOME"), home.path());
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), home.filePath(QStringLiteral("config")));
    env.insert(QStringLiteral("XDG_DATA_HOME"), home.filePath(QStringLiteral("data")));
    env.insert(QStringLiteral("XDG_STATE_HOME"), home.filePath(QStringLiteral("state")));
    env.remove(QStringLiteral("DISPLAY")); // no display is needed
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    env.remove(QStringLiteral("QT_QPA_PLATFORM"));
    if (catalog.isEmpty())
        env.remove(QStringLiteral("HEARTH_CATALOG"));
    else
        env.insert(QStringLiteral("HEARTH_CATALOG"), catalog);
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(HEARTH_EXE), {QStringLiteral("--list-models")});
    Run run;
    if (!p.waitForFinished(120000)) {
        p.kill();
        return run;
    }
    run.exitCode = p.exitCode();
    run.report = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
    run.stderrText = QString::fromUtf8(p.readAllStandardError());
    return run;
}

QJsonObject familyOf(const QJsonObject& report, const QString& id)
{
    for (const QJsonValue& f : report.value(QStringLiteral("families")).toArray())
        if (f.toObject().value(QStringLiteral("id")).toString() == id)
            return f.toObject();
    return {};
}

} // namespace

class TestListModels : public QObject
{
    Q_OBJECT

private slots:
    void printsTheLibrary();
    void badCatalogFailsWithItsField();
};

void TestListModels::printsTheLibrary()
{
    QTemporaryDir home;
    QVERIFY(home.isValid());
    const QString folder = home.filePath(QStringLiteral("models"));
    QVERIFY(QDir().mkpath(folder));
    const QString model = enginetest::writeTinyModel(folder, QStringLiteral("tiny.gguf"));
    {
        QSettings settings(home.filePath(QStringLiteral("config/Hearth/Hearth.conf")), QSettings::IniFormat);
        settings.setValue(QStringLiteral("models/folder"), folder);
        settings.setValue(QStringLiteral("load/device"), QStringLiteral("cpu"));
        settings.setValue(QStringLiteral("load/contextLength"), 2048);
    }
    const Run run = listModels(home);
    QCOMPARE(run.exitCode, 0);
    const QJsonObject& r = run.report;
    QCOMPARE(r.value(QStringLiteral("schemaVersion")).toInt(), 1);
    QCOMPARE(r.value(QStringLiteral("modelsFolder")).toString(), folder);
    QCOMPARE(r.value(QStringLiteral("device")).toObject().value(QStringLiteral("kind")).toString(), QStringLiteral("cpu"));
    QVERIFY(r.value(QStringLiteral("diskUsedBytes")).toDouble() >= QFileInfo(model).size());

    const QJsonArray local = r.value(QStringLiteral("local")).toArray();
    QCOMPARE(local.size(), 1);
    const QJsonObject tiny = local.first().toObject();
    QCOMPARE(tiny.value(QStringLiteral("path")).toString(), model);
    QCOMPARE(tiny.value(QStringLiteral("architecture")).toString(), QStringLiteral("llama"));
    QCOMPARE(tiny.value(QStringLiteral("fileBytes")).toDouble(), double(QFileInfo(model).size()));
    QVERIFY(tiny.value(QStringLiteral("fit")).toObject().value(QStringLiteral("fits")).toBool());

    // The built-in catalog, estimated for this machine's CPU at the context of the settings.
    QCOMPARE(r.value(QStringLiteral("catalog")).toObject().value(QStringLiteral("source")).toString(),
             QStringLiteral(":/hearth/catalog.json"));
    const QJsonObject qwen = familyOf(r, QStringLiteral("qwen3-8b"));
    QCOMPARE(qwen.value(QStringLiteral("license")).toString(), QStringLiteral("apache-2.0"));
    QVERIFY(!qwen.value(QStringLiteral("coming")).toBool());
    bool sawQ4 = false;
    for (const QJsonValue& v : qwen.value(QStringLiteral("variants")).toArray()) {
        const QJsonObject variant = v.toObject();
        const QJsonObject fit = variant.value(QStringLiteral("fit")).toObject();
        QVERIFY(QStringList({"fits", "tight", "no"}).contains(fit.value(QStringLiteral("verdict")).toString()));
        QCOMPARE(fit.value(QStringLiteral("context")).toInt(), 2048);
        QVERIFY(fit.value(QStringLiteral("estimatedBytes")).toDouble() > 0);
        QVERIFY(!fit.value(QStringLiteral("speed")).toString().isEmpty()); // the CPU's speed class
        QVERIFY(!variant.value(QStringLiteral("downloaded")).toBool());
        if (variant.value(QStringLiteral("spec")).toString() == QStringLiteral("qwen3-8b:Q4_K_M")) {
            sawQ4 = true;
            QVERIFY(variant.value(QStringLiteral("sha256Known")).toBool());
        }
    }
    QVERIFY(sawQ4);
    // Qwen3.6-27B (qwen35) is offered and estimated; the 9B's sizes are unknown: said so, no figures.
    const QJsonObject hybrid = familyOf(r, QStringLiteral("qwen3.6-27b"));
    QVERIFY(!hybrid.value(QStringLiteral("coming")).toBool());
    QVERIFY(hybrid.value(QStringLiteral("requires")).isNull());
    for (const QJsonValue& v : hybrid.value(QStringLiteral("variants")).toArray()) {
        const QJsonObject fit = v.toObject().value(QStringLiteral("fit")).toObject();
        QVERIFY(QStringList({"fits", "tight", "no"}).contains(fit.value(QStringLiteral("verdict")).toString()));
        QVERIFY(fit.value(QStringLiteral("estimatedBytes")).toDouble() > 0);
    }
    const QJsonObject unknown = familyOf(r, QStringLiteral("qwen3.5-9b"));
    QVERIFY(!unknown.value(QStringLiteral("coming")).toBool());
    QVERIFY(unknown.value(QStringLiteral("recommended")).isNull());
    for (const QJsonValue& v : unknown.value(QStringLiteral("variants")).toArray()) {
        const QJsonObject fit = v.toObject().value(QStringLiteral("fit")).toObject();
        QCOMPARE(fit.value(QStringLiteral("verdict")).toString(), QStringLiteral("unknown"));
        QVERIFY(fit.value(QStringLiteral("sizesUnknown")).toBool());
        QVERIFY(!fit.contains(QStringLiteral("estimatedBytes")));
    }
}

void TestListModels::badCatalogFailsWithItsField()
{
    QTemporaryDir home;
    QVERIFY(home.isValid());
    const QString bad = home.filePath(QStringLiteral("catalog.json"));
    QFile file(bad);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"schemaVersion": 1, "families": [{"id": "x", "name": "X", "license": "mit",
        "shape": {"architecture": "llama", "layers": 2, "hidden": 64, "heads": 4, "kvHeads": 2, "headDim": 16,
                  "vocab": 256, "ffn": 128, "context": 2048},
        "variants": [{"quant": "Q8_0", "format": "gguf", "files": [{"repo": "a/b", "path": "../../x.gguf"}]}]}]})");
    file.close();
    const Run run = listModels(home, bad);
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.stderrText.contains(QStringLiteral("families[0] (x).variants[0] (Q8_0).files[0].path")),
             qPrintable(run.stderrText));
    // The JSON still comes, saying which catalog failed and why.
    const QJsonObject catalog = run.report.value(QStringLiteral("catalog")).toObject();
    QCOMPARE(catalog.value(QStringLiteral("source")).toString(), bad);
    QVERIFY(catalog.value(QStringLiteral("error")).toString().contains(QStringLiteral("'..'")));
    QVERIFY(run.report.value(QStringLiteral("families")).toArray().isEmpty());
}

APPTEST_MAIN(TestListModels)
#include "tst_listmodels.moc"
