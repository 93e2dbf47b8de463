// Issue 14, item 8, end to end on the CPU through the objects the QML uses: the built-in catalog's
// Qwen3.5 entries can be downloaded (none is "coming"); a Qwen3.5-architecture model with a 16-bit
// source (a BF16 GGUF carrying Qwen3.5's real chat template) is listed by the model picker and
// loads from its row; a reply with thinking on streams as thinking, and the chat view shows it
// folded once done; the quant switcher reloads the source at Q8_0, and the same conversation goes
// on from its history.
#include <QDir>
#include <QFile>
#include <QGuiApplication>
#include <QQmlComponent>
#include <QQmlEngine>
#include <QQmlExtensionPlugin>
#include <QQuickItem>
#include <QQuickWindow>
#include <QSignalSpy>
#include <QtTest>

#include <algorithm>
#include <memory>

#include "appsettings.h"
#include "apptestdata.h"
#include "quickitems.h"
#include "chatcontroller.h"
#include "enginetestkit.h"
#include "hearth/tokenizer.h"
#include "localmodels.h"
#include "memorymeter.h"
#include "modellibrary.h"
#include "runtime/session_testing.h" // the test-only decode delay

Q_IMPORT_QML_PLUGIN(HearthPlugin)
Q_IMPORT_QML_PLUGIN(HearthAppPlugin)

namespace {

using apptest::shown;

void click(QQuickItem* button)
{
    QVERIFY(button);
    QVERIFY(button->isEnabled());
    QVERIFY(QMetaObject::invokeMethod(button, "clicked"));
}

// The message delegate (MessageDelegate) that `item` belongs to, or null.
QQuickItem* delegateOf(QQuickItem* item)
{
    while (item && !item->property("thinkingOpen").isValid())
        item = item->parentItem();
    return item;
}

QString readText(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

} // namespace

class TestQwen35App : public QObject
{
    Q_OBJECT

private slots:
    void catalogOffersQwen35();
    void loadsChatsFoldsThinkingAndSwitchesQuant();

private:
    QQuickItem* window() const { return m_window->contentItem(); }
    bool waitForLoad();
    // Sends `text` and waits for its reply; the reply's row in the chat's messages, -1 on failure.
    int replyTo(const QString& text);
    // Checks the finished reply at `row`: its thinking kept apart from the answer and folded.
    void checkFoldedReply(int row, const ReplyResult& result);

