#include "server/openai_format.h"

#include <random>

namespace hearth::server {
namespace {

bool isChat(const ResponseHead& head) { return head.kind == ApiRequest::Kind::Chat; }

Json base(const ResponseHead& head, bool chunk) {
    const char* object = isChat(head) ? (chunk ? "chat.completion.chunk" : "chat.completion") : "text_completion";
    return {{"id", head.id}, {"object", object}, {"created", head.created}, {"model", head.model},
            {"system_fingerprint", nullptr}};
}

// One choice of a chunk: a chat delta, or a completion's text.
Json chunkChoice(const ResponseHead& head, Json delta, const Json& text, const Json& finish) {
    Json choice = {{"index", 0}, {"logprobs", nullptr}, {"finish_reason", finish}};
    if (isChat(head)) choice["delta"] = std::move(delta);
    else choice["text"] = text;
    return choice;
}

Json chunk(const ResponseHead& head, Json choice, bool includeUsage) {
    Json out = base(head, true);
    out["choices"] = Json::array({std::move(choice)});
    if (includeUsage) out["usage"] = nullptr; // OpenAI: null on every chunk but the last
    return out;
}

} // namespace

const char* const kSseDone = "data: [DONE]\n\n";

std::string newResponseId(ApiRequest::Kind kind) {
    static thread_local std::mt19937_64 rng{std::random_device{}()};
    static const char* digits = "0123456789abcdef";
    std::string id = kind == ApiRequest::Kind::Chat ? "chatcmpl-" : "cmpl-";
    for (int i = 0; i < 24; ++i) id += digits[rng() & 15];
    return id;
}

const char* finishReason(StopReason reason) {
    switch (reason) {
    case StopReason::Eos:
    case StopReason::StopString: return "stop";
    case StopReason::Length:
    case StopReason::Context: return "length";
    case StopReason::Cancel: return "cancelled";
    }
    return "stop";
}

Json usageJson(const Usage& usage) {
    return {{"prompt_tokens", usage.promptTokens},
            {"completion_tokens", usage.completionTokens},
            {"total_tokens", usage.promptTokens + usage.completionTokens}};
}

Json completionJson(const ResponseHead& head, const std::string& content, const std::string& reasoning,
                    const char* finish, const Usage& usage) {
    Json choice = {{"index", 0}, {"logprobs", nullptr}, {"finish_reason", finish}};
    if (isChat(head)) {
        Json message = {{"role", "assistant"}, {"content", content}};
        if (!reasoning.empty()) message["reasoning_content"] = reasoning;
        choice["message"] = std::move(message);
    } else {
        choice["text"] = content;
    }
    Json out = base(head, false);
    out["choices"] = Json::array({std::move(choice)});
    out["usage"] = usageJson(usage);
    return out;
}

Json openingChunk(const ResponseHead& head, bool includeUsage) {
    return chunk(head, chunkChoice(head, {{"role", "assistant"}, {"content", ""}}, "", nullptr), includeUsage);
}

Json textChunk(const ResponseHead& head, const std::string& text, bool reasoning, bool includeUsage) {
    const Json delta = {{reasoning ? "reasoning_content" : "content", text}};
    return chunk(head, chunkChoice(head, delta, text, nullptr), includeUsage);
}

Json finishChunk(const ResponseHead& head, const char* finish, bool includeUsage) {
    return chunk(head, chunkChoice(head, Json::object(), "", finish), includeUsage);
}

Json usageChunk(const ResponseHead& head, const Usage& usage) {
    Json out = base(head, true);
    out["choices"] = Json::array();
    out["usage"] = usageJson(usage);
    return out;
}

Json modelJson(const std::string& id, int64_t created) {
    return {{"id", id}, {"object", "model"}, {"created", created}, {"owned_by", "hearth"}};
}

Json modelListJson(const std::string* id, int64_t created) {
    Json data = Json::array();
    if (id) data.push_back(modelJson(*id, created));
    return {{"object", "list"}, {"data", std::move(data)}};
}

std::string jsonText(const Json& value) { return value.dump(-1, ' ', false, Json::error_handler_t::replace); }

std::string sseEvent(const Json& data) { return "data: " + jsonText(data) + "\n\n"; }

} // namespace hearth::server
