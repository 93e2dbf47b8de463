// The JSON of OpenAI's responses and Server-Sent Events: chat completions and their chunks, text
// completions and theirs, usage, the model list. Field for field what OpenAI's clients read; the
// thinking of a reply goes in "reasoning_content", as vLLM and llama-server put it. Qt-free.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "hearth/session.h"
#include "server/api_request.h"

namespace hearth::server {

using Json = nlohmann::json;

// What every object of one response repeats.
struct ResponseHead {
    std::string id;           // "chatcmpl-…" or "cmpl-…"
    int64_t created = 0;      // Unix seconds
    std::string model;
    ApiRequest::Kind kind = ApiRequest::Kind::Chat;
};

struct Usage {
    int32_t promptTokens = 0;
    int32_t completionTokens = 0; // thinking included
};

// A fresh response id for `kind`, with 96 random bits.
std::string newResponseId(ApiRequest::Kind kind);

// "stop" for an end-of-generation token or a stop string, "length" for max_tokens or a full
// context, "cancelled" when the client went away (never sent).
const char* finishReason(StopReason reason);

Json usageJson(const Usage& usage);

// A whole reply (stream: false).
Json completionJson(const ResponseHead& head, const std::string& content, const std::string& reasoning,
                     const char* finish, const Usage& usage);

// Stream chunks: the opening one (the assistant role), one per piece of text (`reasoning`: thinking),
// the closing one with the finish reason, and the usage chunk (no choices).
Json openingChunk(const ResponseHead& head, bool includeUsage);
Json textChunk(const ResponseHead& head, const std::string& text, bool reasoning, bool includeUsage);
Json finishChunk(const ResponseHead& head, const char* finish, bool includeUsage);
Json usageChunk(const ResponseHead& head, const Usage& usage);

// GET /v1/models and /v1/models/{id}.
Json modelJson(const std::string& id, int64_t created);
Json modelListJson(const std::string* id, int64_t created);

// One Server-Sent Event carrying `data`, and the stream's last line.
std::string sseEvent(const Json& data);
extern const char* const kSseDone;

// JSON text that never throws: bytes that are not UTF-8 become U+FFFD.
std::string jsonText(const Json& value);

} // namespace hearth::server
