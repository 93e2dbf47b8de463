// The remote backend's pieces that need no network: the Server-Sent Events parser fed the same
// transcripts cut at every byte (inside "data:", between CR and LF, inside a UTF-8 character),
// byte by byte and all at once, with comments, multi-line data, CR line ends and a byte order
// mark; the chat completions request body a turn makes; chunks as vLLM, llama-server and others
// send them (reasoning under either name, usage on its own chunk or the finish chunk, every error
// shape); the model list; base URLs as users type them; inline <think> tags cut anywhere.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QTest>

#include "baseurl.h"
#include "chatformat.h"
#include "openaiwire.h"
#include "sseparser.h"
#include "thinktags.h"

namespace {

QByteArray fixture(const char* name)
{
    QFile f(QStringLiteral(HEARTH_FIXTURES "/") + QLatin1String(name));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QList<SseEvent> parseWhole(const QByteArray& bytes)
{
    SseParser p;
    QList<SseEvent> out = p.feed(bytes);
    out += p.finish();
    return out;
}

// The stream fed in pieces at `cuts` (ascending offsets).
QList<SseEvent> parseCut(const QByteArray& bytes, const QList<qsizetype>& cuts)
{
    SseParser p;
    QList<SseEvent> out;
    qsizetype from = 0;
    for (qsizetype cut : cuts) {
        out += p.feed(bytes.mid(from, cut - from));
        from = cut;
    }
    out += p.feed(bytes.mid(from));
    out += p.finish();
    return out;
}

QByteArray datas(const QList<SseEvent>& events)
{
    QByteArray out;
    for (const SseEvent& e : events)
        out += e.type + '|' + e.data + '|' + e.id + '\n';
    return out;
}

QJsonObject bodyOf(const TurnRequest& request)
{
    return QJsonDocument::fromJson(openai::chatRequestBody(QStringLiteral("m"), request)).object();
}

} // namespace

class TestRemoteWire : public QObject
{
    Q_OBJECT

private slots:
    void transcriptsCutAtEveryByte_data();
    void transcriptsCutAtEveryByte();
    void randomCutsAndMergedReads();
    void lineEndsCommentsAndFields();
    void finishKeepsACompleteLastEvent();
    void requestBodyMapsTheTurn();
    void chunksOfEachServer();
    void errorShapes();
    void modelList();
    void baseUrls_data();
    void baseUrls();
    void loopbackAndLabels();
    void thinkTagsCutAnywhere();
    void stopSequencesAsTyped();
};

void TestRemoteWire::transcriptsCutAtEveryByte_data()
{
    QTest::addColumn<QByteArray>("name");
    QTest::newRow("vllm") << QByteArray("vllm-reasoning.sse");
    QTest::newRow("llama-server (CRLF)") << QByteArray("llama-server-length.sse");
    QTest::newRow("error") << QByteArray("midstream-error.sse");
}

void TestRemoteWire::transcriptsCutAtEveryByte()
{
    QFETCH(QByteArray, name);
    const QByteArray bytes = fixture(name.constData());
    QVERIFY2(!bytes.isEmpty(), name.constData());
    const QList<SseEvent> whole = parseWhole(bytes);
    QVERIFY(whole.size() >= 4);
    QCOMPARE(whole.constLast().data, QByteArray("[DONE]"));
    for (qsizetype i = 1; i < bytes.size(); ++i)
        QCOMPARE(datas(parseCut(bytes, {i})), datas(whole));
    QList<qsizetype> everyByte;
    for (qsizetype i = 1; i < bytes.size(); ++i)
        everyByte << i;
    QCOMPARE(datas(parseCut(bytes, everyByte)), datas(whole));
    // Every data line is a JSON object or [DONE]; nothing of the comments leaks in.
    for (const SseEvent& e : whole)
        QVERIFY2(e.data == "[DONE]" || QJsonDocument::fromJson(e.data).isObject(), e.data.constData());
}

void TestRemoteWire::randomCutsAndMergedReads()
{
    const QByteArray bytes = fixture("vllm-reasoning.sse") + fixture("llama-server-length.sse");
    const QByteArray expected = datas(parseWhole(bytes));
    QRandomGenerator rng(1234);
    for (int round = 0; round < 300; ++round) {
        QList<qsizetype> cuts;
        for (qsizetype at = rng.bounded(1, 40); at < bytes.size(); at += rng.bounded(1, 90))
            cuts << at;
        QCOMPARE(datas(parseCut(bytes, cuts)), expected);
    }
}

void TestRemoteWire::lineEndsCommentsAndFields()
{
    // A byte order mark, LF, CRLF and lone CR line ends, a keep-alive comment, an event type, an
    // id that carries over, data split over lines, "data" without a space or a colon, a field
    // this parser does not know, and an event with no data (dropped).
    const QByteArray stream = "\xEF\xBB\xBF: keep-alive\n"
                              "data: one\r\n\r\n"
                              "event: error\rid: 7\rdata:two\rdata:  three\r\r"
                              "retry: 100\nunknown: x\n\n"
                              "data\n\n"
                              "event: lonely\n\n"
                              "data: last\n\n";
    const QList<SseEvent> events = parseWhole(stream);
    QCOMPARE(events.size(), 4);
    QCOMPARE(events[0].data, QByteArray("one"));
    QCOMPARE(events[0].type, QByteArray());
    QCOMPARE(events[1].type, QByteArray("error"));
    QCOMPARE(events[1].data, QByteArray("two\n three"));
    QCOMPARE(events[1].id, QByteArray("7"));
    QCOMPARE(events[2].data, QByteArray(""));
    QCOMPARE(events[2].id, QByteArray("7"));
    QCOMPARE(events[3].type, QByteArray()); // "lonely" had no data and does not carry over
    QCOMPARE(events[3].data, QByteArray("last"));
    // A CR at the end of one read and its LF at the start of the next end one line, not two.
    SseParser p;
    QVERIFY(p.feed("data: a\r").isEmpty());
    QVERIFY(p.feed("\ndata: b\r").isEmpty());
    const QList<SseEvent> joined = p.feed("\n\r\n");
    QCOMPARE(joined.size(), 1);
    QCOMPARE(joined[0].data, QByteArray("a\nb"));
}

void TestRemoteWire::finishKeepsACompleteLastEvent()
{
    SseParser p;
    QVERIFY(p.feed("data: {\"a\":1}\n\ndata: [DONE]\n").size() == 1);
    QVERIFY(p.hasPending());
    const QList<SseEvent> last = p.finish();
    QCOMPARE(last.size(), 1);
    QCOMPARE(last[0].data, QByteArray("[DONE]"));
    SseParser cut;
    QVERIFY(cut.feed("data: {\"choices\":[{\"delta\":{\"content\":\"x").isEmpty());
    QVERIFY(cut.finish().isEmpty()); // half a line is not a line
}

void TestRemoteWire::requestBodyMapsTheTurn()
{
    TurnRequest r;
    r.systemPrompt = QStringLiteral("Be brief.");
    r.history = {{QStringLiteral("user"), QStringLiteral("Hi"), {}, {}},
                 {QStringLiteral("assistant"), QStringLiteral("Hello!"), QStringLiteral("thought"), {}}};
    r.userText = QStringLiteral("Capital of France?");
    r.sampling.temperature = 0.6f;
    r.sampling.topK = 20;
    r.sampling.topP = 0.95f;
    r.sampling.minP = 0.05f;
    r.sampling.repetitionPenalty = 1.1f;
    r.sampling.seed = 42;
    r.seedFixed = true;
    r.maxTokens = 300;
    r.stop = {QStringLiteral("\n\n"), QStringLiteral("END")};
    r.thinking = false;
    const QJsonObject body = bodyOf(r);
    QCOMPARE(body.value("model").toString(), QStringLiteral("m"));
    QCOMPARE(body.value("stream").toBool(), true);
    QCOMPARE(body.value("stream_options").toObject().value("include_usage").toBool(), true);
    const QJsonArray messages = body.value("messages").toArray();
    QCOMPARE(messages.size(), 4);
    QCOMPARE(messages[0].toObject().value("role").toString(), QStringLiteral("system"));
    QCOMPARE(messages[2].toObject().value("content").toString(), QStringLiteral("Hello!")); // no thinking
    QCOMPARE(messages[3].toObject().value("content").toString(), r.userText);
    QCOMPARE(body.value("max_tokens").toInt(), 300);
    QVERIFY(qAbs(body.value("temperature").toDouble() - 0.6) < 1e-6);
    QVERIFY(qAbs(body.value("top_p").toDouble() - 0.95) < 1e-6);
    QCOMPARE(body.value("top_k").toInt(), 20);
    QVERIFY(qAbs(body.value("min_p").toDouble() - 0.05) < 1e-6);
    QVERIFY(qAbs(body.value("repetition_penalty").toDouble() - 1.1) < 1e-6);
    QCOMPARE(body.value("seed").toInteger(), 42);
    QCOMPARE(body.value("stop").toArray(), QJsonArray({"\n\n", "END"}));
    QCOMPARE(body.value("chat_template_kwargs").toObject().value("enable_thinking").toBool(true), false);

    // Filters that are off, a drawn seed, no stop text and thinking on stay out of the request.
    TurnRequest plain;
    plain.userText = QStringLiteral("x");
    plain.sampling = hearth::SamplingParams{};
    plain.sampling.seed = 99;
    const QJsonObject defaults = bodyOf(plain);
    for (const char* key : {"top_p", "top_k", "min_p", "repetition_penalty", "seed", "stop", "chat_template_kwargs"})
        QVERIFY2(!defaults.contains(QLatin1String(key)), key);
    QCOMPARE(defaults.value("messages").toArray().size(), 1);
    QCOMPARE(defaults.value("temperature").toDouble(-1), 0.0);
}

void TestRemoteWire::chunksOfEachServer()
{
    auto event = [](const char* json) { return openai::readEvent({{}, QByteArray(json), {}}); };
    QCOMPARE(event(R"({"choices":[{"delta":{"reasoning":"r1"}}]})").reasoning, QStringLiteral("r1"));
    QCOMPARE(event(R"({"choices":[{"delta":{"reasoning_content":"r2"}}]})").reasoning, QStringLiteral("r2"));
    const openai::Chunk role = event(R"({"choices":[{"delta":{"role":"assistant","content":null}}]})");
    QVERIFY(role.content.isEmpty() && role.reasoning.isEmpty() && role.finishReason.isEmpty());
    const openai::Chunk finish = event(R"({"choices":[{"delta":{},"finish_reason":"length"}],
        "usage":{"prompt_tokens":25,"completion_tokens":7},"timings":{"prompt_per_second":625.0,"predicted_per_second":125.5}})");
    QCOMPARE(finish.finishReason, QStringLiteral("length"));
    QCOMPARE(finish.promptTokens, 25);
    QCOMPARE(finish.completionTokens, 7);
    QCOMPARE(finish.promptPerSecond, 625.0);
    QCOMPARE(finish.predictedPerSecond, 125.5);
    const openai::Chunk usage = event(R"({"choices":[],"usage":{"prompt_tokens":18,"completion_tokens":13}})");
    QCOMPARE(usage.completionTokens, 13);
    QVERIFY(usage.error.isEmpty() && !usage.malformed);
    QVERIFY(openai::readEvent({{}, "[DONE]", {}}).done);
    QVERIFY(openai::readEvent({{}, "not json", {}}).malformed);
    // A server that ignored stream:true: one whole completion.
    const openai::Chunk whole = openai::readCompletion(
        R"({"choices":[{"message":{"role":"assistant","content":"Paris.","reasoning_content":"Easy."},"finish_reason":"stop"}],
            "usage":{"prompt_tokens":9,"completion_tokens":3}})");
    QCOMPARE(whole.content, QStringLiteral("Paris."));
    QCOMPARE(whole.reasoning, QStringLiteral("Easy."));
    QVERIFY(whole.done);
}

