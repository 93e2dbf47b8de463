// A chat through a remote connection, end to end with the real ChatController, a scratch history
// and a loopback server replaying tests/app/fixtures/*.sse: the connection is made with the
// dialog's editor (fetch models, save; the key in the keyring or, without one, this run only —
// never in the settings file), the reply goes to the same message model, history and stats as a
// local one, stop keeps the text so far, a server error marks the reply and keeps its text. A
// local load ends the remote connection and choosing a remote one unloads the local model; the
// choice survives a restart. app.remotechat_keyring runs apiKeyInTheKeyring under with_keyring.sh.
#include <QFile>
#include <QHostAddress>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTest>

#include "apptestdata.h"
#include "chatcontroller.h"
#include "connectioneditor.h"
#include "enginetestkit.h"
#include "httptestserver.h"

namespace {

constexpr int kWaitMs = 20000;
const QByteArray kKey = "sk-remote-SECRET-4711";
const QByteArray kChat = "/v1/chat/completions";
const QString kService = QStringLiteral("HearthTest");

QByteArray fixture(const char* name)
{
    QFile f(QStringLiteral(HEARTH_FIXTURES "/") + QLatin1String(name));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

HttpRoute events(const QByteArray& body)
{
    HttpRoute route;
    route.body = body;
    route.headers = {{"Content-Type", "text/event-stream"}};
    route.trickleBytes = 29;
    route.trickleMs = 1;
    return route;
}

} // namespace

class TestRemoteChat : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void chatThroughARemoteConnection();
    void stopAndServerErrorKeepTheText();
    void localAndRemoteTakeTurns();
    void editorChecksWhatIsTyped();
    void choiceSurvivesARestart();
    void removingTheConnectionInUse();
    void apiKeyInTheKeyring();

private:
    QString addConnection(const QByteArray& key = kKey); // through the editor; its id
    bool useRemote(const QString& id);
    QList<store::Message> storedPath();

    QString m_dir;
    int m_run = 0;
    std::unique_ptr<HttpTestServer> m_server;
    std::unique_ptr<ConnectionList> m_list;
    std::unique_ptr<ApiKeyStore> m_keys;
    std::unique_ptr<ChatController> m_chat;
};

void TestRemoteChat::init()
{
    m_dir = apptest::scratchDir(QStringLiteral("remotechat"));
    ++m_run;
    m_server = std::make_unique<HttpTestServer>();
    QVERIFY(m_server->listen());
    HttpRoute models;
    models.body = R"({"object":"list","data":[{"id":"Qwen/Qwen3-8B","max_model_len":32768},{"id":"other"}]})";
    models.headers = {{"Content-Type", "application/json"}};
    m_server->setRoute("/v1/models", models);
    m_server->setRoute(kChat, events(fixture("vllm-reasoning.sse")));
    m_list = std::make_unique<ConnectionList>(m_dir + QStringLiteral("/settings-%1.ini").arg(m_run));
    m_keys = std::make_unique<ApiKeyStore>(nullptr, kService);
    m_chat = std::make_unique<ChatController>();
    m_chat->connection()->setStores(m_list.get(), m_keys.get());
    const hearth::Status opened = m_chat->openStore(m_dir + QStringLiteral("/history-%1.sqlite").arg(m_run));
    QVERIFY2(opened.isOk(), opened.message().c_str());
}

void TestRemoteChat::cleanup()
{
    m_chat.reset();
    m_keys.reset();
    m_list.reset();
    m_server.reset();
}

