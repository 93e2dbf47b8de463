// The Settings switch that serves the loaded model (app/server/): with the real engine and
// stories260K, LocalServer listens when switched on, lists the model the app loaded and answers
// a chat completion with the reply the app's own chat gives (the requests run on the engine
// thread, between the chat's turns), counts what it answered, reports a port in use and a
// missing key, requires the key once one is saved (no keyring here: kept for the run), says
// when no model is loaded, and closes the port when switched off. A served request has a session
// of its own: the chat's next turn rebuilds the chat's from its history and replies as before.
// The chat's Stop stops a served request running on the engine, and leaves one that waits alone.
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <thread>

#include "appsettings.h"
#include "apptestdata.h"
#include "enginetestkit.h"
#include "localserver.h"
#include "runtime/session_testing.h" // the test-only decode delay
#include "serverkey.h"

namespace {

using Json = nlohmann::json;
const char* kPrompt = "Once upon a time";

quint16 freePort()
{
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    return probe.serverPort();
}

struct Reply {
    int status = -1;
    Json json;
};

Reply request(int port, const std::string& method, const std::string& path, const std::string& body = {},
              const std::string& key = {})
{
    httplib::Client client("127.0.0.1", port);
    client.set_read_timeout(60, 0);
    httplib::Headers headers;
    if (!key.empty())
        headers.emplace("Authorization", "Bearer " + key);
    const auto result = method == "GET" ? client.Get(path.c_str(), headers)
                                        : client.Post(path.c_str(), headers, body, "application/json");
    if (!result)
        return {};
    return {result->status, Json::parse(result->body, nullptr, false)};
}

std::string chatBody(int maxTokens, const char* prompt = kPrompt)
{
    return Json{{"messages", {{{"role", "user"}, {"content", prompt}}}}, {"max_tokens", maxTokens}, {"temperature", 0}}
        .dump();
}

// A streamed chat completion of `maxTokens`: the Server-Sent Events received. `events` counts
// them as they come.
std::string streamChat(int port, int maxTokens, std::atomic<int>& events)
{
    httplib::Client client("127.0.0.1", port);
    client.set_read_timeout(60, 0);
    Json body = Json::parse(chatBody(maxTokens));
    body["stream"] = true;
    httplib::Request r;
    r.method = "POST";
    r.path = "/v1/chat/completions";
    r.headers = {{"Content-Type", "application/json"}};
    r.body = body.dump();
    std::string received;
    r.content_receiver = [&](const char* data, size_t n, uint64_t, uint64_t) {
        received.append(data, n);
        int count = 0;
        for (size_t at = received.find("data: "); at != std::string::npos; at = received.find("data: ", at + 1))
            ++count;
        events = count;
        return true;
    };
    client.send(r);
    return received;
}

// A chat turn on `engine`, waited for.
enginetest::ReplyLog turn(EngineHost& engine, const TurnRequest& request)
{
    static QElapsedTimer clock;
    clock.start();
    enginetest::ReplyLog log;
    enginetest::followReply(engine, engine.startTurn(request), log, clock);
    if (!QTest::qWaitFor([&] { return log.done; }, 60000) || !log.ok)
        qWarning("turn: no reply (%s)", qPrintable(log.failure.error.message));
    return log;
}

} // namespace

class TestLocalServer : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void servesTheLoadedModel();
    void chatIsRebuiltAfterAServedRequest();
    void stopStopsAServedRequest();
    void portInUseAndMissingKey();
    void savedKeyIsRequired();
    void noModelAndOff();

private:
    QTemporaryDir m_dir;
    EngineHost m_engine;
    bool m_loaded = false;
};

void TestLocalServer::initTestCase()
{
    APPTEST_DATA(model, "models/stories260K/stories260K-f32.gguf");
    const enginetest::LoadLog log = enginetest::loadAndWait(m_engine, enginetest::cpuLoad(model));
    QVERIFY2(log.ok, qPrintable(log.error.message));
    m_loaded = true;
}

