// parseRequest: the body of POST /v1/chat/completions and /v1/completions, field by field.
#include <limits>

#include "server/api_request.h"
#include "server/json_fields.h"
#include "server/request_messages.h"

namespace hearth::server {
namespace {

struct TooDeep {};

FieldError parseJson(std::string_view body, Json& out) {
    try {
        // The parser itself does not recurse, but nothing a client needs nests this deep.
        out = Json::parse(body.begin(), body.end(), [](int depth, Json::parse_event_t, Json&) {
            if (depth > kMaxJsonDepth) throw TooDeep{};
            return true;
        });
    } catch (const TooDeep&) {
        return invalidRequest("the body nests JSON deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    } catch (const Json::exception& e) { // "[json.exception.parse_error.101] parse error at line 1, ..."
        const std::string message = e.what();
        const size_t tag = message.find("] ");
        return invalidRequest("the body is not valid JSON (UTF-8): " +
                              (tag == std::string::npos ? message : message.substr(tag + 2)));
    }
    if (!out.is_object()) return invalidRequest("the body must be a JSON object, got " + jsonExcerpt(out));
    return {};
}

FieldError readStop(const Json& body, std::vector<std::string>& out) {
    const Json* stop = findField(body, "stop");
    if (!stop) return {};
    const ApiError wrongType = invalidRequest("stop: expected a string or a list of at most " +
                                                  std::to_string(kMaxStopStrings) + " non-empty strings, got " +
                                                  jsonExcerpt(*stop),
                                              "stop");
    if (stop->is_string()) {
        if (!stop->get<std::string>().empty()) out.push_back(stop->get<std::string>());
        return {};
    }
    if (!stop->is_array() || stop->size() > kMaxStopStrings) return wrongType;
    for (const Json& s : *stop) {
        if (!s.is_string() || s.get<std::string>().empty()) return wrongType;
        out.push_back(s.get<std::string>());
    }
    return {};
}

FieldError readSampling(const Json& body, SamplingRequest& out) {
    if (auto e = readNumber(body, "temperature", 0, 2, false, out.temperature)) return e;
    if (auto e = readNumber(body, "top_p", 0, 1, true, out.topP)) return e;
    if (auto e = readNumber(body, "min_p", 0, 1, false, out.minP)) return e;
    for (const char* name : {"repetition_penalty", "repeat_penalty"}) // vLLM's and llama-server's names
        if (auto e = readNumber(body, name, 0, 100, true, out.repetitionPenalty)) return e;
    std::optional<int64_t> topK, seed;
    if (auto e = readInteger(body, "top_k", -1, std::numeric_limits<int32_t>::max(), topK)) return e;
    if (topK) out.topK = int32_t(std::max<int64_t>(*topK, 0)); // -1 is vLLM's "off", as 0 is ours
    if (auto e = readInteger(body, "seed", std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), seed))
        return e;
    if (seed) out.seed = uint64_t(*seed);
    // Penalties Hearth's sampler does not have: zero (what clients send by default) is fine.
    for (const char* name : {"presence_penalty", "frequency_penalty"}) {
        std::optional<float> penalty;
        if (auto e = readNumber(body, name, -2, 2, false, penalty)) return e;
        if (penalty && *penalty != 0)
            return invalidRequest(std::string(name) + " is not supported; use repetition_penalty", name);
    }
    return {};
}

FieldError readLength(const Json& body, std::optional<int32_t>& out) {
    for (const char* name : {"max_tokens", "max_completion_tokens"}) { // the newer name wins
        std::optional<int64_t> n;
        if (auto e = readInteger(body, name, 1, std::numeric_limits<int32_t>::max(), n)) return e;
        if (n) out = int32_t(*n);
    }
    return {};
}

FieldError readStreaming(const Json& body, ApiRequest& out) {
    if (auto e = readBool(body, "stream", out.stream)) return e;
    const Json* options = findField(body, "stream_options");
    if (!options) return {};
    if (!options->is_object())
        return invalidRequest("stream_options: expected an object, got " + jsonExcerpt(*options), "stream_options");
    if (auto e = readBool(*options, "include_usage", out.includeUsage))
        return invalidRequest("stream_options." + e->message, "stream_options");
    return {};
}

// What Hearth cannot do is refused, not ignored: one choice, no log probabilities, no tools, text.
FieldError refuseUnsupported(const Json& body) {
    std::optional<int64_t> n, bestOf;
    if (auto e = readInteger(body, "n", 1, 1, n)) return invalidRequest("n: only 1 choice per request is supported", "n");
    if (auto e = readInteger(body, "best_of", 1, 1, bestOf)) return invalidRequest("best_of: only 1 is supported", "best_of");
    if (const Json* l = findField(body, "logprobs"); l && !(l->is_boolean() && !l->get<bool>()) && !(l->is_number() && l->get<double>() == 0))
        return invalidRequest("logprobs are not supported", "logprobs");
    if (const Json* t = findField(body, "tools"); t && !(t->is_array() && t->empty()))
        return invalidRequest("tools are not supported", "tools");
    if (const Json* f = findField(body, "response_format"); f && !(f->is_object() && f->value("type", "") == "text"))
        return invalidRequest("response_format: only {\"type\": \"text\"} is supported", "response_format");
    bool echo = false;
    if (auto e = readBool(body, "echo", echo)) return e;
    if (echo) return invalidRequest("echo is not supported", "echo");
    std::string suffix;
    if (auto e = readString(body, "suffix", suffix)) return e;
    if (!suffix.empty()) return invalidRequest("suffix is not supported", "suffix");
    return {};
}

FieldError readThinking(const Json& body, bool& out) {
    const Json* kwargs = findField(body, "chat_template_kwargs"); // as vLLM and llama-server take it
    if (!kwargs) return {};
    if (!kwargs->is_object())
        return invalidRequest("chat_template_kwargs: expected an object, got " + jsonExcerpt(*kwargs), "chat_template_kwargs");
    if (auto e = readBool(*kwargs, "enable_thinking", out))
        return invalidRequest("chat_template_kwargs." + e->message, "chat_template_kwargs");
    return {};
}

FieldError readPrompt(const Json& body, std::string& out) {
    const Json* prompt = findField(body, "prompt");
    if (prompt && prompt->is_array() && prompt->size() == 1 && (*prompt)[0].is_string()) prompt = &(*prompt)[0];
    if (!prompt || !prompt->is_string())
        return invalidRequest("prompt: required, a string (one prompt per request)", "prompt");
    out = prompt->get<std::string>();
    return {};
}

} // namespace

std::optional<ApiError> parseRequest(std::string_view body, ApiRequest::Kind kind, ApiRequest& out) {
    Json json;
    if (auto e = parseJson(body, json)) return e;
    out = ApiRequest{};
    out.kind = kind;
    if (auto e = readString(json, "model", out.model)) return e;
    if (kind == ApiRequest::Kind::Chat) {
        if (auto e = readMessages(json, out.messages)) return e;
        if (auto e = readThinking(json, out.enableThinking)) return e;
    } else if (auto e = readPrompt(json, out.prompt)) {
        return e;
    }
    if (auto e = readLength(json, out.maxTokens)) return e;
    if (auto e = readSampling(json, out.sampling)) return e;
    if (auto e = readStop(json, out.stop)) return e;
    if (auto e = readStreaming(json, out)) return e;
    return refuseUnsupported(json);
}

} // namespace hearth::server
