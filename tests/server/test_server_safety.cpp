// The server under bad input and hostile conditions, over real sockets with stories260K: the
// issue's every bad input (no messages, stream of a wrong type, 10 MB of JSON, a body that is not
// UTF-8, an unknown model, a wrong API key) and more is a 4xx with an OpenAI error object and the
// server goes on serving; a prompt longer than the context; the API key; a full queue; a client
// that disconnects cancels its generation; binding beyond loopback needs a key; a port in use;
// foreign Host names; CORS only when asked for.
#include <condition_variable>
#include <mutex>
#include <thread>

#include "check.h"
#include "http_kit.h"
#include "server/access.h"
#include "testdata.h"

using namespace hearth;
using test::HttpClient;
using test::Json;

namespace {

// Expects an OpenAI error object with this status (and param / code when given).
void expectError(const test::HttpReply& reply, int status, const std::string& param = {}, const std::string& code = {},
                 const std::string& what = {}) {
    CHECK_MSG(reply.status == status, what << ": status " << reply.status << ", expected " << status << ": " << reply.body);
    const Json j = reply.json();
    CHECK_MSG(j.is_object() && j.contains("error") && j["error"].is_object(), what << ": " << reply.body);
    if (!j.is_object() || !j.contains("error") || !j["error"].is_object()) return;
    const Json& e = j["error"];
    CHECK_MSG(e["message"].is_string() && !e["message"].get<std::string>().empty(), reply.body);
    CHECK_MSG(e["type"].is_string(), reply.body);
    CHECK(e.contains("param") && e.contains("code"));
    if (!param.empty()) CHECK_MSG(e.value("param", "") == param, what << ": " << reply.body);
    if (!code.empty()) CHECK_MSG(e.value("code", "") == code, what << ": " << reply.body);
}

void checkBadInput(HttpClient& http) {
    const char* chat = "/v1/chat/completions";
    expectError(http.post(chat, "{\"messages\": [", "application/json"), 400, {}, {}, "truncated JSON");
    expectError(http.post(chat, "[1, 2]"), 400, {}, {}, "not an object");
    expectError(http.post(chat, "{}"), 400, "messages", {}, "no messages");
    expectError(http.post(chat, R"({"messages": []})"), 400, "messages", {}, "empty messages");
    expectError(http.post(chat, R"({"messages": "hi"})"), 400, "messages", {}, "messages a string");
    expectError(http.post(chat, test::chatBody("hi", {{"stream", "yes"}})), 400, "stream", {}, "stream a string");
    expectError(http.post(chat, test::chatBody("hi", {{"temperature", "hot"}})), 400, "temperature");
    expectError(http.post(chat, test::chatBody("hi", {{"temperature", 7}})), 400, "temperature");
    expectError(http.post(chat, test::chatBody("hi", {{"max_tokens", -1}})), 400, "max_tokens");
    expectError(http.post(chat, test::chatBody("hi", {{"max_tokens", 2.5}})), 400, "max_tokens");
    expectError(http.post(chat, test::chatBody("hi", {{"top_p", 0}})), 400, "top_p");
    expectError(http.post(chat, test::chatBody("hi", {{"seed", "x"}})), 400, "seed");
    expectError(http.post(chat, test::chatBody("hi", {{"stop", 5}})), 400, "stop");
    expectError(http.post(chat, test::chatBody("hi", {{"stream_options", {{"include_usage", "yes"}}}})), 400, "stream_options");
    expectError(http.post(chat, test::chatBody("hi", {{"n", 2}})), 400, "n");
    expectError(http.post(chat, test::chatBody("hi", {{"tools", {{{"type", "function"}}}}})), 400, "tools");
    expectError(http.post(chat, test::chatBody("hi", {{"frequency_penalty", 1}})), 400, "frequency_penalty");
    expectError(http.post(chat, R"({"messages": [{"role": "wizard", "content": "hi"}]})"), 400, "messages");
    expectError(http.post(chat, R"({"messages": [{"role": "user", "content": 7}]})"), 400, "messages");
    expectError(http.post(chat, R"({"messages": [{"role": "user", "content": [{"type": "image_url"}]}]})"), 400, "messages");
    expectError(http.post(chat, R"({"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "x"}]})"),
                400, "messages", {}, "ends with the assistant");
    expectError(http.post(chat, R"({"messages": [{"role": "user", "content": "a"}, {"role": "system", "content": "b"}, {"role": "user", "content": "c"}]})"),
                400, "messages", {}, "late system message");
    expectError(http.post(chat, "{\"messages\": [{\"role\": \"user\", \"content\": \"\xff\xfe caf\xe9\"}]}"), 400, {}, {},
                "not UTF-8");
    expectError(http.post(chat, std::string(100000, '[') + std::string(100000, ']')), 400, {}, {}, "deep nesting");
    expectError(http.post(chat, test::chatBody("hi", {{"model", "gpt-4o"}})), 404, "model", "model_not_found");
    expectError(http.post(chat, test::chatBody("hi"), "text/plain"), 415, {}, {}, "not JSON");
    expectError(http.post("/v1/completions", R"({"prompt": 3})"), 400, "prompt");
    expectError(http.post("/v1/completions", R"({"prompt": ["a", "b"]})"), 400, "prompt");
    expectError(http.get("/v1/nothing"), 404, {}, {}, "no such endpoint");
    // 10 MB of JSON: refused by size, before it is parsed.
    const std::string big = test::chatBody(std::string(10u << 20, 'a'));
    expectError(http.post(chat, big), 413, {}, "body_too_large", "10 MB");
    // After all that, it still answers.
    CHECK_EQ(http.post(chat, test::chatBody("hi", {{"max_tokens", 2}})).status, 200);
}