void TestLocalServer::servesTheLoadedModel()
{
    if (!m_loaded)
        QSKIP("no model");
    AppSettings settings(m_dir.filePath(QStringLiteral("serve.ini")));
    settings.setServerPort(freePort());
    LocalServer server(&m_engine, &settings, nullptr);
    QCOMPARE(server.state(), LocalServer::State::Off);
    settings.setServerEnabled(true);
    QCOMPARE(server.state(), LocalServer::State::Listening);
    QCOMPARE(server.url(), QStringLiteral("http://127.0.0.1:%1").arg(settings.serverPort()));
    QVERIFY2(server.statusText().contains(m_engine.modelName()), qPrintable(server.statusText()));
    const int port = settings.serverPort();

    const Reply models = request(port, "GET", "/v1/models");
    QCOMPARE(models.status, 200);
    QCOMPARE(QString::fromStdString(models.json["data"][0].value("id", "")), QStringLiteral("stories260K-f32"));

    // The app's own chat, greedily, then the server: the same model, the same reply.
    QElapsedTimer clock;
    clock.start();
    enginetest::ReplyLog own;
    enginetest::followReply(m_engine, m_engine.startTurn(enginetest::greedyTurn(QString::fromUtf8(kPrompt), 6)), own, clock);
    QTRY_VERIFY_WITH_TIMEOUT(own.done, 60000);
    QVERIFY(own.ok);
    const Reply served = request(port, "POST", "/v1/chat/completions", chatBody(6));
    QCOMPARE(served.status, 200);
    const std::string content = served.json["choices"][0]["message"].value("content", "");
    QCOMPARE(QString::fromStdString(content), own.content);
    QCOMPARE(served.json["usage"].value("completion_tokens", 0), 6);

    // The chat goes on after the server's turn (its session is rebuilt), and the server after it.
    enginetest::ReplyLog again;
    enginetest::followReply(m_engine, m_engine.startTurn(enginetest::greedyTurn(QString::fromUtf8(kPrompt), 6)), again, clock);
    QTRY_VERIFY_WITH_TIMEOUT(again.done, 60000);
    QCOMPARE(again.content, own.content);
    QCOMPARE(request(port, "POST", "/v1/chat/completions", chatBody(6)).json["choices"][0]["message"].value("content", ""),
             content);
    QTRY_COMPARE(server.answered(), 2);
}

void TestLocalServer::chatIsRebuiltAfterAServedRequest()
{
    if (!m_loaded)
        QSKIP("no model");
    AppSettings settings(m_dir.filePath(QStringLiteral("rebuilt.ini")));
    settings.setServerPort(freePort());
    LocalServer server(&m_engine, &settings, nullptr);
    settings.setServerEnabled(true);
    QCOMPARE(server.state(), LocalServer::State::Listening);
    const QString story = QString::fromUtf8(kPrompt);
    const char* other = "The little dog";

    const enginetest::ReplyLog first = turn(m_engine, enginetest::greedyTurn(story, 8));
    QVERIFY(first.ok);
    const QList<TurnMessage> history{{QStringLiteral("user"), story, {}, {}},
                                     {QStringLiteral("assistant"), first.content, {}, {}}};
    // Another conversation, then this one again: its next turn with the session rebuilt from the
    // history, as the reference.
    const enginetest::ReplyLog dog = turn(m_engine, enginetest::greedyTurn(QString::fromUtf8(other), 8));
    QVERIFY(dog.ok);
    const enginetest::ReplyLog reference = turn(m_engine, enginetest::greedyTurn(QStringLiteral("Then"), 8, history));
    QVERIFY(reference.ok);
    QVERIFY(reference.result.restored);

    // The chat's session holds that turn now. A request with another conversation is served
    // from a session of its own, so its reply is the chat's reply to the same message...
    const Reply served = request(settings.serverPort(), "POST", "/v1/chat/completions", chatBody(8, other));
    QCOMPARE(served.status, 200);
    QCOMPARE(QString::fromStdString(served.json["choices"][0]["message"].value("content", "")), dog.content);
    // ...and the chat, whose session gave way to it (one KV cache at a time), rebuilds it from its
    // history: the same turn again gives the same reply.
    const enginetest::ReplyLog after = turn(m_engine, enginetest::greedyTurn(QStringLiteral("Then"), 8, history));
    QVERIFY(after.ok);
    QVERIFY(after.result.restored);
    QCOMPARE(after.content, reference.content);
}

void TestLocalServer::stopStopsAServedRequest()
{
    if (!m_loaded)
        QSKIP("no model");
    AppSettings settings(m_dir.filePath(QStringLiteral("stop.ini")));
    settings.setServerPort(freePort());
    LocalServer server(&m_engine, &settings, nullptr);
    settings.setServerEnabled(true);
    QCOMPARE(server.state(), LocalServer::State::Listening);
    const int port = settings.serverPort();
    hearth::SessionTesting::setDecodeDelayMs(30); // 400 tokens: 12 s unless stopped
    auto fast = qScopeGuard([] { hearth::SessionTesting::setDecodeDelayMs(0); });
    QElapsedTimer clock;
    clock.start();

    // A long served request runs; the chat's reply waits behind it; the user presses Stop.
    std::atomic<int> events{0};
    std::string longSse;
    std::thread longClient([&] { longSse = streamChat(port, 400, events); });
    const bool generating = QTest::qWaitFor([&] { return events.load() >= 3; }, 30000); // role, then text
    enginetest::ReplyLog waiting;
    enginetest::followReply(m_engine, m_engine.startTurn(enginetest::greedyTurn(QString::fromUtf8(kPrompt), 8)),
                            waiting, clock);
    m_engine.stop();
    const bool stopped = QTest::qWaitFor([&] { return waiting.done; }, 60000);
    longClient.join();
    QVERIFY(generating);
    QVERIFY(stopped);
    QCOMPARE(waiting.result.stopReason, QStringLiteral("cancel"));
    QVERIFY2(longSse.find(R"("finish_reason":"cancelled")") != std::string::npos, longSse.c_str());

    // The chat's own reply runs; a served request waits behind it. Stop ends the reply only.
    enginetest::ReplyLog own;
    enginetest::followReply(m_engine, m_engine.startTurn(enginetest::greedyTurn(QString::fromUtf8(kPrompt), 400)),
                            own, clock);
    QTRY_VERIFY_WITH_TIMEOUT(own.pieces > 0, 30000);
    std::atomic<int> shortEvents{0};
    std::string shortSse;
    std::thread shortClient([&] { shortSse = streamChat(port, 4, shortEvents); });
    QTest::qWait(300); // the request reaches the engine's queue, behind the reply
    m_engine.stop();
    const bool ownStopped = QTest::qWaitFor([&] { return own.done; }, 60000);
    shortClient.join();
    QVERIFY(ownStopped);
    QCOMPARE(own.result.stopReason, QStringLiteral("cancel"));
    QVERIFY2(shortSse.find(R"("finish_reason":"length")") != std::string::npos, shortSse.c_str());
    QTRY_COMPARE(server.answered(), 2);
}

