// AppSettings and LanguageSwitcher: the defaults of a fresh file, values kept across instances,
// values outside their range pulled in (as set and as read from a hand-edited file), the load
// request and sampling built from them; and switching the language at run time re-translates
// both a QML qsTr binding and C++ tr() without a restart.
#include <QDir>
#include <QFile>
#include <QQmlComponent>
#include <QQmlEngine>
#include <QSettings>
#include <QSignalSpy>
#include <QTest>

#include <cmath>

#include "appsettings.h"
#include "apptestdata.h"
#include "languageswitcher.h"
#include "memorymeter.h"

class TestAppSettings : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void defaults();
    void keptAcrossInstances();
    void outOfRangeValuesArePulledIn();
    void handEditedFileIsChecked();
    void loadRequestAndSampling();
    void languageSwitchesAtRunTime();

private:
    QString m_file;
    int m_run = 0;
};

void TestAppSettings::init()
{
    m_file = QDir(apptest::scratchDir(QStringLiteral("appsettings"))).filePath(QStringLiteral("settings-%1.ini").arg(++m_run));
    QFile::remove(m_file);
}

void TestAppSettings::defaults()
{
    AppSettings s(m_file);
    const hearth::SamplingParams chat = hearth::SamplingParams::chatDefaults();
    QCOMPARE(s.contextLength(), 4096);
    QCOMPARE(s.kvType(), QStringLiteral("f16"));
    QCOMPARE(s.vramBudgetGiB(), 0.0);
    QCOMPARE(s.gpu(), 0);
    QCOMPARE(s.device(), QStringLiteral("auto"));
    QCOMPARE(s.modelsFolder(), AppSettings::defaultModelsFolder());
    QVERIFY(s.addedModelPaths().isEmpty());
    QCOMPARE(s.theme(), QStringLiteral("system"));
    QCOMPARE(s.fontSize(), 14);
    QCOMPARE(s.language(), AppSettings::defaultLanguage());
    QCOMPARE(float(s.temperature()), chat.temperature);
    QCOMPARE(s.topK(), chat.topK);
    QCOMPARE(float(s.topP()), chat.topP);
    QCOMPARE(float(s.minP()), chat.minP);
    QCOMPARE(float(s.repetitionPenalty()), chat.repetitionPenalty);
    QCOMPARE(s.maxTokens(), 1024);
    QCOMPARE(s.seed(), -1);
    QVERIFY(s.thinking());
    QVERIFY(s.chatTemplateOverride().isEmpty());
    QVERIFY(!QFile::exists(m_file)); // reading the defaults writes nothing
}

