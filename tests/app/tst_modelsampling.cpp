// Per-model sampling defaults in the chat (ChatController, ChatSampling in the chat options), with
// the real engine and a copy of stories260K's HF folder whose generation_config.json recommends
// sampling: a new chat takes the model's values over the settings' (and stores none of them), a
// chat's own value wins and stays when the model changes while the rest follows the model, reset
// returns to the model's values; the options mark each value "model default", "this chat" or
// "default" and reset from there.
#include <QDir>
#include <QFile>
#include <QGuiApplication>
#include <QQmlComponent>
#include <QQmlEngine>
#include <QQmlExtensionPlugin>
#include <QQuickItem>
#include <QSignalSpy>
#include <QtTest>

#include <memory>

#include "appsettings.h"
#include "apptestdata.h"
#include "chatcontroller.h"

Q_IMPORT_QML_PLUGIN(HearthPlugin)
Q_IMPORT_QML_PLUGIN(HearthAppPlugin)

namespace {

const QJsonObject kRecommended{{QStringLiteral("temperature"), 0.35}, {QStringLiteral("top_k"), 7},
                               {QStringLiteral("top_p"), 0.9},        {QStringLiteral("min_p"), 0.05},
                               {QStringLiteral("repetition_penalty"), 1.2}};

bool copyFolder(const QString& from, const QString& to)
{
    if (!QDir().mkpath(to))
        return false;
    for (const QString& name : QDir(from).entryList(QDir::Files))
        if (!QFile::copy(QDir(from).filePath(name), QDir(to).filePath(name)))
            return false;
    return true;
}

QQuickItem* findItem(QQuickItem* item, const QString& name)
{
    if (item->objectName() == name)
        return item;
    for (QQuickItem* child : item->childItems())
        if (QQuickItem* found = findItem(child, name))
            return found;
    return nullptr;
}

} // namespace

class TestModelSampling : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void newChatStartsFromTheModel();
    void modelChangeKeepsOnlyTheChatsOwnValues();
    void optionsShowWhereValuesComeFrom();

private:
    // Writes the recommending copy of `plain` (stories260K's HF folder); false: failed.
    bool prepare(const QString& plain);
    bool load(const QString& path);
    QVariant effective(const QString& key) const { return m_chat->effectiveSampling().value(key); }
    QString source(const QString& key) const { return m_chat->samplingSources().value(key).toString(); }

    QString m_dir, m_plain, m_recommending;
    std::unique_ptr<AppSettings> m_settings;
    std::unique_ptr<ChatController> m_chat;
    int m_run = 0;
};

void TestModelSampling::init()
{
    m_dir = apptest::scratchDir(QStringLiteral("modelsampling"));
    m_settings = std::make_unique<AppSettings>(QDir(m_dir).filePath(QStringLiteral("settings-%1.ini").arg(++m_run)));
    m_settings->setDevice(QStringLiteral("cpu"));
    m_settings->setTemperature(0.8);
    m_settings->setTopK(40);
    m_settings->setTopP(1);
    m_settings->setMaxTokens(77);
    m_settings->setSeed(-1);
    m_chat = std::make_unique<ChatController>();
    m_chat->setAppSettings(m_settings.get());
    const hearth::Status opened = m_chat->openStore(QDir(m_dir).filePath(QStringLiteral("history-%1.sqlite").arg(m_run)));
    QVERIFY2(opened.isOk(), opened.message().c_str());
}

void TestModelSampling::cleanup()
{
    m_chat.reset();
    m_settings.reset();
}

bool TestModelSampling::prepare(const QString& plain)
{
    m_plain = plain;
    // The shared data is read-only: the recommending model is a copy with its own file.
    m_recommending = QDir(m_dir).filePath(QStringLiteral("stories-recommends-%1").arg(m_run));
    QJsonObject config = kRecommended;
    config.insert(QStringLiteral("eos_token_id"), 2);
    config.insert(QStringLiteral("do_sample"), true);
    QFile file(QDir(m_recommending).filePath(QStringLiteral("generation_config.json")));
    if (!copyFolder(m_plain, m_recommending) || !file.open(QIODevice::WriteOnly | QIODevice::Truncate)
        || file.write(QJsonDocument(config).toJson()) <= 0) {
        QTest::qFail("could not write the recommending copy", __FILE__, __LINE__);
        return false;
    }
    file.close();
    return true;
}