void TestRemoteWire::errorShapes()
{
    auto error = [](const QByteArray& type, const QByteArray& data) { return openai::readEvent({type, data, {}}).error; };
    QCOMPARE(error({}, R"({"error":{"message":"out of blocks","type":"server_error","code":500}})"), QStringLiteral("out of blocks"));
    QCOMPARE(error({}, R"({"error":"plain words"})"), QStringLiteral("plain words"));
    QCOMPARE(error({}, R"({"object":"error","message":"too long","type":"BadRequestError","code":400})"), QStringLiteral("too long"));
    QCOMPARE(error("error", R"({"code":500,"message":"boom"})"), QStringLiteral(R"({"code":500,"message":"boom"})"));
    QCOMPARE(error("error", "not json at all"), QStringLiteral("not json at all"));
    QVERIFY(error({}, R"({"choices":[{"delta":{"content":"fine"}}]})").isEmpty());
    QCOMPARE(openai::errorMessage(R"({"error":{"message":"Invalid API key","type":"invalid_request_error"}})"),
             QStringLiteral("Invalid API key"));
    QCOMPARE(openai::errorMessage(R"({"detail":"Not Found"})"), QStringLiteral("Not Found"));
    QVERIFY(openai::errorMessage("<html><body>502</body></html>").isEmpty());
}