void checkContextOverflow(HttpClient& http) {
    std::string story;
    for (int i = 0; i < 200; ++i) story += "the little dog ran home. ";
    expectError(http.post("/v1/chat/completions", test::chatBody(story)), 400, "messages", "context_length_exceeded");
    expectError(http.post("/v1/completions", Json{{"prompt", story}}.dump()), 400, "prompt", "context_length_exceeded");
    const Json message = http.post("/v1/completions", Json{{"prompt", story}}.dump()).json();
    CHECK_MSG(message["error"].value("message", "").find("256") != std::string::npos, message.dump()); // names the context
}

void checkApiKey(const Model& model) {
    test::TestServer keyed(model, {.apiKey = "sesame-0123456789"});
    HttpClient none(keyed.port()), wrong(keyed.port(), "sesame-0123456788"), right(keyed.port(), "sesame-0123456789");
    expectError(none.get("/v1/models"), 401, {}, "invalid_api_key", "no key");
    CHECK_EQ(none.get("/v1/models").header("WWW-Authenticate"), "Bearer");
    expectError(wrong.get("/v1/models"), 401, {}, "invalid_api_key", "wrong key");
    expectError(wrong.post("/v1/chat/completions", test::chatBody("hi")), 401, {}, "invalid_api_key", "wrong key, chat");
    CHECK_EQ(right.get("/v1/models").status, 200);
    CHECK_EQ(right.post("/v1/chat/completions", test::chatBody("hi", {{"max_tokens", 2}})).status, 200);
    CHECK_EQ(none.get("/v1/models", {{"Authorization", "bearer sesame-0123456789"}}).status, 200); // scheme: any case
    CHECK_EQ(none.get("/health").status, 200); // health needs no key
    // The comparison itself: equal only when equal, whatever the lengths.
    using server::keysEqual;
    CHECK(keysEqual("sesame-0123456789", "sesame-0123456789"));
    CHECK(!keysEqual("sesame-012345678", "sesame-0123456789"));
    CHECK(!keysEqual("sesame-01234567890", "sesame-0123456789"));
    CHECK(!keysEqual("", "sesame-0123456789"));
    CHECK(!keysEqual("Sesame-0123456789", "sesame-0123456789"));
    CHECK(keysEqual("", ""));
}

// Waits for the generation records the server reports.
struct Records {
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<server::GenerationRecord> all;

    void add(const server::GenerationRecord& r) {
        std::lock_guard lock(mutex);
        all.push_back(r);
        changed.notify_all();
    }
    std::optional<server::GenerationRecord> waitFor(const std::string& id, int seconds) {
        std::unique_lock lock(mutex);
        std::optional<server::GenerationRecord> found;
        changed.wait_for(lock, std::chrono::seconds(seconds), [&] {
            for (const auto& r : all)
                if (r.id == id) found = r;
            return found.has_value();
        });
        return found;
    }
};

// The id of a streamed response (from its first chunk).
std::string streamId(const std::string& body) {
    const auto data = test::sseData(body);
    return data.empty() ? std::string() : Json::parse(data[0], nullptr, false).value("id", "");
}

void checkDisconnect(const Model& model) {
    Records records;
    test::TestServer server(model, {.onGeneration = [&](const server::GenerationRecord& r) { records.add(r); }});
    setTestDecodeDelayMs(20); // 200 tokens would take 4 s
    HttpClient http(server.port());
    int chunks = 0;
    const auto gone = http.postStreaming("/v1/chat/completions",
                                         test::chatBody("Once", {{"max_tokens", 200}, {"stream", true}}),
                                         [&](std::string_view) { return ++chunks < 4; });
    const std::string id = streamId(gone.body);
    const auto start = std::chrono::steady_clock::now();
    const auto record = records.waitFor(id, 10);
    CHECK_MSG(record, "no record of " << id);
    if (record) {
        CHECK_EQ(record->finish, "cancelled");
        CHECK_MSG(record->usage.completionTokens < 100, record->usage.completionTokens << " tokens after the client left");
    }
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(3));
    // A client that gives up on a whole (non-streamed) reply cancels it as well, during the prompt too.
    HttpClient impatient(server.port());
    impatient.setReadTimeoutMs(300);
    impatient.post("/v1/chat/completions", test::chatBody("Once", {{"max_tokens", 200}})); // gives up after 300 ms
    bool cancelled = false;
    for (int i = 0; i < 50 && !cancelled; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        std::lock_guard lock(records.mutex);
        cancelled = records.all.size() == 2 && records.all.back().finish == "cancelled";
    }
    CHECK_MSG(cancelled, "the abandoned whole reply was not cancelled");
    setTestDecodeDelayMs(0);
    // And the next request is served.
    CHECK_EQ(http.post("/v1/chat/completions", test::chatBody("Once", {{"max_tokens", 4}})).status, 200);
}

