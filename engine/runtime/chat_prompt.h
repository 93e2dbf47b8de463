// Turning a conversation into prompt tokens: render the model's template (or, without one, the
// plain text of the messages), then tokenize so that the template's control tokens are tokens,
// what users typed is plain text, and earlier replies reuse the exact ids the model generated.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "chat/chat_template.h"
#include "hearth/chat.h"
#include "model/model_loader.h"

namespace hearth {

// One message of the history, with what the model produced for it when it is a reply.
struct ChatTurn {
    ChatMessage message;
    std::string rawReply;              // the generated text, thinking tags included
    std::vector<int32_t> replyIds;     // the generated ids (without the stop token)
    // The message as a caller gave it (tool_calls, name, ...), passed to the template unchanged;
    // null: built from `message`.
    nlohmann::ordered_json given;
};

struct PromptOptions {
    bool enableThinking = true;        // the template's enable_thinking
    bool addGenerationPrompt = true;   // end with the opening of the assistant's reply
    nlohmann::ordered_json tools;      // a JSON list of tool definitions; null: none
};

struct ChatPrompt {
    std::string text;
    std::vector<int32_t> ids;
    bool startsInThinking = false;     // the prompt ends inside an opened <think>
    bool exact = true;                 // text is what a plain render of the template gives
};

// `tmpl` null: completion mode. Errors: template errors (with the template line).
Result<ChatPrompt> buildChatPrompt(const LoadedModel& model, const chat::ChatTemplate* tmpl,
                                   const std::vector<ChatTurn>& turns, const PromptOptions& options);

} // namespace hearth