void TestRemoteWire::modelList()
{
    const openai::ModelList vllm = openai::readModels(R"({"object":"list","data":[
        {"id":"Qwen/Qwen3-8B","object":"model","owned_by":"vllm","max_model_len":40960},
        {"id":"lora-a","object":"model"},{"object":"model"}]})");
    QVERIFY(vllm.error.isEmpty());
    QCOMPARE(vllm.models.size(), 2);
    QCOMPARE(vllm.models[0].id, QStringLiteral("Qwen/Qwen3-8B"));
    QCOMPARE(vllm.models[0].contextLength, 40960);
    QCOMPARE(vllm.models[1].contextLength, 0);
    QCOMPARE(openai::readModels(R"({"error":{"message":"no key"}})").error, QStringLiteral("no key"));
    QVERIFY(!openai::readModels("<html></html>").error.isEmpty());
    QVERIFY(!openai::readModels(R"({"data":{}})").error.isEmpty());
}

void TestRemoteWire::baseUrls_data()
{
    QTest::addColumn<QString>("typed");
    QTest::addColumn<QString>("expected"); // empty: refused
    QTest::newRow("bare host:port") << QStringLiteral("gpu-box:8000") << QStringLiteral("http://gpu-box:8000/v1");
    QTest::newRow("server root") << QStringLiteral("http://localhost:30000/") << QStringLiteral("http://localhost:30000/v1");
    QTest::newRow("v1 kept") << QStringLiteral(" https://example.com/v1/ ") << QStringLiteral("https://example.com/v1");
    QTest::newRow("own prefix") << QStringLiteral("https://example.com/api/v1") << QStringLiteral("https://example.com/api/v1");
    QTest::newRow("endpoint pasted") << QStringLiteral("http://10.0.0.5:8000/v1/chat/completions") << QStringLiteral("http://10.0.0.5:8000/v1");
    QTest::newRow("models pasted") << QStringLiteral("http://[::1]:8080/v1/models") << QStringLiteral("http://[::1]:8080/v1");
    QTest::newRow("upper scheme") << QStringLiteral("HTTP://Host:1/v1") << QStringLiteral("http://host:1/v1");
    QTest::newRow("ftp") << QStringLiteral("ftp://example.com/v1") << QStringLiteral("");
    QTest::newRow("no host") << QStringLiteral("http:///v1") << QStringLiteral("");
    QTest::newRow("credentials") << QStringLiteral("https://user:pw@example.com/v1") << QStringLiteral("");
    QTest::newRow("query") << QStringLiteral("https://example.com/v1?key=1") << QStringLiteral("");
    QTest::newRow("blank") << QStringLiteral("   ") << QStringLiteral("");
    QTest::newRow("spaces") << QStringLiteral("http://exa mple.com") << QStringLiteral("");
}