QString TestRemoteChat::addConnection(const QByteArray& key)
{
    ConnectionEditor editor;
    editor.setStores(m_list.get(), m_keys.get());
    editor.setName(QStringLiteral("Lab vLLM"));
    editor.setBaseUrl(QString::fromLatin1(m_server->baseUrl())); // no /v1: added
    editor.setApiKey(QString::fromLatin1(key));
    editor.fetchModels();
    if (!QTest::qWaitFor([&] { return !editor.isFetching(); }, kWaitMs) || !editor.fetchError().isEmpty())
        return {};
    if (editor.models() != QStringList{QStringLiteral("Qwen/Qwen3-8B"), QStringLiteral("other")} ||
        editor.model() != QStringLiteral("Qwen/Qwen3-8B"))
        return {};
    QSignalSpy saved(&editor, &ConnectionEditor::saved);
    if (!editor.save() || !(saved.size() == 1 || saved.wait(kWaitMs)))
        return {};
    // Without a keyring the key is kept for this run only, and the editor says so.
    if (!editor.keyNotice().isEmpty() && !editor.keyNotice().contains(QStringLiteral("until Hearth quits")))
        return {};
    return saved[0][0].toString();
}

bool TestRemoteChat::useRemote(const QString& id)
{
    return m_chat->connection()->useRemote(id) && QTest::qWaitFor([&] { return m_chat->canSend(); }, kWaitMs);
}

QList<store::Message> TestRemoteChat::storedPath()
{
    auto path = m_chat->store().currentPath(m_chat->conversationId());
    return path.isOk() ? *path : QList<store::Message>();
}

void TestRemoteChat::chatThroughARemoteConnection()
{
    const QString id = addConnection();
    QVERIFY(!id.isEmpty());
    QVERIFY(!m_chat->canSend()); // nothing loaded, nothing connected
    QSignalSpy backendChanged(m_chat->connection(), &ActiveConnection::backendChanged);
    QVERIFY(useRemote(id));
    QCOMPARE(backendChanged.size(), 1);
    QVERIFY(m_chat->connection()->isRemote());
    QCOMPARE(m_chat->connection()->modelName(), QStringLiteral("Qwen/Qwen3-8B"));
    QCOMPARE(m_chat->liveStats()->engine(), static_cast<ReplyBackend*>(m_chat->connection()->remoteBackend()));
    QCOMPARE(m_list->activeId(), id);
    QTRY_COMPARE_WITH_TIMEOUT(m_chat->connection()->remoteBackend()->state(), RemoteBackend::State::Ready, kWaitMs);

    m_chat->setSystemPrompt(QStringLiteral("Answer briefly."));
    m_chat->setStopText(QStringLiteral("END\\n"));
    bool sawThinkingLive = false, sawAnswerLive = false;
    connect(m_chat->messages(), &QAbstractItemModel::dataChanged, this, [&] {
        const QModelIndex reply = m_chat->messages()->index(1);
        sawThinkingLive |= m_chat->messages()->data(reply, MessageListModel::ThinkingActiveRole).toBool();
        sawAnswerLive |= m_chat->messages()->data(reply, MessageListModel::StreamingRole).toBool() &&
                         !m_chat->messages()->data(reply, MessageListModel::TextRole).toString().isEmpty();
    });
    QVERIFY(m_chat->send(QStringLiteral("What is the capital of France?")));
    QVERIFY(m_chat->isReplying());
    QVERIFY(QTest::qWaitFor([&] { return !m_chat->isReplying(); }, kWaitMs));
    QVERIFY(sawThinkingLive && sawAnswerLive);

    const QList<store::Message> stored = storedPath();
    QCOMPARE(stored.size(), 2);
    QCOMPARE(stored[1].text, QStringLiteral("The capital of France is Paris — «Paris», 巴黎."));
    QCOMPARE(stored[1].thinking, QStringLiteral("The user asks for the capital of France."));
    QVERIFY(!stored[1].streaming);
    QCOMPARE(stored[1].stats.stopReason, QStringLiteral("eos"));
    QCOMPARE(stored[1].stats.generatedTokens, 13);
    QCOMPARE(stored[1].stats.promptTokens, 18);
    QVERIFY(stored[1].stats.timeToFirstTokenMs.has_value());
    QVERIFY(stored[1].stats.decodeTokensPerSecond.has_value());
    QCOMPARE(stored[1].stats.model, QStringLiteral("Qwen/Qwen3-8B"));
    QCOMPARE(stored[1].stats.device, QStringLiteral("Lab vLLM"));
    QVERIFY(stored[1].stats.quant.isEmpty());
    auto conversation = m_chat->store().conversation(m_chat->conversationId());
    QVERIFY(conversation.isOk());
    QCOMPARE(conversation->settings.modelPath, QStringLiteral("Qwen/Qwen3-8B @ %1/v1").arg(QString::fromLatin1(m_server->baseUrl())));
    // The stats bar followed the remote reply.
    QCOMPARE(m_chat->liveStats()->tokens(), 13);
    QCOMPARE(m_chat->liveStats()->contextSize(), 32768);
    QCOMPARE(m_chat->liveStats()->contextUsed(), 31);
    QVERIFY(m_chat->liveStats()->ttftMs() >= 0);
    // The request: the chat's settings, the key, and no key anywhere in the settings file.
    const HttpHit hit = m_server->hitsFor(kChat).value(0);
    QCOMPARE(hit.authorization, "Bearer " + kKey);
    const QJsonObject body = QJsonDocument::fromJson(hit.body).object();
    QCOMPARE(body.value("messages").toArray().first().toObject().value("content").toString(), QStringLiteral("Answer briefly."));
    QCOMPARE(body.value("stop").toArray(), QJsonArray({"END\n"}));
    QFile ini(m_dir + QStringLiteral("/settings-%1.ini").arg(m_run));
    QVERIFY(ini.open(QIODevice::ReadOnly));
    const QByteArray settings = ini.readAll();
    QVERIFY(settings.contains("Lab vLLM"));
    QVERIFY(!settings.contains(kKey));
}

