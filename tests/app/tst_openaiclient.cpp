// The remote backend against a real HTTP server on 127.0.0.1 (httptestserver.h) replaying
// hand-written transcripts of vLLM and llama-server streams (tests/app/fixtures/*.sse) in 29-byte
// pieces: the reply streams live with thinking apart, ends with the server's usage and timings,
// and the request carries the turn and the API key. Then what goes wrong: an error inside the
// stream, 401 with an OpenAI error body, nothing listening, stop mid-stream (the connection is
// closed, the text so far kept), a connection dropped or a stream cut short, an HTML page, a
// silent server (timeout), a server that does not stream at all; and GET /v1/models.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTest>

#include "baseurl.h"
#include "httptestserver.h"
#include "openaiclient.h"
#include "remotebackend.h"

namespace {

constexpr int kWaitMs = 20000;
const QByteArray kKey = "sk-test-0123456789";
const QByteArray kChat = "/v1/chat/completions";
const QByteArray kModels = "/v1/models";

QByteArray fixture(const char* name)
{
    QFile f(QStringLiteral(HEARTH_FIXTURES "/") + QLatin1String(name));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// What a backend said about one reply.
struct Reply {
    bool done = false, ok = false;
    QString content, reasoning; // the pieces, joined
    int pieces = 0;
    QList<ReplyStats> stats;
    ReplyResult result;
    ReplyFailure failure;
};

void follow(ReplyBackend& backend, quint64 id, Reply& r, QObject* context)
{
    QObject::connect(&backend, &ReplyBackend::replyPieces, context,
                     [&r, id](quint64 at, const QString& content, const QString& reasoning, const ReplyStats& s) {
                         if (at != id)
                             return;
                         r.content += content;
                         r.reasoning += reasoning;
                         ++r.pieces;
                         r.stats << s;
                     });
    QObject::connect(&backend, &ReplyBackend::replyFinished, context, [&r, id](quint64 at, const ReplyResult& result) {
        if (at == id)
            r = {true, true, r.content, r.reasoning, r.pieces, r.stats, result, {}};
    });
    QObject::connect(&backend, &ReplyBackend::replyFailed, context, [&r, id](quint64 at, const ReplyFailure& failure) {
        if (at == id)
            r = {true, false, r.content, r.reasoning, r.pieces, r.stats, {}, failure};
    });
}

HttpRoute events(const QByteArray& body)
{
    HttpRoute route;
    route.body = body;
    route.headers = {{"Content-Type", "text/event-stream"}, {"Cache-Control", "no-cache"}};
    route.trickleBytes = 29; // events arrive cut anywhere, reads end mid-line and mid-character
    route.trickleMs = 1;
    return route;
}

HttpRoute json(const QByteArray& body, int status = 0)
{
    HttpRoute route;
    route.body = body;
    route.status = status;
    route.statusBody = status ? body : QByteArray();
    route.headers = {{"Content-Type", "application/json"}};
    return route;
}

// A port on 127.0.0.1 with nothing listening (taken and given back).
quint16 closedPort()
{
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    const quint16 port = probe.serverPort();
    probe.close();
    return port;
}

TurnRequest question()
{
    TurnRequest r;
    r.systemPrompt = QStringLiteral("Answer briefly.");
    r.userText = QStringLiteral("What is the capital of France?");
    r.sampling.temperature = 0.6f;
    r.sampling.topK = 20;
    r.maxTokens = 256;
    return r;
}

} // namespace

class TestOpenAiClient : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void replaysVllmStream();
    void replaysLlamaServerStream();
    void errorInsideTheStreamKeepsThePartialReply();
    void unauthorizedSaysWhy();
    void nothingListening();
    void stopAbortsTheRequest();
    void droppedConnectionKeepsWhatArrived();
    void streamCutShort();
    void webPageInsteadOfAnApi();
    void silentServerTimesOut();
    void serverThatDoesNotStream();
    void listsModels();
    void noConnectionNoReply();

private:
    RemoteConnection connection(const QByteArray& base, const QString& model = QStringLiteral("Qwen/Qwen3-8B")) const;
    void connectBackend(const QByteArray& key = kKey);
    Reply ask(const TurnRequest& request = question());

