// The server's pieces without a socket or a model: what a request body becomes (the fields read,
// aliases, content parts, defaults) and what it is refused for; which hosts count as loopback;
// the JSON of the responses and the SSE framing.
#include "check.h"
#include "server/access.h"
#include "server/api_request.h"
#include "server/openai_format.h"

using namespace hearth;
using namespace hearth::server;

namespace {

ApiRequest chat(const std::string& body) {
    ApiRequest r;
    const auto error = parseRequest(body, ApiRequest::Kind::Chat, r);
    CHECK_MSG(!error, body << ": " << (error ? error->message : ""));
    return r;
}

std::string refusal(const std::string& body, ApiRequest::Kind kind = ApiRequest::Kind::Chat) {
    ApiRequest r;
    const auto error = parseRequest(body, kind, r);
    CHECK_MSG(error.has_value(), body << " was accepted");
    if (error) CHECK_EQ(error->status, 400);
    return error ? error->message : std::string();
}

void checkFields() {
    const ApiRequest r = chat(R"({"model": "m", "messages": [
        {"role": "developer", "content": "Be brief."},
        {"role": "user", "content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}]},
        {"role": "assistant", "content": null, "reasoning_content": "hmm"},
        {"role": "user", "content": "go"}],
        "max_tokens": 5, "max_completion_tokens": 7, "temperature": 0.5, "top_p": 0.9, "top_k": -1, "min_p": 0.1,
        "repetition_penalty": 1.1, "seed": -1, "stop": "END", "stream": true,
        "stream_options": {"include_usage": true}, "chat_template_kwargs": {"enable_thinking": false},
        "user": "someone", "presence_penalty": 0, "logprobs": false, "n": 1})");
    CHECK_EQ(r.model, "m");
    CHECK_EQ(r.messages.size(), size_t(4));
    if (r.messages.size() == 4) {
        CHECK_EQ(r.messages[0].role, "system");
        CHECK_EQ(r.messages[1].content, "one\ntwo");
        CHECK_EQ(r.messages[2].content, "");
        CHECK_EQ(r.messages[2].reasoning, "hmm");
    }
    CHECK_EQ(r.maxTokens.value_or(0), 7);
    CHECK_NEAR(r.sampling.temperature.value_or(-1), 0.5, 1e-6);
    CHECK_EQ(r.sampling.topK.value_or(-5), 0);
    CHECK_NEAR(r.sampling.repetitionPenalty.value_or(-1), 1.1, 1e-6);
    CHECK_EQ(r.sampling.seed.value_or(0), ~uint64_t(0));
    CHECK(r.stop == std::vector<std::string>{"END"});
    CHECK(r.stream && r.includeUsage && !r.enableThinking);

    const ApiRequest defaults = chat(R"({"messages": [{"role": "user", "content": "hi"}], "temperature": null})");
    CHECK(!defaults.maxTokens && !defaults.sampling.temperature && !defaults.sampling.seed && !defaults.stream);
    CHECK(defaults.enableThinking);

    ApiRequest completion;
    CHECK(!parseRequest(R"({"prompt": ["Once"], "stop": ["a", "b"]})", ApiRequest::Kind::Completion, completion));
    CHECK_EQ(completion.prompt, "Once");
    CHECK_EQ(completion.stop.size(), size_t(2));
}

