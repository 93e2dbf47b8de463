// ModelPicker (ui/) on the real engine: a models folder with stories260K and a synth model is
// listed with each model's facts and fit; Load loads the chosen one with the settings' device;
// the quant switcher then offers presets for the F32 source and switching to Q8_0 reloads it;
// a load that would not fit asks first, and "use the context that fits" loads with that context.
#include <QDir>
#include <QFile>
#include <QGuiApplication>
#include <QQmlComponent>
#include <QQmlEngine>
#include <QQmlExtensionPlugin>
#include <QQuickItem>
#include <QQuickWindow>
#include <QtTest>

#include <memory>

#include "appsettings.h"
#include "apptestdata.h"
#include "quickitems.h"
#include "enginehost.h"
#include "enginetestkit.h"
#include "localmodels.h"

Q_IMPORT_QML_PLUGIN(HearthPlugin)
Q_IMPORT_QML_PLUGIN(HearthAppPlugin)

namespace {

using apptest::shown;

QStringList texts(const QList<QQuickItem*>& items)
{
    QStringList out;
    for (QQuickItem* item : items)
        out << item->property("text").toString();
    return out;
}

// The row (a ModelRow) whose name label says `name`.
QQuickItem* rowNamed(QQuickItem* root, const QString& name)
{
    for (QQuickItem* label : shown(root, QStringLiteral("modelName")))
        if (label->property("text").toString() == name)
            for (QQuickItem* up = label; up; up = up->parentItem())
                if (up->metaObject()->indexOfSignal("loadRequested()") >= 0)
                    return up;
    return nullptr;
}

void click(QQuickItem* button)
{
    QVERIFY(button);
    QVERIFY(button->isEnabled());
    QVERIFY(QMetaObject::invokeMethod(button, "clicked"));
}

} // namespace

class TestModelPicker : public QObject
{
    Q_OBJECT

private slots:
    void listsLoadsAndSwitches();

private:
    QQuickItem* window() const { return m_window->contentItem(); }
    void waitForLoad();

    EngineHost* m_host = nullptr;
    QQuickWindow* m_window = nullptr;
};

void TestModelPicker::waitForLoad()
{
    QTRY_VERIFY_WITH_TIMEOUT(!m_host->isLoading(), 60000);
    QVERIFY2(m_host->isLoaded(), qPrintable(m_host->loadError()));
}