void TestRemoteChat::stopAndServerErrorKeepTheText()
{
    const QByteArray body = fixture("vllm-reasoning.sse");
    HttpRoute stalled = events(body);
    stalled.stallAfter = body.indexOf("is Paris");
    stalled.stallTimes = 1;
    m_server->setRoute(kChat, stalled);
    QVERIFY(useRemote(addConnection()));
    QVERIFY(m_chat->send(QStringLiteral("Capital?")));
    QTRY_VERIFY_WITH_TIMEOUT(m_chat->messages()->rows().value(1).text.contains(QStringLiteral(" of France")), kWaitMs);
    m_chat->stop();
    QVERIFY(QTest::qWaitFor([&] { return !m_chat->isReplying(); }, kWaitMs));
    QList<store::Message> stored = storedPath();
    QCOMPARE(stored.value(1).text, QStringLiteral("The capital of France"));
    QCOMPARE(stored.value(1).stats.stopReason, QStringLiteral("cancel"));
    // The stalled stream's connection is closed by the stop (QNetworkAccessManager may also hold
    // an idle connection it opened and never used: the server counts that one as open).
    QTRY_COMPARE_WITH_TIMEOUT(m_server->stalledConnectionsClosed(), 1, kWaitMs);
    QVERIFY(m_chat->canSend());

    m_server->setRoute(kChat, events(fixture("midstream-error.sse")));
    QVERIFY(m_chat->send(QStringLiteral("Again?")));
    QVERIFY(QTest::qWaitFor([&] { return !m_chat->isReplying(); }, kWaitMs));
    stored = storedPath();
    QCOMPARE(stored.size(), 4);
    QCOMPARE(stored[3].text, QStringLiteral("Partial answer"));
    QCOMPARE(stored[3].stats.stopReason, QStringLiteral("error"));
    const QString error = m_chat->messages()->rows()[3].error;
    QVERIFY2(error.contains(QStringLiteral("KV cache blocks")), qPrintable(error));
    QVERIFY(m_chat->canSend());
}