    ChatController* m_chat = nullptr;
    QQuickWindow* m_window = nullptr;
    int m_thinkEnd = -1; // the tokenizer's "</think>"
};

bool TestQwen35App::waitForLoad()
{
    EngineHost* host = m_chat->engine();
    if (!QTest::qWaitFor([&] { return !host->isLoading(); }, 60000) || !host->isLoaded()) {
        qWarning("load failed: %s", qPrintable(host->loadError()));
        return false;
    }
    return true;
}

void TestQwen35App::catalogOffersQwen35()
{
    qunsetenv("HEARTH_CATALOG");
    ModelLibrary library; // the built-in catalog
    library.setDevice(QStringLiteral("cpu"));
    QTRY_VERIFY_WITH_TIMEOUT(library.variants()->rowCount() > 0, 10000);
    QVERIFY2(library.catalogError().isEmpty(), qPrintable(library.catalogError()));
    const CatalogVariantModel* variants = library.variants();
    QStringList specs;
    for (int row = 0; row < variants->rowCount(); ++row) {
        if (variants->rows()[row].family.shape.architecture != QLatin1String("qwen35"))
            continue;
        const QString spec = variants->data(variants->index(row), CatalogVariantModel::SpecRole).toString();
        QVERIFY2(!variants->data(variants->index(row), CatalogVariantModel::ComingRole).toBool(), qPrintable(spec));
        specs << spec;
    }
    QVERIFY2(specs.size() >= 4, qPrintable(specs.join(QLatin1Char(' '))));
    // Download asks the downloader for each of them.
    QSignalSpy asked(&library, &ModelLibrary::downloadRequested);
    for (const QString& spec : specs)
        QVERIFY2(library.requestDownload(spec), qPrintable(spec));
    QCOMPARE(asked.count(), specs.size());
    QTRY_VERIFY_WITH_TIMEOUT(!library.isBusy(), 30000); // its estimates end before it is destroyed
}

int TestQwen35App::replyTo(const QString& text)
{
    const int before = m_chat->messages()->count();
    if (!m_chat->send(text) || !QTest::qWaitFor([&] { return !m_chat->isReplying(); }, 60000))
        return -1;
    return m_chat->messages()->count() == before + 2 ? before + 1 : -1;
}

void TestQwen35App::checkFoldedReply(int row, const ReplyResult& result)
{
    const MessageListModel* messages = m_chat->messages();
    const QModelIndex reply = messages->index(row);
    QCOMPARE(messages->data(reply, MessageListModel::RoleRole).toString(), QStringLiteral("assistant"));
    QVERIFY(!messages->data(reply, MessageListModel::StreamingRole).toBool());
    QVERIFY(!messages->data(reply, MessageListModel::ThinkingActiveRole).toBool());
    QVERIFY(messages->data(reply, MessageListModel::ErrorRole).toString().isEmpty());
    // The engine's split, shown as it came: thinking apart from the answer.
    const QString thinking = messages->data(reply, MessageListModel::ThinkingRole).toString();
    const QString answer = messages->data(reply, MessageListModel::TextRole).toString();
    QCOMPARE(thinking, result.reasoning);
    QCOMPARE(answer, result.content);
    // Qwen3.5's generation prompt ends "<think>\n": the reply begins inside the thinking. These
    // random weights write gibberish that may never close it; the answer is empty exactly when
    // "</think>" (one token) is not among the generated ids.
    QVERIFY(!thinking.trimmed().isEmpty());
    QCOMPARE(answer.isEmpty(), !result.replyIds.contains(m_thinkEnd));
    QVERIFY(!thinking.contains(QLatin1String("<think>")) && !thinking.contains(QLatin1String("</think>")));
    QVERIFY(!answer.contains(QLatin1String("</think>")));
    QCOMPARE(m_chat->store().currentPath(m_chat->conversationId())->at(row).thinking, thinking);

    // The chat view: the reply's fold says "Thoughts", closed; a click opens it on the thinking.
    QTRY_COMPARE(shown(window(), QStringLiteral("thinkingToggle")).size(), (row + 1) / 2);
    QQuickItem* toggle = nullptr;
    for (QQuickItem* t : shown(window(), QStringLiteral("thinkingToggle")))
        if (QQuickItem* d = delegateOf(t); d && d->property("index").toInt() == row)
            toggle = t;
    QVERIFY(toggle);
    QVERIFY2(toggle->property("text").toString().startsWith(QLatin1String("Thoughts")),
             qPrintable(toggle->property("text").toString()));
    QVERIFY(shown(window(), QStringLiteral("thinkingText")).isEmpty());
    click(toggle);
    QTRY_COMPARE(shown(window(), QStringLiteral("thinkingText")).size(), 1);
    QCOMPARE(shown(window(), QStringLiteral("thinkingText"))[0]->property("text").toString(), thinking);
    click(toggle);
    QTRY_VERIFY(shown(window(), QStringLiteral("thinkingText")).isEmpty());
}

void TestQwen35App::loadsChatsFoldsThinkingAndSwitchesQuant()
{
    APPTEST_DATA(tokenizer, "models/qwen3-tokenizer/tokenizer.json");
    // Qwen3's tokenizer (the test data has no Qwen3.5 one) stands in for Qwen3.5's: the same chat
    // markers, <think> and </think> as single tokens. The template is Qwen3.5's own.
    const QString chatTemplate = readText(QStringLiteral(HEARTH_TEMPLATES "/qwen3.5.jinja"));
    QVERIFY(chatTemplate.contains(QLatin1String("<think>")));
    const QString root = apptest::scratchDir(QStringLiteral("qwen35app"));
    const QString models = QDir(root).filePath(QStringLiteral("models"));
    QVERIFY(QDir().mkpath(models));
    const QString source = enginetest::writeTinyQwen35(QDir(models).filePath(QStringLiteral("Qwen3.5-tiny-BF16.gguf")),
                                                       tokenizer, chatTemplate);
    QVERIFY(!source.isEmpty());
    auto textTokenizer = hearth::TextTokenizer::load(source.toStdString());
    QVERIFY2(textTokenizer.isOk(), textTokenizer.status().message().c_str());
    const std::vector<int32_t> thinkEnd = textTokenizer.value()->encode("</think>", false, true);
    QCOMPARE(thinkEnd.size(), size_t(1));
    m_thinkEnd = thinkEnd[0];

    QList<ReplyResult> results; // the engine's, for what the chat shows
    AppSettings* settings = AppSettings::shared(); // its file is under this test's XDG_CONFIG_HOME
    settings->setModelsFolder(models);
    settings->setDevice(QStringLiteral("cpu"));
    settings->setContextLength(1024);
    settings->setThinking(true);
    ChatController chat;
    m_chat = &chat;
    chat.setAppSettings(settings);
    const hearth::Status opened = chat.openStore(QDir(root).filePath(QStringLiteral("history.sqlite")));
    QVERIFY2(opened.isOk(), opened.message().c_str());
    EngineHost* host = chat.engine();
    MemoryMeter meter; // the VRAM meter's numbers (the CPU's RAM here)
    meter.setIntervalMs(100);
    meter.setEngine(host);
    connect(host, &EngineHost::replyFinished, this, [&](quint64, const ReplyResult& r) { results << r; });

    // The window: the chat view on the controller's messages, and the model picker.
    QQmlEngine engine;
    engine.addImportPath(QStringLiteral("qrc:/"));
    QQmlComponent component(&engine);
    component.setData("import QtQuick\nimport QtQuick.Controls.Basic\nimport Hearth\nimport Hearth.App\n"
                      "ApplicationWindow { width: 1100; height: 800; visible: true\n"
                      "  property ChatController chat: null\n  property alias picker: picker\n"
                      "  ChatView { anchors.fill: parent; model: chat ? chat.messages : null }\n"
                      "  ModelPicker { id: picker; engine: chat ? chat.engine : null } }",
                      QUrl(QStringLiteral("file:///hearth-test/Qwen35Window.qml")));
    std::unique_ptr<QObject> rootObject(component.create());
    QVERIFY2(rootObject, qPrintable(component.errorString()));
    m_window = qobject_cast<QQuickWindow*>(rootObject.get());
    QVERIFY(m_window);
    rootObject->setProperty("chat", QVariant::fromValue(&chat));
    QObject* picker = rootObject->property("picker").value<QObject*>();
    QVERIFY(picker);
    QVERIFY(QMetaObject::invokeMethod(picker, "open"));
    auto* local = picker->property("models").value<LocalModels*>();
    QVERIFY(local);

    // The picker lists the model as a qwen35 BF16 file that fits, and loads it from its row.
    QTRY_VERIFY_WITH_TIMEOUT(!local->isBusy() && local->rowCount() == 1 &&
                                 local->data(local->index(0), LocalModels::ReadyRole).toBool(), 60000);
    const QModelIndex row = local->index(0);
    QVERIFY2(local->data(row, LocalModels::ErrorRole).toString().isEmpty(),
             qPrintable(local->data(row, LocalModels::ErrorRole).toString()));
    QCOMPARE(local->data(row, LocalModels::ArchitectureRole).toString(), QStringLiteral("qwen35"));
    QCOMPARE(local->data(row, LocalModels::QuantRole).toString(), QStringLiteral("BF16"));
    QVERIFY(local->data(row, LocalModels::FitsRole).toBool());
    QTRY_COMPARE(shown(window(), QStringLiteral("loadButton")).size(), 1);
    const QString facts = shown(window(), QStringLiteral("modelFacts")).value(0)->property("text").toString();
    QVERIFY2(facts.contains(QLatin1String("qwen35")) && facts.contains(QLatin1String("BF16")), qPrintable(facts));
    click(shown(window(), QStringLiteral("loadButton")).value(0));
    QVERIFY(waitForLoad());
    QVERIFY(QFileInfo(host->modelPath()) == QFileInfo(source));
    QCOMPARE(host->quant(), QStringLiteral("BF16"));
    QVERIFY(host->model().preset.isEmpty()); // as stored
    QVERIFY2(host->model().hasTemplate, qPrintable(host->model().modeNote));
    QCOMPARE(host->model().facts.architecture, QStringLiteral("qwen35"));

    // A 16-bit source: the switcher offers every preset, the loaded one marked.
    QTRY_VERIFY_WITH_TIMEOUT(!shown(window(), QStringLiteral("quantOption_Q8_0")).isEmpty(), 30000);
    QVERIFY(!shown(window(), QStringLiteral("quantOption_Q4_K_M")).isEmpty());
    const QuantOptionsModel* options = local->quantOptions();
    QStringList current;
    for (const QuantOption& o : options->options()) {
        QCOMPARE(o.kind, QStringLiteral("preset"));
        QVERIFY(QFileInfo(o.path) == QFileInfo(source));
        if (o.current)
            current << o.label;
    }
    QCOMPARE(current, QStringList{QStringLiteral("BF16")});
    QTRY_VERIFY(meter.isLoaded() && meter.weightsBytes() > 0);
    QVERIFY(meter.recurrentStateBytes() > 0); // the DeltaNet layers' state
    const double sourceWeights = meter.weightsBytes();
    QVERIFY(QMetaObject::invokeMethod(picker, "close"));

    // A turn with thinking on: greedy, a few tokens, slowed down so that the view sees it stream.
    QVERIFY(chat.thinking());
    chat.setSampling({{QStringLiteral("temperature"), 0}, {QStringLiteral("max_tokens"), 12}});
    bool thinkingLive = false;
    QMetaObject::Connection live = connect(chat.messages(), &QAbstractItemModel::dataChanged, this, [&] {
        const QModelIndex reply = chat.messages()->index(chat.messages()->count() - 1);
        thinkingLive |= chat.messages()->data(reply, MessageListModel::ThinkingActiveRole).toBool();
    });
    hearth::SessionTesting::setDecodeDelayMs(20);
    const int first = replyTo(QStringLiteral("What is 2+2?"));
    hearth::SessionTesting::setDecodeDelayMs(0);
    disconnect(live);
    QCOMPARE(first, 1);
    QCOMPARE(results.size(), 1);
    QVERIFY(results[0].stats.tokens > 0);
    QVERIFY(thinkingLive); // open while it was thinking
    checkFoldedReply(first, results[0]);
    const qint64 conversation = chat.conversationId();

    // Switch to Q8_0 from the switcher: the same source, converted at load.
    QVERIFY(QMetaObject::invokeMethod(picker, "open"));
    QTRY_VERIFY(!shown(window(), QStringLiteral("quantOption_Q8_0")).isEmpty());
    click(shown(window(), QStringLiteral("quantOption_Q8_0")).value(0));
    QTRY_VERIFY(host->isLoading() || host->quant() == QLatin1String("Q8_0"));
    QVERIFY(waitForLoad());
    QCOMPARE(host->quant(), QStringLiteral("Q8_0"));
    QCOMPARE(host->model().preset, QStringLiteral("Q8_0"));
    QVERIFY(QFileInfo(host->modelPath()) == QFileInfo(source)); // reloaded from the 16-bit source
    QTRY_COMPARE(settings->lastModelQuant(), QStringLiteral("Q8_0"));
    // 8.5 bits a weight instead of 16 (the norms stay F32).
    QTRY_VERIFY_WITH_TIMEOUT(meter.isLoaded() && meter.weightsBytes() > 0 && meter.weightsBytes() < 0.6 * sourceWeights,
                             10000);
    QTRY_VERIFY(std::any_of(options->options().begin(), options->options().end(), [](const QuantOption& o) {
        return o.current && o.label == QLatin1String("Q8_0");
    }));
    QVERIFY(QMetaObject::invokeMethod(picker, "close"));

    // The same conversation goes on: the new weights rebuild it from its history.
    QCOMPARE(chat.conversationId(), conversation);
    QVERIFY(chat.canSend());
    const int second = replyTo(QStringLiteral("And 3+3?"));
    QCOMPARE(second, 3);
    QCOMPARE(results.size(), 2);
    QVERIFY(results[1].restored);
    QVERIFY(results[1].stats.promptTokens > results[0].stats.promptTokens);
    checkFoldedReply(second, results[1]);
    const QList<store::Message> stored = *chat.store().currentPath(conversation);
    QCOMPARE(stored.size(), 4);
    QCOMPARE(stored[1].stats.quant, QStringLiteral("BF16"));
    QCOMPARE(stored[3].stats.quant, QStringLiteral("Q8_0"));
    m_window = nullptr;
    m_chat = nullptr;
}

int main(int argc, char** argv)
{
    // AppSettings' file goes to a folder of this run, never the user's.
    const QString config = apptest::scratchDir(QStringLiteral("qwen35app-config"));
    qputenv("XDG_CONFIG_HOME", config.toLocal8Bit());
    QGuiApplication app(argc, argv);
    TestQwen35App test;
    const int rc = QTest::qExec(&test, argc, argv);
    return rc == 0 && apptest::skippedForData() > 0 ? 77 : rc;
}

#include "tst_qwen35app.moc"