void TestLocalServer::portInUseAndMissingKey()
{
    if (!m_loaded)
        QSKIP("no model");
    AppSettings first(m_dir.filePath(QStringLiteral("first.ini"))), second(m_dir.filePath(QStringLiteral("second.ini")));
    const int port = freePort();
    first.setServerPort(port);
    second.setServerPort(port);
    LocalServer a(&m_engine, &first, nullptr), b(&m_engine, &second, nullptr);
    first.setServerEnabled(true);
    QCOMPARE(a.state(), LocalServer::State::Listening);
    second.setServerEnabled(true);
    QCOMPARE(b.state(), LocalServer::State::Failed);
    QVERIFY2(b.statusText().contains(QString::number(port)), qPrintable(b.statusText()));
    // Another port, and it serves.
    second.setServerPort(freePort());
    QCOMPARE(b.state(), LocalServer::State::Listening);

    // Other machines only with a key; without one it says so and serves nothing.
    first.setServerOnNetwork(true);
    QCOMPARE(a.state(), LocalServer::State::Failed);
    QVERIFY2(a.statusText().contains(QStringLiteral("API key")), qPrintable(a.statusText()));
    QCOMPARE(a.url(), QString());
    first.setServerOnNetwork(false);
    QCOMPARE(a.state(), LocalServer::State::Listening);
}

void TestLocalServer::savedKeyIsRequired()
{
    if (!m_loaded)
        QSKIP("no model");
    AppSettings settings(m_dir.filePath(QStringLiteral("key.ini")));
    settings.setServerPort(freePort());
    settings.setServerEnabled(true);
    ServerKey key(nullptr, QStringLiteral("HearthTest-localserver"));
    LocalServer server(&m_engine, &settings, &key);
    // Nothing is served until the keyring has said whether there is a key.
    QTRY_VERIFY_WITH_TIMEOUT(key.state() != ServerKey::State::Unknown, 30000);
    QCOMPARE(server.state(), LocalServer::State::Listening);
    const int port = settings.serverPort();
    QCOMPARE(request(port, "GET", "/v1/models").status, 200);

    const QString secret = server.randomApiKey();
    QCOMPARE(secret.size(), 32);
    QVERIFY(secret != server.randomApiKey());
    server.saveApiKey(secret);
    QVERIFY(server.hasApiKey());
    QTRY_COMPARE(server.state(), LocalServer::State::Listening);
    QCOMPARE(request(port, "GET", "/v1/models").status, 401);
    QCOMPARE(request(port, "GET", "/v1/models", {}, "wrong-key-0123456789").status, 401);
    QCOMPARE(request(port, "GET", "/v1/models", {}, secret.toStdString()).status, 200);
    // With a key, other machines may connect.
    settings.setServerOnNetwork(true);
    QCOMPARE(server.state(), LocalServer::State::Listening);
    settings.setServerOnNetwork(false);
    server.forgetApiKey();
    QVERIFY(!server.hasApiKey());
    QTRY_COMPARE(request(port, "GET", "/v1/models").status, 200);
}

void TestLocalServer::noModelAndOff()
{
    if (!m_loaded)
        QSKIP("no model");
    AppSettings settings(m_dir.filePath(QStringLiteral("off.ini")));
    settings.setServerPort(freePort());
    settings.setServerEnabled(true);
    LocalServer server(&m_engine, &settings, nullptr);
    const int port = settings.serverPort();
    QSignalSpy unloaded(&m_engine, &EngineHost::modelUnloaded);
    m_engine.unload();
    QTRY_COMPARE(unloaded.count(), 1);
    QVERIFY2(server.statusText().contains(QStringLiteral("load a model")), qPrintable(server.statusText()));
    QCOMPARE(request(port, "GET", "/health").status, 503);
    const Reply refused = request(port, "POST", "/v1/chat/completions", chatBody(2));
    QCOMPARE(refused.status, 503);
    QCOMPARE(QString::fromStdString(refused.json["error"].value("code", "")), QStringLiteral("model_not_loaded"));

    settings.setServerEnabled(false);
    QCOMPARE(server.state(), LocalServer::State::Off);
    QTRY_COMPARE(request(port, "GET", "/health").status, -1); // the port closes as the server winds down
}

APPTEST_MAIN(TestLocalServer)
#include "tst_localserver.moc"