void TestRemoteChat::localAndRemoteTakeTurns()
{
    const QString path = enginetest::writeTinyModel(m_dir, QStringLiteral("tiny-%1.gguf").arg(m_run));
    EngineHost* engine = m_chat->engine();
    QSignalSpy loaded(engine, &EngineHost::modelLoaded);
    QVERIFY(m_chat->loadModel(path) != 0);
    QVERIFY(loaded.wait(60000));
    QVERIFY(m_chat->canSend());
    QCOMPARE(m_chat->connection()->backend(), static_cast<ReplyBackend*>(engine));

    // Remote: the local model is unloaded, its memory freed.
    const QString id = addConnection();
    QVERIFY(useRemote(id));
    QTRY_VERIFY_WITH_TIMEOUT(!engine->isLoaded(), kWaitMs);
    QCOMPARE(m_chat->connection()->backend(), static_cast<ReplyBackend*>(m_chat->connection()->remoteBackend()));

    // A local load, however it is asked for, ends the remote connection.
    engine->load(path);
    QVERIFY(!m_chat->connection()->isRemote());
    QVERIFY(m_list->activeId().isEmpty());
    QCOMPARE(m_chat->liveStats()->engine(), static_cast<ReplyBackend*>(engine));
    QVERIFY(loaded.wait(60000));
    QTRY_VERIFY_WITH_TIMEOUT(m_chat->canSend(), kWaitMs);
    QCOMPARE(m_chat->connection()->remoteBackend()->state(), RemoteBackend::State::Off);
}

void TestRemoteChat::editorChecksWhatIsTyped()
{
    ConnectionEditor editor;
    editor.setStores(m_list.get(), m_keys.get());
    QVERIFY(editor.urlError().isEmpty()); // nothing typed yet: nothing to complain about
    QVERIFY(!editor.canFetch() && !editor.canSave());
    editor.setBaseUrl(QStringLiteral("ftp://files.example.com"));
    QVERIFY(!editor.urlError().isEmpty());
    QVERIFY(!editor.canFetch());
    editor.setBaseUrl(QStringLiteral("10.1.2.3:8000"));
    QCOMPARE(editor.endpoint(), QStringLiteral("http://10.1.2.3:8000/v1/chat/completions"));
    QVERIFY(editor.insecureWarning().isEmpty()); // no key: nothing secret crosses
    editor.setApiKey(QStringLiteral("sk-x"));
    QVERIFY(editor.insecureWarning().contains(QStringLiteral("plain HTTP")));
    editor.setBaseUrl(QStringLiteral("http://localhost:8000/v1"));
    QVERIFY(editor.insecureWarning().isEmpty()); // loopback never leaves the computer
    editor.setBaseUrl(QStringLiteral("https://10.1.2.3/v1"));
    QVERIFY(editor.insecureWarning().isEmpty());
    QVERIFY(!editor.canSave()); // no model yet
    editor.setModel(QStringLiteral("typed-by-hand"));
    QVERIFY(editor.canSave());

    // Fetching from where nothing listens says so.
    QTcpServer probe;
    QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
    const quint16 port = probe.serverPort();
    probe.close();
    editor.setBaseUrl(QStringLiteral("http://127.0.0.1:%1").arg(port));
    editor.fetchModels();
    QVERIFY(editor.isFetching());
    QTRY_VERIFY_WITH_TIMEOUT(!editor.isFetching(), kWaitMs);
    QVERIFY2(editor.fetchError().contains(QStringLiteral("nothing is listening")), qPrintable(editor.fetchError()));

    // Editing keeps the saved key unless told to forget it.
    const QString id = addConnection();
    QVERIFY(editor.load(id));
    QVERIFY(editor.hasSavedKey());
    QCOMPARE(editor.name(), QStringLiteral("Lab vLLM"));
    QVERIFY(editor.insecureWarning().isEmpty()); // loopback, where the key has been going
    const QString saved = editor.baseUrl();
    editor.setBaseUrl(QStringLiteral("https://elsewhere.example/v1"));
    QVERIFY2(editor.insecureWarning().contains(QStringLiteral("new address")), qPrintable(editor.insecureWarning()));
    editor.setBaseUrl(saved + QStringLiteral("/"));
    QVERIFY(editor.insecureWarning().isEmpty());
    editor.setForgetKey(true);
    QVERIFY(editor.save());
    QVERIFY(!m_list->find(id)->hasKey);
    QCOMPARE(m_list->count(), 1);
}