    std::unique_ptr<HttpTestServer> m_server;
    std::unique_ptr<RemoteBackend> m_backend;
};

void TestOpenAiClient::init()
{
    m_server = std::make_unique<HttpTestServer>();
    QVERIFY(m_server->listen());
    m_backend = std::make_unique<RemoteBackend>();
}

void TestOpenAiClient::cleanup()
{
    m_backend.reset();
    m_server.reset();
}

RemoteConnection TestOpenAiClient::connection(const QByteArray& base, const QString& model) const
{
    RemoteConnection c;
    c.id = QStringLiteral("test");
    c.name = QStringLiteral("Test server");
    c.baseUrl = remote::parseBaseUrl(QString::fromLatin1(base)).url;
    c.model = model;
    return c;
}

void TestOpenAiClient::connectBackend(const QByteArray& key)
{
    m_backend->connectTo(connection(m_server->baseUrl()), key);
}

Reply TestOpenAiClient::ask(const TurnRequest& request)
{
    Reply r;
    QObject context;
    const quint64 id = m_backend->startTurn(request);
    follow(*m_backend, id, r, &context);
    if (!QTest::qWaitFor([&] { return r.done; }, kWaitMs))
        qWarning("the reply did not end");
    return r;
}

void TestOpenAiClient::replaysVllmStream()
{
    m_server->setRoute(kModels, json(R"({"object":"list","data":[{"id":"Qwen/Qwen3-8B","object":"model","max_model_len":40960}]})"));
    m_server->setRoute(kChat, events(fixture("vllm-reasoning.sse")));
    QSignalSpy state(m_backend.get(), &RemoteBackend::stateChanged);
    connectBackend();
    QTRY_COMPARE_WITH_TIMEOUT(m_backend->state(), RemoteBackend::State::Ready, kWaitMs);
    QVERIFY(m_backend->problem().isEmpty());

    QSignalSpy generating(m_backend.get(), &ReplyBackend::generatingChanged);
    const Reply r = ask();
    QVERIFY(r.done);
    QVERIFY2(r.ok, qPrintable(r.failure.error.message));
    const QString answer = QStringLiteral("The capital of France is Paris — «Paris», 巴黎.");
    QCOMPARE(r.result.content, answer);
    QCOMPARE(r.result.reasoning, QStringLiteral("The user asks for the capital of France."));
    QCOMPARE(r.result.stopReason, QStringLiteral("eos"));
    // Streamed live, in more than one piece, and the pieces add up to the reply.
    QVERIFY2(r.pieces > 1, qPrintable(QString::number(r.pieces)));
    QCOMPARE(r.content, answer);
    QCOMPARE(r.reasoning, r.result.reasoning);
    for (int i = 1; i < r.stats.size(); ++i)
        QVERIFY(r.stats[i].tokens >= r.stats[i - 1].tokens && r.stats[i].elapsedMs >= r.stats[i - 1].elapsedMs);
    // The numbers: the server's usage, the model's context from /v1/models, times from the stream.
    QCOMPARE(r.result.stats.tokens, 13);
    QCOMPARE(r.result.stats.promptTokens, 18);
    QCOMPARE(r.result.stats.contextSize, 40960);
    QCOMPARE(r.result.stats.contextUsed, 31);
    QVERIFY(r.result.stats.ttftMs >= 0 && r.result.stats.ttftMs <= r.result.stats.elapsedMs);
    QCOMPARE(r.stats.constFirst().ttftMs, r.result.stats.ttftMs);
    QVERIFY(r.result.stats.decodeTokPerS > 0);
    QCOMPARE(r.result.stats.prefillTokPerS, -1.0); // vLLM does not say
    QCOMPARE(generating.size(), 2);
    QVERIFY(!m_backend->isGenerating());

    // What was sent: the key to this server only, the turn as JSON.
    const QList<HttpHit> chats = m_server->hitsFor(kChat);
    QCOMPARE(chats.size(), 1);
    QCOMPARE(chats[0].method, QByteArray("POST"));
    QCOMPARE(chats[0].authorization, "Bearer " + kKey);
    const QJsonObject body = QJsonDocument::fromJson(chats[0].body).object();
    QCOMPARE(body.value("model").toString(), QStringLiteral("Qwen/Qwen3-8B"));
    QCOMPARE(body.value("stream").toBool(), true);
    QCOMPARE(body.value("stream_options").toObject().value("include_usage").toBool(), true);
    QCOMPARE(body.value("messages").toArray().last().toObject().value("content").toString(), question().userText);
    QCOMPARE(body.value("top_k").toInt(), 20);
    QCOMPARE(m_server->hitsFor(kModels).value(0).authorization, "Bearer " + kKey);
    QCOMPARE(m_backend->origin().source, QStringLiteral("Qwen/Qwen3-8B @ ") + QString::fromLatin1(m_server->baseUrl()) + "/v1");
    QCOMPARE(m_backend->origin().device, QStringLiteral("Test server"));
}

