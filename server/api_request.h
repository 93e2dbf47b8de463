// A chat or text completion request of OpenAI's API, read and checked: every field Hearth uses has
// the right type and range, and anything it cannot honour is refused rather than ignored. Fields
// it does not know are ignored, as OpenAI's own clients send some (user, metadata). Qt-free.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hearth/chat.h"
#include "server/api_error.h"

namespace hearth::server {

// The sampling a request asks for; an empty field was not given (the model's recommendation, else
// the chat defaults, apply).
struct SamplingRequest {
    std::optional<float> temperature, topP, minP, repetitionPenalty;
    std::optional<int32_t> topK;
    std::optional<uint64_t> seed;
};

struct ApiRequest {
    enum class Kind { Chat, Completion };
    Kind kind = Kind::Chat;
    std::string model;                 // empty: not given
    // Chat: the conversation; the last message is the user's (a leading "developer" message is
    // read as the system message).
    std::vector<ChatMessage> messages;
    std::string prompt;                // Completion: the text to continue, as given
    bool enableThinking = true;        // chat_template_kwargs.enable_thinking
    std::optional<int32_t> maxTokens;  // max_tokens / max_completion_tokens; empty: the rest of the context
    SamplingRequest sampling;
    std::vector<std::string> stop;
    bool stream = false;
    bool includeUsage = false;         // stream_options.include_usage
};

// Body limits that are not about bytes (the HTTP layer limits those).
constexpr int kMaxJsonDepth = 64;
constexpr size_t kMaxStopStrings = 16;

// Reads a POST /v1/chat/completions or /v1/completions body. An error names the field and what it
// accepts: malformed JSON or text that is not UTF-8, nesting deeper than kMaxJsonDepth, a field of
// the wrong type or out of range, no messages, a last message that is not the user's, features
// Hearth does not offer (tools, n > 1, logprobs, images).
std::optional<ApiError> parseRequest(std::string_view body, ApiRequest::Kind kind, ApiRequest& out);

} // namespace hearth::server