void TestRemoteWire::baseUrls()
{
    QFETCH(QString, typed);
    QFETCH(QString, expected);
    const remote::BaseUrl url = remote::parseBaseUrl(typed);
    if (expected.isEmpty()) {
        QVERIFY2(!url.error.isEmpty(), qPrintable(url.url.toString()));
        return;
    }
    QVERIFY2(url.error.isEmpty(), qPrintable(url.error));
    QCOMPARE(url.url.toString(), expected);
    QCOMPARE(remote::endpointUrl(url.url, QStringLiteral("chat/completions")).toString(), expected + "/chat/completions");
}

void TestRemoteWire::loopbackAndLabels()
{
    for (const char* host : {"http://localhost:1/v1", "http://127.0.0.1/v1", "http://127.8.9.1/v1", "http://[::1]:2/v1", "http://a.localhost/v1"})
        QVERIFY2(remote::isLoopback(QUrl(QLatin1String(host))), host);
    for (const char* host : {"http://10.0.0.1/v1", "http://gpu-box/v1", "https://example.com/v1", "http://localhost.example.com/v1"})
        QVERIFY2(!remote::isLoopback(QUrl(QLatin1String(host))), host);
    QCOMPARE(remote::hostLabel(QUrl("https://example.com/v1")), QStringLiteral("example.com"));
    QCOMPARE(remote::hostLabel(QUrl("http://gpu-box:8000/v1")), QStringLiteral("gpu-box:8000"));
    QCOMPARE(remote::hostLabel(QUrl("http://[::1]:8080/v1")), QStringLiteral("[::1]:8080"));
}