void TestOpenAiClient::replaysLlamaServerStream()
{
    m_server->setRoute(kChat, events(fixture("llama-server-length.sse")));
    connectBackend({});
    const Reply r = ask();
    QVERIFY2(r.ok, qPrintable(r.failure.error.message));
    QCOMPARE(r.result.reasoning, QStringLiteral("Two plus two."));
    QCOMPARE(r.result.content, QStringLiteral("2 + 2 = 4"));
    QCOMPARE(r.result.stopReason, QStringLiteral("length"));
    QCOMPARE(r.result.stats.tokens, 7);
    QCOMPARE(r.result.stats.promptTokens, 25);
    // llama-server's own timings win over what the stream's arrival times suggest.
    QCOMPARE(r.result.stats.prefillTokPerS, 625.0);
    QCOMPARE(r.result.stats.decodeTokPerS, 125.0);
    QCOMPARE(r.result.stats.contextSize, 0); // not known: the stats bar leaves it out
    QVERIFY(m_server->hitsFor(kChat).value(0).authorization.isEmpty()); // no key, no header
}

void TestOpenAiClient::errorInsideTheStreamKeepsThePartialReply()
{
    m_server->setRoute(kChat, events(fixture("midstream-error.sse")));
    connectBackend();
    const Reply r = ask();
    QVERIFY(r.done && !r.ok);
    QCOMPARE(r.failure.content, QStringLiteral("Partial answer"));
    QCOMPARE(r.content, QStringLiteral("Partial answer"));
    QVERIFY2(r.failure.error.message.contains(QStringLiteral("The decoder ran out of KV cache blocks")),
             qPrintable(r.failure.error.message));
    QCOMPARE(r.failure.stats.tokens, 2);
}

void TestOpenAiClient::unauthorizedSaysWhy()
{
    const QByteArray error = R"({"error":{"message":"Invalid API key","type":"invalid_request_error","code":"invalid_api_key"}})";
    m_server->setRoute(kModels, json(error, 401));
    m_server->setRoute(kChat, json(error, 401));
    connectBackend("sk-wrong");
    QTRY_COMPARE_WITH_TIMEOUT(m_backend->state(), RemoteBackend::State::Problem, kWaitMs);
    QVERIFY2(m_backend->problem().contains(QStringLiteral("refused the API key")), qPrintable(m_backend->problem()));
    const Reply r = ask();
    QVERIFY(r.done && !r.ok);
    QVERIFY(r.failure.content.isEmpty());
    QVERIFY2(r.failure.error.message.contains(QStringLiteral("HTTP 401")), qPrintable(r.failure.error.message));
    QVERIFY2(r.failure.error.message.contains(QStringLiteral("Invalid API key")), qPrintable(r.failure.error.message));
    // Without a key, the same answer asks for one.
    connectBackend({});
    const Reply without = ask();
    QVERIFY2(without.failure.error.message.contains(QStringLiteral("needs an API key")), qPrintable(without.failure.error.message));
}

void TestOpenAiClient::nothingListening()
{
    const QByteArray base = "http://127.0.0.1:" + QByteArray::number(closedPort());
    m_backend->connectTo(connection(base), {});
    QTRY_COMPARE_WITH_TIMEOUT(m_backend->state(), RemoteBackend::State::Problem, kWaitMs);
    QVERIFY2(m_backend->problem().contains(QStringLiteral("nothing is listening")), qPrintable(m_backend->problem()));
    const Reply r = ask();
    QVERIFY(r.done && !r.ok);
    QVERIFY2(r.failure.error.message.contains(QStringLiteral("Could not connect to 127.0.0.1:")),
             qPrintable(r.failure.error.message));
}

