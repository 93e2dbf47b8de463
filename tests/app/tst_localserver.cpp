// The Settings switch that serves the loaded model (app/server/): with the real engine and
// stories260K, LocalServer listens when switched on, lists the model the app loaded and answers
// a chat completion with the reply the app's own chat gives (the requests run on the engine
// thread, between the chat's turns), counts what it answered, reports a port in use and a
// missing key, requires the key once one is saved (no keyring here: kept for the run), says
// when no model is loaded, and closes the port when switched off.
#include <QSignalSpy>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "appsettings.h"
#include "apptestdata.h"
#include "enginetestkit.h"
#include "localserver.h"
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

std::string chatBody(int maxTokens)
{
    return Json{{"messages", {{{"role", "user"}, {"content", kPrompt}}}}, {"max_tokens", maxTokens}, {"temperature", 0}}
        .dump();
}

} // namespace

class TestLocalServer : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void servesTheLoadedModel();
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