bool TestModelSampling::load(const QString& path)
{
    QSignalSpy loaded(m_chat->engine(), &EngineHost::modelLoaded);
    QSignalSpy failed(m_chat->engine(), &EngineHost::loadFailed);
    if (m_chat->loadModel(path) == 0 || !QTest::qWaitFor([&] { return loaded.count() + failed.count() > 0; }, 60000))
        return false;
    if (!failed.isEmpty())
        qWarning("load failed: %s", qPrintable(failed.first().at(1).value<EngineError>().message));
    return loaded.count() == 1;
}

void TestModelSampling::newChatStartsFromTheModel()
{
    APPTEST_DATA(plain, "models/stories260K/hf");
    if (!prepare(plain))
        return;
    // No model: the settings' defaults.
    QVERIFY(m_chat->modelSampling().isEmpty());
    QCOMPARE(effective(QStringLiteral("temperature")).toDouble(), 0.8);
    QCOMPARE(source(QStringLiteral("temperature")), QStringLiteral("settings"));

    QSignalSpy changed(m_chat.get(), &ChatController::samplingChanged);
    QVERIFY(load(m_recommending));
    QVERIFY(changed.count() > 0);
    QCOMPARE(QJsonObject::fromVariantMap(m_chat->modelSampling()), kRecommended);
    m_chat->newChat();
    for (auto it = kRecommended.begin(); it != kRecommended.end(); ++it) {
        QCOMPARE(effective(it.key()).toDouble(), it.value().toDouble());
        QCOMPARE(source(it.key()), QStringLiteral("model"));
    }
    QCOMPARE(effective(QStringLiteral("max_tokens")).toInt(), 77); // the model does not say
    QCOMPARE(source(QStringLiteral("max_tokens")), QStringLiteral("settings"));
    QCOMPARE(effective(QStringLiteral("seed")).toInt(), -1);
    const hearth::SamplingParams reply = m_chat->replySampling();
    QCOMPARE(reply.temperature, 0.35f);
    QCOMPARE(reply.topK, 7);
    QCOMPARE(reply.topP, 0.9f);
    QCOMPARE(reply.minP, 0.05f);
    QCOMPARE(reply.repetitionPenalty, 1.2f);
    QCOMPARE(m_chat->replyMaxTokens(), 77);

    // Sending saves only what the chat set itself: the rest keeps following the model.
    m_chat->setSamplingValue(QStringLiteral("max_tokens"), 4);
    QCOMPARE(source(QStringLiteral("max_tokens")), QStringLiteral("chat"));
    QVERIFY(m_chat->send(QStringLiteral("Once")));
    QVERIFY(QTest::qWaitFor([&] { return !m_chat->isReplying(); }, 60000));
    QCOMPARE(m_chat->messages()->count(), 2);
    auto saved = m_chat->store().conversation(m_chat->conversationId());
    QVERIFY(saved.isOk());
    QCOMPARE(saved->settings.sampling, QJsonObject({{QStringLiteral("max_tokens"), 4}}));
}

void TestModelSampling::modelChangeKeepsOnlyTheChatsOwnValues()
{
    APPTEST_DATA(plain, "models/stories260K/hf");
    if (!prepare(plain))
        return;
    QVERIFY(load(m_recommending));
    m_chat->setSamplingValue(QStringLiteral("temperature"), 1.1);
    m_chat->setSamplingValue(QStringLiteral("max_tokens"), 3);
    m_chat->setSamplingValue(QStringLiteral("no_such_key"), 5); // ignored
    QCOMPARE(m_chat->sampling().size(), 2);
    QVERIFY(m_chat->send(QStringLiteral("Once")));
    QVERIFY(QTest::qWaitFor([&] { return !m_chat->isReplying(); }, 60000));
    const qint64 id = m_chat->conversationId();

    // Another model that recommends nothing: top-k falls back to the settings; the chat's own
    // temperature stays.
    QSignalSpy changed(m_chat.get(), &ChatController::samplingChanged);
    QVERIFY(load(m_plain));
    QVERIFY(changed.count() > 0);
    QVERIFY(m_chat->modelSampling().isEmpty());
    QCOMPARE(effective(QStringLiteral("temperature")).toDouble(), 1.1);
    QCOMPARE(source(QStringLiteral("temperature")), QStringLiteral("chat"));
    QCOMPARE(effective(QStringLiteral("top_k")).toInt(), 40);
    QCOMPARE(source(QStringLiteral("top_k")), QStringLiteral("settings"));

    // Back to the recommending model: what the chat did not set follows it again.
    QVERIFY(load(m_recommending));
    QCOMPARE(effective(QStringLiteral("top_k")).toInt(), 7);
    QCOMPARE(source(QStringLiteral("top_k")), QStringLiteral("model"));
    QCOMPARE(effective(QStringLiteral("temperature")).toDouble(), 1.1);

    // Reset: the model's values again, and nothing of the chat's own kept in the history.
    m_chat->resetSampling();
    QVERIFY(m_chat->sampling().isEmpty());
    QCOMPARE(effective(QStringLiteral("temperature")).toDouble(), 0.35);
    QCOMPARE(source(QStringLiteral("temperature")), QStringLiteral("model"));
    QCOMPARE(effective(QStringLiteral("max_tokens")).toInt(), 77);
    QVERIFY(m_chat->store().conversation(id)->settings.sampling.isEmpty());
}