void TestOpenAiClient::stopAbortsTheRequest()
{
    // The server sends the reply up to the middle of the answer, then holds the connection open.
    const QByteArray body = fixture("vllm-reasoning.sse");
    HttpRoute route = events(body);
    route.stallAfter = body.indexOf("is Paris");
    route.stallTimes = 1;
    m_server->setRoute(kChat, route);
    connectBackend();
    Reply r;
    QObject context;
    const quint64 id = m_backend->startTurn(question());
    follow(*m_backend, id, r, &context);
    QTRY_VERIFY_WITH_TIMEOUT(r.content.contains(QStringLiteral(" of France")), kWaitMs);
    QVERIFY(m_backend->isGenerating());
    QCOMPARE(m_server->stalledConnectionsClosed(), 0);
    m_backend->stop();
    QVERIFY(!r.done); // the end comes after stop() returns, as the engine's does
    QTRY_VERIFY_WITH_TIMEOUT(r.done, kWaitMs);
    QVERIFY(r.ok);
    QCOMPARE(r.result.stopReason, QStringLiteral("cancel"));
    QCOMPARE(r.result.content, QStringLiteral("The capital of France"));
    QCOMPARE(r.result.reasoning, QStringLiteral("The user asks for the capital of France."));
    QVERIFY(!m_backend->isGenerating());
    // The request was aborted: the server sees the stalled stream's connection closed (the pool may
    // keep an idle connection besides, which the server would count as open).
    QTRY_COMPARE_WITH_TIMEOUT(m_server->stalledConnectionsClosed(), 1, kWaitMs);
}

void TestOpenAiClient::droppedConnectionKeepsWhatArrived()
{
    const QByteArray body = fixture("vllm-reasoning.sse");
    HttpRoute route = events(body);
    route.dropAfter = body.indexOf(" — «Paris»");
    route.dropTimes = 1;
    m_server->setRoute(kChat, route);
    connectBackend();
    const Reply r = ask();
    QVERIFY(r.done && !r.ok);
    QCOMPARE(r.failure.content, QStringLiteral("The capital of France is Paris"));
    QVERIFY2(r.failure.error.message.contains(QStringLiteral("What arrived before is kept")), qPrintable(r.failure.error.message));
}

void TestOpenAiClient::streamCutShort()
{
    // A well-formed response that simply ends before the finish reason and [DONE].
    const QByteArray body = fixture("vllm-reasoning.sse");
    m_server->setRoute(kChat, events(body.left(body.indexOf("data: {", body.indexOf(", 巴黎")))));
    connectBackend();
    const Reply r = ask();
    QVERIFY(r.done && !r.ok);
    QCOMPARE(r.failure.content, QStringLiteral("The capital of France is Paris — «Paris», 巴黎"));
    QVERIFY2(r.failure.error.message.contains(QStringLiteral("ended before the reply was complete")),
             qPrintable(r.failure.error.message));
}

void TestOpenAiClient::webPageInsteadOfAnApi()
{
    HttpRoute page;
    page.body = "<!DOCTYPE html><html><body><h1>Welcome to nginx!</h1></body></html>";
    page.headers = {{"Content-Type", "text/html; charset=utf-8"}};
    m_server->setRoute(kChat, page);
    connectBackend();
    const Reply r = ask();
    QVERIFY(r.done && !r.ok);
    QVERIFY2(r.failure.error.message.contains(QStringLiteral("web page")), qPrintable(r.failure.error.message));

    HttpRoute gateway = page;
    gateway.status = 502;
    gateway.statusBody = "<html><body>502 Bad Gateway</body></html>";
    m_server->setRoute(kChat, gateway);
    const Reply bad = ask();
    QVERIFY2(bad.failure.error.message.contains(QStringLiteral("HTTP 502")) &&
                 bad.failure.error.message.contains(QStringLiteral("web page")),
             qPrintable(bad.failure.error.message));
}