void TestModelPicker::listsLoadsAndSwitches()
{
    APPTEST_DATA(stories, "models/stories260K/stories260K-f32.gguf");
    const QString dir = QDir(apptest::scratchDir(QStringLiteral("modelpicker"))).filePath(QStringLiteral("models"));
    QVERIFY(QDir().mkpath(dir));
    const QString storiesCopy = QDir(dir).filePath(QStringLiteral("stories260K.gguf"));
    QVERIFY(QFile::copy(stories, storiesCopy));
    const QString synth = enginetest::writeTinyModel(dir, QStringLiteral("tiny-synth-f32.gguf"));

    AppSettings* settings = AppSettings::shared(); // its file is under this test's XDG_CONFIG_HOME
    settings->setModelsFolder(dir);
    settings->setDevice(QStringLiteral("cpu"));
    settings->setContextLength(0);

    EngineHost host;
    m_host = &host;
    QQmlEngine engine;
    engine.addImportPath(QStringLiteral("qrc:/"));
    QQmlComponent component(&engine);
    component.setData("import QtQuick\nimport QtQuick.Controls.Basic\nimport Hearth\n"
                      "ApplicationWindow { width: 1100; height: 800; visible: true\n"
                      "  property alias picker: picker\n  ModelPicker { id: picker } }",
                      QUrl(QStringLiteral("file:///hearth-test/PickerWindow.qml")));
    std::unique_ptr<QObject> root(component.create());
    QVERIFY2(root, qPrintable(component.errorString()));
    m_window = qobject_cast<QQuickWindow*>(root.get());
    QVERIFY(m_window);
    QObject* picker = root->property("picker").value<QObject*>();
    QVERIFY(picker);
    picker->setProperty("engine", QVariant::fromValue(&host));
    QVERIFY(QMetaObject::invokeMethod(picker, "open"));
    auto* models = picker->property("models").value<LocalModels*>();
    QVERIFY(models);

    // Both models are listed with their facts and the engine's fit on the CPU.
    QTRY_VERIFY_WITH_TIMEOUT(!models->isBusy() && models->rowCount() == 2, 60000);
    QStringList names;
    for (int row = 0; row < 2; ++row)
        names << models->data(models->index(row), LocalModels::NameRole).toString();
    QTRY_COMPARE(texts(shown(window(), QStringLiteral("modelName"))).size(), 2);
    QStringList shownNames = texts(shown(window(), QStringLiteral("modelName")));
    shownNames.sort();
    names.sort();
    QCOMPARE(shownNames, names);
    for (const QString& facts : texts(shown(window(), QStringLiteral("modelFacts")))) {
        QVERIFY2(facts.contains(QLatin1String("llama")), qPrintable(facts));
        QVERIFY2(facts.contains(QLatin1String("F32")), qPrintable(facts));
    }
    const QString device = models->data(models->index(0), LocalModels::DeviceNameRole).toString();
    QVERIFY(!device.isEmpty());
    for (const QString& fit : texts(shown(window(), QStringLiteral("modelFit"))))
        QVERIFY2(fit.startsWith(QLatin1String("Fits on ")) && fit.contains(device), qPrintable(fit));
    QVERIFY(shown(window(), QStringLiteral("quantSwitcher")).isEmpty()); // nothing loaded yet

    // Load the synth model from its row.
    const QString synthName = models->data(models->index(models->indexOfPath(synth)), LocalModels::NameRole).toString();
    QQuickItem* synthRow = rowNamed(window(), synthName);
    QVERIFY(synthRow);
    click(shown(synthRow, QStringLiteral("loadButton")).value(0));
    waitForLoad();
    QCOMPARE(QFileInfo(host.modelPath()).fileName(), QFileInfo(synth).fileName());
    QVERIFY(host.model().device == hearth::DeviceKind::Cpu); // the settings' device
    QTRY_COMPARE(settings->lastModelPath(), QFileInfo(synth).absoluteFilePath());
    QTRY_VERIFY(!shown(synthRow, QStringLiteral("loadedBadge")).isEmpty());

    // An F32 source: every preset is offered; Q8_0 reloads it converted.
    QTRY_VERIFY(!shown(window(), QStringLiteral("quantSwitcher")).isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(!shown(window(), QStringLiteral("quantOption_Q8_0")).isEmpty(), 30000);
    QVERIFY(!shown(window(), QStringLiteral("quantOption_Q4_K_M")).isEmpty());
    click(shown(window(), QStringLiteral("quantOption_Q8_0")).value(0));
    QTRY_VERIFY(host.isLoading() || host.quant() == QLatin1String("Q8_0"));
    waitForLoad();
    QCOMPARE(host.quant(), QStringLiteral("Q8_0"));
    QTRY_COMPARE(settings->lastModelQuant(), QStringLiteral("Q8_0"));

    // A load that would not fit asks first and loads nothing until answered.
    QObject* warning = picker->findChild<QObject*>(QStringLiteral("fitWarning"));
    QVERIFY(warning);
    const QVariantMap request{{QStringLiteral("path"), storiesCopy}, {QStringLiteral("quant"), QString()},
                              {QStringLiteral("name"), QStringLiteral("stories")}, {QStringLiteral("fits"), false},
                              {QStringLiteral("estimatedBytes"), 1e12}, {QStringLiteral("maxContext"), 256},
                              {QStringLiteral("deviceName"), device}};
    QVERIFY(QMetaObject::invokeMethod(picker, "requestLoad", Q_ARG(QVariant, request)));
    QTRY_VERIFY(warning->property("opened").toBool());
    QVERIFY(!host.isLoading());
    QQuickItem* fitting = shown(window(), QStringLiteral("useFittingContext")).value(0);
    QVERIFY(fitting);
    QVERIFY2(fitting->property("text").toString().contains(QLatin1String("256")), qPrintable(fitting->property("text").toString()));
    click(fitting);
    QCOMPARE(settings->contextLength(), 256);
    waitForLoad();
    QCOMPARE(QFileInfo(host.modelPath()).fileName(), QStringLiteral("stories260K.gguf"));
    QCOMPARE(host.model().contextSize, 256);
    m_window = nullptr;
}

int main(int argc, char** argv)
{
    // AppSettings' file goes to a folder of this run, never the user's.
    const QString config = apptest::scratchDir(QStringLiteral("modelpicker-config"));
    qputenv("XDG_CONFIG_HOME", config.toLocal8Bit());
    QGuiApplication app(argc, argv);
    TestModelPicker test;
    const int rc = QTest::qExec(&test, argc, argv);
    return rc == 0 && apptest::skippedForData() > 0 ? 77 : rc;
}

#include "tst_modelpicker.moc"
