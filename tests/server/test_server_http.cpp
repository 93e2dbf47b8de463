// The server over real sockets with stories260K: health and the model list, chat and text
// completions whole and streamed (SSE chunks, [DONE], usage with include_usage, finish_reason
// stop and length, stop strings), the reply equal to what the engine's own ChatSession and
// Session give, seeds that repeat a sample, and thinking in reasoning_content.
#include "check.h"
#include "hearth/chat.h"
#include "http_kit.h"
#include "testdata.h"

using namespace hearth;
using test::HttpClient;
using test::Json;

namespace {

constexpr int32_t kContext = 256;
const char* kPrompt = "Once upon a time";

// What the engine itself replies, greedily, to one user message (as the server sets it up).
std::string engineChatReply(const Model& model, const std::string& user, int maxTokens) {
    ChatOptions options;
    options.replyReserveTokens = 1;
    auto chat = ChatSession::create(model, {.contextLength = kContext}, options);
    CHECK_OK(chat);
    if (!chat.isOk()) return {};
    GenerateParams params;
    params.maxTokens = maxTokens;
    auto reply = chat.value()->send(user, params);
    CHECK_OK(reply);
    return reply.isOk() ? reply.value().message.content : std::string();
}

std::string engineCompletion(const Model& model, const std::string& prompt, int maxTokens) {
    auto session = Session::create(model, {.contextLength = kContext});
    CHECK_OK(session);
    if (!session.isOk()) return {};
    GenerateParams params;
    params.maxTokens = maxTokens;
    auto result = session.value()->generate(model.encode(prompt, true), params);
    CHECK_OK(result);
    return result.isOk() ? result.value().text : std::string();
}

void checkUsage(const Json& usage, int completionTokens) {
    CHECK_MSG(usage.is_object(), usage.dump());
    if (!usage.is_object()) return;
    CHECK(usage.value("prompt_tokens", 0) > 0);
    CHECK_EQ(usage.value("completion_tokens", -1), completionTokens);
    CHECK_EQ(usage.value("total_tokens", -1), usage.value("prompt_tokens", 0) + completionTokens);
}

void checkHealthAndModels(HttpClient& http, const std::string& id) {
    const auto health = http.get("/health");
    CHECK_EQ(health.status, 200);
    CHECK_EQ(health.json().value("status", ""), "ok");
    const Json models = http.get("/v1/models").json();
    CHECK_EQ(models.value("object", ""), "list");
    CHECK_MSG(models["data"].size() == 1 && models["data"][0].value("id", "") == id, models.dump());
    CHECK_EQ(models["data"][0].value("object", ""), "model");
    CHECK_EQ(http.get("/v1/models/" + id).json().value("id", ""), id);
    const auto missing = http.get("/v1/models/gpt-4o");
    CHECK_EQ(missing.status, 404);
    CHECK_EQ(missing.json()["error"].value("code", ""), "model_not_found");
}

// Returns the whole reply's text.
std::string checkChat(HttpClient& http, const std::string& id, const std::string& expected) {
    const auto reply = http.post("/v1/chat/completions", test::chatBody(kPrompt, {{"model", id}, {"max_tokens", 8}, {"temperature", 0}}));
    CHECK_EQ(reply.status, 200);
    CHECK_EQ(reply.header("Content-Type"), "application/json");
    const Json j = reply.json();
    CHECK_EQ(j.value("object", ""), "chat.completion");
    CHECK(j.value("id", "").rfind("chatcmpl-", 0) == 0);
    CHECK_EQ(j.value("model", ""), id);
    const Json& choice = j["choices"][0];
    CHECK_EQ(choice["message"].value("role", ""), "assistant");
    const std::string content = choice["message"].value("content", "");
    CHECK_MSG(content == expected, "'" << content << "' is not the engine's '" << expected << "'");
    CHECK(!content.empty());
    CHECK(!choice["message"].contains("reasoning_content")); // no thinking in this template-less model
    CHECK_EQ(choice.value("finish_reason", ""), "length");
    checkUsage(j["usage"], 8);

    // Stop strings: the text ends before the first one, and the reason is "stop".
    const std::string stop = content.substr(content.size() / 2, 3);
    const auto stopped = http.post("/v1/chat/completions",
                                   test::chatBody(kPrompt, {{"max_tokens", 8}, {"temperature", 0}, {"stop", {"zzzz", stop}}}));
    const Json s = stopped.json();
    CHECK_EQ(s["choices"][0].value("finish_reason", ""), "stop");
    CHECK_EQ(s["choices"][0]["message"].value("content", ""), content.substr(0, content.find(stop)));
    return content;
}

void checkChatStream(HttpClient& http, const std::string& whole) {
    for (const bool withUsage : {true, false}) {
        Json extra = {{"max_tokens", 8}, {"temperature", 0}, {"stream", true}};
        if (withUsage) extra["stream_options"] = {{"include_usage", true}};
        const auto reply = http.postStreaming("/v1/chat/completions", test::chatBody(kPrompt, extra),
                                              [](std::string_view) { return true; });
        CHECK_EQ(reply.status, 200);
        CHECK(reply.header("Content-Type").rfind("text/event-stream", 0) == 0);
        const std::vector<std::string> data = test::sseData(reply.body);
        CHECK_MSG(data.size() >= 4 && data.back() == "[DONE]", reply.body);
        if (data.size() < 4) continue;
        std::string text, id, finish;
        Json usage;
        for (size_t i = 0; i + 1 < data.size(); ++i) {
            const Json chunk = Json::parse(data[i], nullptr, false);
            CHECK_EQ(chunk.value("object", ""), "chat.completion.chunk");
            if (id.empty()) id = chunk.value("id", "");
            CHECK_EQ(chunk.value("id", ""), id); // one id for the whole stream
            CHECK_EQ(chunk.contains("usage"), withUsage);
            if (chunk["choices"].empty()) { // the usage chunk, last
                usage = chunk["usage"];
                CHECK_EQ(i + 2, data.size());
                continue;
            }
            const Json& choice = chunk["choices"][0];
            if (i == 0) CHECK_EQ(choice["delta"].value("role", ""), "assistant");
            text += choice["delta"].value("content", "");
            if (!choice["finish_reason"].is_null()) finish = choice["finish_reason"].get<std::string>();
        }
        CHECK_MSG(text == whole, "streamed '" << text << "', whole '" << whole << "'");
        CHECK_EQ(finish, "length");
        if (withUsage) checkUsage(usage, 8);
        else CHECK(usage.is_null());
    }
}

void checkSeeds(HttpClient& http) {
    auto sample = [&](int seed) {
        const Json body = {{"max_tokens", 12}, {"temperature", 1.0}, {"top_k", 0}, {"top_p", 1.0}, {"seed", seed}};
        return http.post("/v1/chat/completions", test::chatBody(kPrompt, body)).json()["choices"][0]["message"].value("content", "");
    };
    const std::string first = sample(42);
    CHECK_EQ(sample(42), first); // the same seed, the same sample
    bool differs = false;        // and other seeds are other samples
    for (int seed = 43; seed < 47 && !differs; ++seed) differs = sample(seed) != first;
    CHECK(differs);
}

void checkCompletions(HttpClient& http, const std::string& expected) {
    const Json body = {{"prompt", kPrompt}, {"max_tokens", 8}, {"temperature", 0}};
    const auto reply = http.post("/v1/completions", body.dump());
    CHECK_EQ(reply.status, 200);
    const Json j = reply.json();
    CHECK_EQ(j.value("object", ""), "text_completion");
    CHECK(j.value("id", "").rfind("cmpl-", 0) == 0);
    CHECK_EQ(j["choices"][0].value("text", ""), expected);
    CHECK_EQ(j["choices"][0].value("finish_reason", ""), "length");
    checkUsage(j["usage"], 8);

    Json streamed = body;
    streamed["stream"] = true;
    streamed["stream_options"] = {{"include_usage", true}};
    const auto sse = http.postStreaming("/v1/completions", streamed.dump(), [](std::string_view) { return true; });
    const std::vector<std::string> data = test::sseData(sse.body);
    CHECK_MSG(data.size() >= 3 && data.back() == "[DONE]", sse.body);
    std::string text;
    for (size_t i = 0; i + 1 < data.size(); ++i) {
        const Json chunk = Json::parse(data[i], nullptr, false);
        CHECK_EQ(chunk.value("object", ""), "text_completion");
        if (!chunk["choices"].empty()) text += chunk["choices"][0].value("text", "");
        else checkUsage(chunk["usage"], 8);
    }
    CHECK_EQ(text, expected);
}

// A template that opens <think> for the reply: everything stories260K writes is thinking.
void checkReasoning(const Model& model) {
    const std::string tmpl = "{% for m in messages %}{{ m.content }}\n{% endfor %}"
                             "{% if add_generation_prompt %}<think>\n{% endif %}";
    test::TestServer thinking(model, {}, kContext, tmpl);
    HttpClient http(thinking.port());
    const Json j = http.post("/v1/chat/completions", test::chatBody(kPrompt, {{"max_tokens", 8}, {"temperature", 0}})).json();
    const Json& message = j["choices"][0]["message"];
    CHECK_MSG(!message.value("reasoning_content", "").empty(), j.dump());
    CHECK_EQ(message.value("content", "x"), "");
    const auto sse = http.postStreaming("/v1/chat/completions",
                                        test::chatBody(kPrompt, {{"max_tokens", 8}, {"temperature", 0}, {"stream", true}}),
                                        [](std::string_view) { return true; });
    std::string reasoning;
    for (const std::string& d : test::sseData(sse.body)) {
        const Json chunk = Json::parse(d, nullptr, false);
        if (chunk.is_object() && !chunk["choices"].empty())
            reasoning += chunk["choices"][0]["delta"].value("reasoning_content", "");
    }
    CHECK_EQ(reasoning, message.value("reasoning_content", ""));
    // A client that sends the thinking back with the history is understood.
    const Json history = {{"max_tokens", 4},
                          {"messages",
                           {{{"role", "user"}, {"content", kPrompt}},
                            {{"role", "assistant"}, {"content", ""}, {"reasoning_content", reasoning}},
                            {{"role", "user"}, {"content", "The end"}}}}};
    CHECK_EQ(http.post("/v1/chat/completions", history.dump()).status, 200);
}

} // namespace

int main() {
    test::announce("server_http", "cpu");
    const Model& model = test::storiesModel();
    const std::string chatExpected = engineChatReply(model, kPrompt, 8);
    const std::string completionExpected = engineCompletion(model, kPrompt, 8);
    test::TestServer server(model, {});
    HttpClient http(server.port());
    const std::string id = server.generator->servedModel()->id;
    CHECK_EQ(id, "stories260K-f32");
    checkHealthAndModels(http, id);
    const std::string whole = checkChat(http, id, chatExpected);
    checkChatStream(http, whole);
    checkSeeds(http);
    checkCompletions(http, completionExpected);
    checkReasoning(model);
    return test::finish();
}