void TestAppSettings::keptAcrossInstances()
{
    {
        AppSettings s(m_file);
        QSignalSpy context(&s, &AppSettings::contextLengthChanged);
        QSignalSpy options(&s, &AppSettings::loadOptionsChanged);
        s.setContextLength(8192);
        s.setContextLength(8192); // no change: no signal
        QCOMPARE(context.count(), 1);
        QCOMPARE(options.count(), 1);
        s.setKvType(QStringLiteral("bf16"));
        s.setVramBudgetGiB(10.5);
        s.setGpu(1);
        s.setDevice(QStringLiteral("cpu"));
        s.setModelsFolder(QStringLiteral("file:///tmp/hearth-models/"));
        s.setAddedModelPaths({QStringLiteral("/a/b.gguf"), QStringLiteral("/a/b.gguf"), QStringLiteral("/c")});
        s.setLastModelPath(QStringLiteral("/a/b.gguf"));
        s.setLastModelQuant(QStringLiteral("Q8_0"));
        s.setTheme(QStringLiteral("dark"));
        s.setFontSize(18);
        s.setLanguage(QStringLiteral("zh_CN"));
        s.setTemperature(1.25);
        s.setTopK(50);
        s.setTopP(0.9);
        s.setMinP(0.05);
        s.setRepetitionPenalty(1.1);
        s.setMaxTokens(2048);
        s.setSeed(42);
        s.setThinking(false);
        s.setChatTemplateOverride(QStringLiteral("{{ messages }}"));
    }
    AppSettings s(m_file);
    QCOMPARE(s.contextLength(), 8192);
    QCOMPARE(s.kvType(), QStringLiteral("bf16"));
    QCOMPARE(s.vramBudgetGiB(), 10.5);
    QCOMPARE(s.gpu(), 1);
    QCOMPARE(s.device(), QStringLiteral("cpu"));
    QCOMPARE(s.modelsFolder(), QStringLiteral("/tmp/hearth-models")); // a dialog's URL, as a path
    QCOMPARE(s.addedModelPaths(), QStringList({QStringLiteral("/a/b.gguf"), QStringLiteral("/c")}));
    QCOMPARE(s.lastModelPath(), QStringLiteral("/a/b.gguf"));
    QCOMPARE(s.lastModelQuant(), QStringLiteral("Q8_0"));
    QCOMPARE(s.theme(), QStringLiteral("dark"));
    QCOMPARE(s.fontSize(), 18);
    QCOMPARE(s.language(), QStringLiteral("zh_CN"));
    QCOMPARE(s.temperature(), 1.25);
    QCOMPARE(s.topK(), 50);
    QCOMPARE(s.topP(), 0.9);
    QCOMPARE(s.minP(), 0.05);
    QCOMPARE(s.repetitionPenalty(), 1.1);
    QCOMPARE(s.maxTokens(), 2048);
    QCOMPARE(s.seed(), 42);
    QVERIFY(!s.thinking());
    QCOMPARE(s.chatTemplateOverride(), QStringLiteral("{{ messages }}"));

    // Back to the engine's chat defaults; the loading settings stay.
    s.resetSampling();
    QCOMPARE(float(s.temperature()), hearth::SamplingParams::chatDefaults().temperature);
    QCOMPARE(s.seed(), -1);
    QCOMPARE(s.contextLength(), 8192);
}

void TestAppSettings::outOfRangeValuesArePulledIn()
{
    AppSettings s(m_file);
    QSignalSpy kv(&s, &AppSettings::kvTypeChanged);
    s.setKvType(QStringLiteral("q4_0")); // not a KV type
    s.setDevice(QStringLiteral("tpu"));
    s.setTheme(QStringLiteral("purple"));
    s.setLanguage(QStringLiteral("fr"));
    QCOMPARE(kv.count(), 0);
    QCOMPARE(s.kvType(), QStringLiteral("f16"));
    QCOMPARE(s.device(), QStringLiteral("auto"));
    QCOMPARE(s.theme(), QStringLiteral("system"));
    QCOMPARE(s.language(), AppSettings::defaultLanguage());
    s.setFontSize(3);
    QCOMPARE(s.fontSize(), 10);
    s.setFontSize(100);
    QCOMPARE(s.fontSize(), 24);
    s.setTemperature(9);
    QCOMPARE(s.temperature(), 2.0);
    s.setTemperature(std::nan(""));
    QCOMPARE(s.temperature(), 2.0); // not a number: unchanged
    s.setTopP(0);
    QCOMPARE(s.topP(), 0.01);
    s.setContextLength(-5);
    QCOMPARE(s.contextLength(), 0);
    s.setMaxTokens(0);
    QCOMPARE(s.maxTokens(), 1);
    s.setSeed(-7);
    QCOMPARE(s.seed(), -1);
    s.setVramBudgetGiB(-1);
    QCOMPARE(s.vramBudgetGiB(), 0.0);
}

void TestAppSettings::handEditedFileIsChecked()
{
    {
        QSettings raw(m_file, QSettings::IniFormat);
        raw.setValue(QStringLiteral("load/kvType"), QStringLiteral("int3"));
        raw.setValue(QStringLiteral("load/contextLength"), QStringLiteral("lots"));
        raw.setValue(QStringLiteral("appearance/fontSize"), 99);
        raw.setValue(QStringLiteral("chat/topK"), -3);
        raw.setValue(QStringLiteral("chat/temperature"), 0.3);
    }
    AppSettings s(m_file);
    QCOMPARE(s.kvType(), QStringLiteral("f16"));
    QCOMPARE(s.contextLength(), 4096);
    QCOMPARE(s.fontSize(), 24);
    QCOMPARE(s.topK(), 0);
    QCOMPARE(s.temperature(), 0.3); // valid values are kept
}