void TestRemoteChat::choiceSurvivesARestart()
{
    const QString id = addConnection();
    QVERIFY(useRemote(id));
    // As at the next start: the same settings file, a new engine and key store.
    ApiKeyStore keys(nullptr, kService);
    ConnectionList list(m_dir + QStringLiteral("/settings-%1.ini").arg(m_run));
    EngineHost engine;
    ActiveConnection next(&engine);
    next.setStores(&list, &keys);
    QVERIFY(next.restore());
    QVERIFY(next.isRemote());
    QTRY_VERIFY_WITH_TIMEOUT(next.isReady(), kWaitMs);
    QCOMPARE(next.remoteBackend()->connectionName(), QStringLiteral("Lab vLLM"));
    // No keyring: the key did not survive the restart, and the connection says so (this server
    // answers without one, so it is ready all the same).
    QTRY_COMPARE_WITH_TIMEOUT(next.remoteBackend()->state(), RemoteBackend::State::Ready, kWaitMs);
    QVERIFY2(next.remoteBackend()->problem().contains(QStringLiteral("keyring")), qPrintable(next.remoteBackend()->problem()));
    next.useLocal();
    QVERIFY(list.activeId().isEmpty());
}

void TestRemoteChat::removingTheConnectionInUse()
{
    const QString id = addConnection();
    QVERIFY(useRemote(id));
    QVERIFY(m_chat->connection()->removeConnection(id));
    QVERIFY(!m_chat->connection()->isRemote());
    QCOMPARE(m_list->count(), 0);
    QVERIFY(!m_chat->canSend());
    QVERIFY(!m_chat->connection()->removeConnection(id));
}

void TestRemoteChat::apiKeyInTheKeyring()
{
    if (!qEnvironmentVariableIsSet("HEARTH_TEST_KEYRING"))
        QSKIP("runs under with_keyring.sh (app.remotechat_keyring)");
    ConnectionEditor editor;
    editor.setStores(m_list.get(), m_keys.get());
    editor.setBaseUrl(QString::fromLatin1(m_server->baseUrl()));
    editor.setApiKey(QString::fromLatin1(kKey));
    editor.setModel(QStringLiteral("Qwen/Qwen3-8B"));
    QSignalSpy saved(&editor, &ConnectionEditor::saved);
    QVERIFY(editor.save());
    QVERIFY(saved.wait(kWaitMs));
    QVERIFY2(editor.keyNotice().isEmpty(), qPrintable(editor.keyNotice()));
    const QString id = saved[0][0].toString();
    // A new store (as after a restart) reads it back from the keyring.
    ApiKeyStore again(nullptr, kService);
    QSignalSpy read(&again, &ApiKeyStore::keyRead);
    again.read(id);
    QVERIFY(read.wait(kWaitMs));
    QCOMPARE(read[0][1].toByteArray(), kKey);
    QVERIFY(read[0][2].toString().isEmpty());
    // Removing the connection removes the key.
    QVERIFY(m_chat->connection()->removeConnection(id));
    QSignalSpy settled(m_keys.get(), &ApiKeyStore::settled);
    QVERIFY(settled.wait(kWaitMs));
    ApiKeyStore third(nullptr, kService);
    QSignalSpy gone(&third, &ApiKeyStore::keyRead);
    third.read(id);
    QVERIFY(gone.wait(kWaitMs));
    QVERIFY(gone[0][1].toByteArray().isEmpty());
    QVERIFY(!gone[0][2].toString().isEmpty());
}

QTEST_MAIN(TestRemoteChat)
#include "tst_remotechat.moc"