void checkQueueFull(const Model& model) {
    test::TestServer server(model, {.maxWaiting = 1});
    setTestDecodeDelayMs(20);
    HttpClient running(server.port()), waiting(server.port()), refused(server.port());
    std::atomic<bool> started{false}, release{false};
    std::thread first([&] {
        running.postStreaming("/v1/chat/completions", test::chatBody("Once", {{"max_tokens", 200}, {"stream", true}}),
                              [&](std::string_view) {
                                  started = true;
                                  return !release.load();
                              });
    });
    while (!started) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    int waitingStatus = 0;
    std::thread second([&] { waitingStatus = waiting.post("/v1/chat/completions", test::chatBody("Once", {{"max_tokens", 2}})).status; });
    for (int i = 0; i < 300 && server.api->waiting() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    CHECK_EQ(server.api->waiting(), size_t(1));
    const auto full = refused.post("/v1/chat/completions", test::chatBody("Once", {{"max_tokens", 2}}));
    expectError(full, 503, {}, "server_busy", "queue full");
    CHECK_EQ(full.header("Retry-After"), "1");
    release = true; // the running client leaves; the waiting one gets its turn
    first.join();
    second.join();
    setTestDecodeDelayMs(0);
    CHECK_EQ(waitingStatus, 200);
}

void checkBinding(const Model& model) {
    server::LocalGenerator generator(model, {.contextLength = 64});
    CHECK_ERR(server::ApiServer(generator, {.host = "0.0.0.0", .port = 0}).start(), StatusCode::InvalidArgument, "API key");
    CHECK_ERR(server::ApiServer(generator, {.host = "192.168.1.10", .port = 0}).start(), StatusCode::InvalidArgument,
              "API key");
    CHECK_ERR(server::ApiServer(generator, {.host = "0.0.0.0", .port = 0, .apiKey = "short"}).start(),
              StatusCode::InvalidArgument, "too short");
    CHECK_OK(server::checkBind("127.0.0.1", ""));
    CHECK_OK(server::checkBind("::1", ""));
    CHECK_OK(server::checkBind("localhost", ""));
    CHECK_OK(server::checkBind("0.0.0.0", "a-long-enough-key"));
    // Stopped at once after it started, it stops (the loop has begun by the time start returns).
    for (int i = 0; i < 50; ++i) {
        server::ApiServer quick(generator, {.port = 0});
        CHECK_OK(quick.start());
        quick.stop();
    }
    // A port in use is refused with its name, not shared (no SO_REUSEPORT).
    server::ApiServer first(generator, {.port = 0});
    CHECK_OK(first.start());
    server::ApiServer second(generator, {.port = first.port()});
    CHECK_ERR(second.start(), StatusCode::FailedPrecondition, std::to_string(first.port()));
}

void checkHostAndCors(const Model& model) {
    test::TestServer plain(model, {});
    HttpClient http(plain.port());
    expectError(http.get("/v1/models", {{"Host", "evil.example:8080"}}), 403, {}, {}, "foreign Host");
    CHECK_EQ(http.get("/v1/models", {{"Host", "localhost:1234"}}).status, 200);
    CHECK(http.get("/v1/models").header("Access-Control-Allow-Origin").empty());
    CHECK_EQ(http.options("/v1/chat/completions", {{"Origin", "https://example.com"}}).status, 404);

    test::TestServer open(model, {.cors = true});
    HttpClient cors(open.port());
    const auto preflight = cors.options("/v1/chat/completions", {{"Origin", "https://example.com"},
                                                                  {"Access-Control-Request-Method", "POST"}});
    CHECK_EQ(preflight.status, 204);
    CHECK_EQ(preflight.header("Access-Control-Allow-Origin"), "*");
    CHECK(preflight.header("Access-Control-Allow-Headers").find("Authorization") != std::string::npos);
    CHECK_EQ(cors.get("/v1/models").header("Access-Control-Allow-Origin"), "*");
}

} // namespace

int main() {
    test::announce("server_safety", "cpu");
    const Model& model = test::storiesModel();
    {
        test::TestServer server(model, {});
        HttpClient http(server.port());
        checkBadInput(http);
        checkContextOverflow(http);
    }
    checkApiKey(model);
    checkDisconnect(model);
    checkQueueFull(model);
    checkBinding(model);
    checkHostAndCors(model);
    return test::finish();
}