void TestRemoteWire::thinkTagsCutAnywhere()
{
    struct Case { QString stream, content, reasoning; };
    const QList<Case> cases = {
        {QStringLiteral("\n<think>\nweigh it</think>\n\nThe answer."), QStringLiteral("The answer."), QStringLiteral("\nweigh it")},
        {QStringLiteral("No tags here, <think> later stays."), QStringLiteral("No tags here, <think> later stays."), {}},
        {QStringLiteral("<thin"), QStringLiteral("<thin"), {}},          // ended undecided: it was content
        {QStringLiteral("<think>cut off"), {}, QStringLiteral("cut off")}, // ended while thinking
        {QStringLiteral("<think>a</thin>b</think>c"), QStringLiteral("c"), QStringLiteral("a</thin>b")},
    };
    for (const Case& c : cases) {
        for (qsizetype i = 0; i <= c.stream.size(); ++i) {
            for (qsizetype j = i; j <= c.stream.size(); j += 3) {
                ThinkTags tags;
                QString content, reasoning;
                tags.take(c.stream.left(i), content, reasoning);
                tags.take(c.stream.mid(i, j - i), content, reasoning);
                tags.take(c.stream.mid(j), content, reasoning);
                tags.flush(content, reasoning);
                QCOMPARE(content, c.content);
                QCOMPARE(reasoning, c.reasoning);
            }
        }
    }
}

void TestRemoteWire::stopSequencesAsTyped()
{
    // One a line; \n and \t written as escapes, a backslash doubled; blank lines and repeats dropped.
    const QStringList stop = chat::parseStopText(QStringLiteral("END\n\\n\\n\n\nTab:\\t|\nC:\\\\path\nEND"));
    QCOMPARE(stop, QStringList({QStringLiteral("END"), QStringLiteral("\n\n"), QStringLiteral("Tab:\t|"), QStringLiteral("C:\\path")}));
    QCOMPARE(chat::parseStopText(chat::stopText(stop)), stop);
    QCOMPARE(chat::stopText(stop).count(QLatin1Char('\n')), 3); // one sequence a line
    QJsonObject sampling{{QStringLiteral("stop"), QJsonArray{QStringLiteral("a"), 3, QString()}}};
    QCOMPARE(chat::stopFromJson(sampling), QStringList{QStringLiteral("a")});
    QVERIFY(chat::stopFromJson({}).isEmpty());
}

QTEST_GUILESS_MAIN(TestRemoteWire)
#include "tst_remotewire.moc"