void TestAppSettings::loadRequestAndSampling()
{
    AppSettings s(m_file);
    s.setContextLength(2048);
    s.setKvType(QStringLiteral("bf16"));
    s.setGpu(2);
    s.setDevice(QStringLiteral("cpu"));
    const LoadRequest r = s.loadRequest(QStringLiteral("/m/model.gguf"), QStringLiteral("Q4_K_M"));
    QCOMPARE(r.path, QStringLiteral("/m/model.gguf"));
    QCOMPARE(r.quant, QStringLiteral("Q4_K_M"));
    QCOMPARE(r.contextLength, 2048);
    QVERIFY(r.kvType == hearth::KvType::BF16);
    QCOMPARE(r.gpu, 2);
    QVERIFY(r.device == DeviceChoice::Cpu);
    // QML's way goes through the same map.
    QCOMPARE(s.loadOptions().value(QStringLiteral("kvType")).toString(), QStringLiteral("bf16"));
    QVERIFY(loadRequestFrom(QStringLiteral("file:///m/x.gguf"), {}, {}).path == QStringLiteral("/m/x.gguf"));

    s.setTemperature(0.5);
    s.setTopK(7);
    s.setSeed(1234);
    hearth::SamplingParams p = s.sampling();
    QCOMPARE(p.temperature, 0.5f);
    QCOMPARE(p.topK, 7);
    QCOMPARE(p.seed, quint64(1234));
    s.setSeed(-1); // a fresh seed per reply
    QVERIFY(s.sampling().seed != s.sampling().seed);
}

void TestAppSettings::languageSwitchesAtRunTime()
{
    AppSettings settings(m_file);
    settings.setLanguage(QStringLiteral("en"));
    QQmlEngine engine;
    LanguageSwitcher switcher(&engine, &settings);
    QCOMPARE(switcher.language(), QStringLiteral("en"));
    QVERIFY(LanguageSwitcher::available().contains(QStringLiteral("zh_CN")));

    // qsTr's context is the file's name: this stands in for ui/SettingsPage.qml.
    QQmlComponent component(&engine);
    component.setData("import QtQml\nQtObject { property string label: qsTr(\"Settings\") }",
                      QUrl(QStringLiteral("file:///hearth-test/SettingsPage.qml")));
    std::unique_ptr<QObject> object(component.create());
    QVERIFY2(object, qPrintable(component.errorString()));
    QCOMPARE(object->property("label").toString(), QStringLiteral("Settings"));
    const QString englishReason = MemoryMeter::tr("No NVIDIA driver found");

    QSignalSpy switched(&switcher, &LanguageSwitcher::languageChanged);
    settings.setLanguage(QStringLiteral("zh_CN"));
    QCOMPARE(switched.count(), 1);
    QCOMPARE(switcher.language(), QStringLiteral("zh_CN"));
    QCOMPARE(object->property("label").toString(), QStringLiteral("设置"));
    QCOMPARE(engine.uiLanguage(), QStringLiteral("zh_CN"));
    const QString chineseReason = MemoryMeter::tr("No NVIDIA driver found");
    QVERIFY(chineseReason != englishReason);
    QVERIFY(!chineseReason.isEmpty());

    settings.setLanguage(QStringLiteral("en"));
    QCOMPARE(object->property("label").toString(), QStringLiteral("Settings"));
    QCOMPARE(MemoryMeter::tr("No NVIDIA driver found"), englishReason);
    // A language without a translation stays on English.
    QTest::ignoreMessage(QtWarningMsg, "hearth: no translation for language xx; showing English");
    QVERIFY(!switcher.apply(QStringLiteral("xx")));
    QCOMPARE(switcher.language(), QStringLiteral("en"));
}

APPTEST_MAIN(TestAppSettings)
#include "tst_appsettings.moc"