void TestOpenAiClient::silentServerTimesOut()
{
    const QByteArray body = fixture("vllm-reasoning.sse");
    HttpRoute route = events(body);
    route.stallAfter = body.indexOf("data: {", body.indexOf("The capital")); // one delta, then silence
    route.stallTimes = 1;
    m_server->setRoute(kChat, route);
    connectBackend();
    m_backend->setTimeoutSeconds(1);
    const Reply r = ask();
    QVERIFY(r.done && !r.ok);
    QCOMPARE(r.failure.content, QStringLiteral("The capital"));
    QVERIFY2(r.failure.error.message.contains(QStringLiteral("sent nothing for 1 seconds")), qPrintable(r.failure.error.message));
    QVERIFY2(r.failure.error.message.contains(QStringLiteral("What arrived before is kept")), qPrintable(r.failure.error.message));
}

void TestOpenAiClient::serverThatDoesNotStream()
{
    m_server->setRoute(kChat, json(R"({"id":"x","object":"chat.completion","choices":[{"index":0,
        "message":{"role":"assistant","content":"<think>Short.</think>\n\nParis."},"finish_reason":"stop"}],
        "usage":{"prompt_tokens":12,"completion_tokens":6}})"));
    connectBackend();
    const Reply r = ask();
    QVERIFY2(r.ok, qPrintable(r.failure.error.message));
    // Inline thinking tags (a server without a reasoning parser) are split off as well.
    QCOMPARE(r.result.content, QStringLiteral("Paris."));
    QCOMPARE(r.result.reasoning, QStringLiteral("Short."));
    QCOMPARE(r.result.stats.tokens, 6);
}

void TestOpenAiClient::listsModels()
{
    OpenAiClient client;
    QList<openai::RemoteModel> models;
    quint64 listedId = 0;
    connect(&client, &OpenAiClient::modelsListed, this, [&](quint64 id, const QList<openai::RemoteModel>& list) {
        listedId = id;
        models = list;
    });
    QSignalSpy failed(&client, &OpenAiClient::modelsFailed);
    const QUrl base = remote::parseBaseUrl(QString::fromLatin1(m_server->baseUrl())).url;
    client.setServer(base, kKey);
    m_server->setRoute(kModels, json(R"({"object":"list","data":[{"id":"a","max_model_len":8192},{"id":"b"}]})"));
    const quint64 id = client.listModels();
    QTRY_COMPARE_WITH_TIMEOUT(listedId, id, kWaitMs);
    QCOMPARE(models.size(), 2);
    QCOMPARE(models[0].id, QStringLiteral("a"));
    QCOMPARE(models[0].contextLength, 8192);
    QCOMPARE(m_server->hitsFor(kModels).constLast().method, QByteArray("GET"));

    auto failure = [&](const HttpRoute& route) {
        m_server->setRoute(kModels, route);
        failed.clear();
        client.listModels();
        return failed.wait(kWaitMs) ? failed[0][1].toString() : QStringLiteral("(no answer)");
    };
    QVERIFY(failure(json(R"({"error":{"message":"Invalid API key"}})", 401)).contains(QStringLiteral("Invalid API key")));
    HttpRoute page;
    page.body = "<html><body>Router login</body></html>";
    page.headers = {{"Content-Type", "text/html"}};
    QVERIFY(failure(page).contains(QStringLiteral("web page")));
    HttpRoute moved;
    moved.redirectTo = "https://elsewhere.example/v1/models";
    const QString redirect = failure(moved);
    QVERIFY2(redirect.contains(QStringLiteral("https://elsewhere.example/v1/models")), qPrintable(redirect));
    QVERIFY(failure(json(R"({"object":"list","data":"nope"})")).contains(QStringLiteral("not a list")));

    client.setServer(remote::parseBaseUrl(QStringLiteral("127.0.0.1:%1").arg(closedPort())).url, {});
    failed.clear();
    client.listModels();
    QVERIFY(failed.wait(kWaitMs));
    QVERIFY(failed[0][1].toString().contains(QStringLiteral("nothing is listening")));
}

void TestOpenAiClient::noConnectionNoReply()
{
    QVERIFY(!m_backend->canReply());
    const Reply r = ask();
    QVERIFY(r.done && !r.ok);
    QVERIFY(!r.failure.error.message.isEmpty());
    QVERIFY(m_server->hits().isEmpty());
}

QTEST_GUILESS_MAIN(TestOpenAiClient)
#include "tst_openaiclient.moc"