void TestModelSampling::optionsShowWhereValuesComeFrom()
{
    APPTEST_DATA(plain, "models/stories260K/hf");
    if (!prepare(plain))
        return;
    QVERIFY(load(m_recommending));
    QQmlEngine engine;
    engine.addImportPath(QStringLiteral("qrc:/"));
    QQmlComponent component(&engine);
    component.setData("import QtQuick\nimport QtQuick.Controls.Basic\nimport Hearth\n"
                      "ApplicationWindow { width: 800; height: 800; visible: true\n"
                      "  property alias options: options\n  ChatOptionsPopup { id: options } }",
                      QUrl(QStringLiteral("file:///hearth-test/OptionsWindow.qml")));
    std::unique_ptr<QObject> root(component.create());
    QVERIFY2(root, qPrintable(component.errorString()));
    QObject* options = root->property("options").value<QObject*>();
    QVERIFY(options);
    options->setProperty("chat", QVariant::fromValue(m_chat.get()));
    QVERIFY(QMetaObject::invokeMethod(options, "open"));
    QTRY_VERIFY(options->property("opened").toBool());
    auto* content = options->property("contentItem").value<QQuickItem*>();
    QVERIFY(content);
    auto item = [&](const char* name) { return findItem(content, QString::fromLatin1(name)); };
    auto text = [&](const char* name) {
        QQuickItem* found = item(name);
        return found ? found->property("text").toString() : QStringLiteral("(missing %1)").arg(QLatin1String(name));
    };

    QCOMPARE(text("samplingSource_temperature"), QStringLiteral("model default"));
    QCOMPARE(text("samplingSource_top_k"), QStringLiteral("model default"));
    QCOMPARE(text("samplingSource_max_tokens"), QStringLiteral("default"));
    QCOMPARE(item("chatTemperature")->property("realValue").toDouble(), 0.35);
    QCOMPARE(item("chatTopK")->property("value").toInt(), 7);
    QQuickItem* reset = item("resetChatSampling");
    QVERIFY(reset);
    QCOMPARE(reset->property("text").toString(), QStringLiteral("Reset to model defaults"));
    QVERIFY(!reset->isEnabled()); // nothing of the chat's own to reset

    // A change made in the options belongs to the chat; reset hands it back to the model.
    QVERIFY(QMetaObject::invokeMethod(item("chatTopK"), "increase"));
    QVERIFY(QMetaObject::invokeMethod(item("chatTopK"), "valueModified"));
    QCOMPARE(m_chat->sampling().value(QStringLiteral("top_k")).toInt(), 8);
    QCOMPARE(text("samplingSource_top_k"), QStringLiteral("this chat"));
    QVERIFY(reset->isEnabled());
    QVERIFY(QMetaObject::invokeMethod(reset, "clicked"));
    QVERIFY(m_chat->sampling().isEmpty());
    QCOMPARE(text("samplingSource_top_k"), QStringLiteral("model default"));
    QCOMPARE(item("chatTopK")->property("value").toInt(), 7);
}

int main(int argc, char** argv)
{
    // Theme reads the shared AppSettings: its file goes to a folder of this run.
    qputenv("XDG_CONFIG_HOME", apptest::scratchDir(QStringLiteral("modelsampling-config")).toLocal8Bit());
    QGuiApplication app(argc, argv);
    TestModelSampling test;
    const int rc = QTest::qExec(&test, argc, argv);
    return rc == 0 && apptest::skippedForData() > 0 ? 77 : rc;
}

#include "tst_modelsampling.moc"