void checkRefusals() {
    CHECK(refusal("{").find("not valid JSON") != std::string::npos);
    CHECK(refusal("\"text\"").find("JSON object") != std::string::npos);
    CHECK(refusal(R"({"messages": [{"role": "user", "content": "hi"}], "temperature": "warm"})").find("temperature") == 0);
    CHECK(refusal(R"({"messages": [{"role": "user", "content": "hi"}], "top_k": 1.5})").find("top_k") == 0);
    CHECK(refusal(R"({"messages": [{"role": "user", "content": "hi"}], "stop": ["a", ""]})").find("stop") == 0);
    CHECK(refusal(R"({"messages": [{"role": "user", "content": "hi"}], "stop": ["1","2","3","4","5","6","7","8","9","10","11","12","13","14","15","16","17"]})").find("stop") == 0);
    CHECK(refusal(R"({"messages": [{"role": "user", "content": ""}]})").find("empty") != std::string::npos);
    CHECK(refusal(R"({"messages": [{"role": "assistant", "content": "x", "tool_calls": [{"id": "1"}]}, {"role": "user", "content": "y"}]})")
              .find("tool calls") != std::string::npos);
    CHECK(refusal(R"({"messages": [{"role": "user", "content": "hi"}], "logprobs": true})").find("logprobs") != std::string::npos);
    CHECK(refusal(R"({"messages": [{"role": "user", "content": "hi"}], "response_format": {"type": "json_object"}})")
              .find("response_format") == 0);
    CHECK(refusal(R"({"messages": [{"role": "user", "content": "hi"}], "chat_template_kwargs": {"enable_thinking": 1}})")
              .find("chat_template_kwargs.enable_thinking") == 0);
    CHECK(refusal(R"({"prompt": "x", "echo": true})", ApiRequest::Kind::Completion).find("echo") == 0);
    CHECK(refusal(R"({"prompt": [1, 2]})", ApiRequest::Kind::Completion).find("prompt") == 0);
    CHECK(refusal(std::string(70, '[') + std::string(70, ']')).find("deeper") != std::string::npos);
    CHECK(refusal("{\"messages\": [{\"role\": \"user\", \"content\": \"\xc3\x28\"}]}").find("UTF-8") != std::string::npos);
}

void checkHosts() {
    for (const char* host : {"127.0.0.1", "127.1.2.3", "::1", "localhost", "LOCALHOST", "api.localhost"})
        CHECK_MSG(isLoopbackHost(host), host);
    for (const char* host : {"0.0.0.0", "::", "192.168.1.2", "128.0.0.1", "example.com", "localhost.example.com", ""})
        CHECK_MSG(!isLoopbackHost(host), host);
    for (const char* header : {"localhost:8080", "127.0.0.1", "[::1]:8080", "127.0.0.1:80"})
        CHECK_MSG(loopbackHostHeader(header), header);
    for (const char* header : {"evil.example", "evil.example:8080", "[::2]:80", "", "[::1"})
        CHECK_MSG(!loopbackHostHeader(header), header);
    CHECK(authorized("Bearer k-123456789", "k-123456789"));
    CHECK(authorized("BEARER   k-123456789 ", "k-123456789"));
    CHECK(!authorized("Basic k-123456789", "k-123456789"));
    CHECK(!authorized("Bearer", "k-123456789"));
    CHECK(authorized("", ""));
}

void checkFormats() {
    const ResponseHead head{"chatcmpl-x", 1700000000, "m", ApiRequest::Kind::Chat};
    const Json whole = completionJson(head, "Hi", "thought", "stop", {5, 2});
    CHECK_EQ(whole["choices"][0]["message"]["reasoning_content"], "thought");
    CHECK_EQ(whole["usage"]["total_tokens"], 7);
    CHECK_EQ(whole["created"], 1700000000);
    CHECK(textChunk(head, "a", true, false)["choices"][0]["delta"].contains("reasoning_content"));
    CHECK(textChunk(head, "a", false, true)["usage"].is_null());
    CHECK(!textChunk(head, "a", false, false).contains("usage"));
    CHECK(usageChunk(head, {1, 1})["choices"].empty());
    CHECK_EQ(sseEvent(Json{{"a", 1}}), "data: {\"a\":1}\n\n");
    CHECK_EQ(std::string(finishReason(StopReason::Eos)), "stop");
    CHECK_EQ(std::string(finishReason(StopReason::StopString)), "stop");
    CHECK_EQ(std::string(finishReason(StopReason::Context)), "length");
    CHECK(newResponseId(ApiRequest::Kind::Completion).rfind("cmpl-", 0) == 0);
    CHECK(newResponseId(ApiRequest::Kind::Chat) != newResponseId(ApiRequest::Kind::Chat));
    const ResponseHead text{"cmpl-x", 1, "m", ApiRequest::Kind::Completion};
    CHECK_EQ(textChunk(text, "abc", false, false)["choices"][0]["text"], "abc");
    CHECK_EQ(completionJson(text, "abc", "", "length", {})["object"], "text_completion");
    // Bytes that are not UTF-8 (never produced, but never a throw either) become U+FFFD.
    CHECK_EQ(jsonText(Json("a\xff")), "\"a\xef\xbf\xbd\"");
}

} // namespace

int main() {
    test::announce("server_requests", "cpu");
    checkFields();
    checkRefusals();
    checkHosts();
    checkFormats();
    return test::finish();
}
