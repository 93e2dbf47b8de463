// Conversations with a chat model: the model's own chat template, multi-turn state that reuses
// the KV cache, thinking kept apart from the answer, and a policy for conversations that outgrow
// the context. Qt-free. Ownership: the caller owns the ChatSession; the Model must outlive it.
// Threading: one thread at a time (GenerateParams::cancel may be set from any thread).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hearth/model.h"
#include "hearth/session.h"
#include "hearth/status.h"

namespace hearth {

struct ChatMessage {
    std::string role;      // "system", "user", "assistant", "tool"
    std::string content;   // for an assistant: the answer, thinking excluded
    std::string reasoning; // an assistant's thinking (<think>…</think>), kept in the history
};

enum class OverflowPolicy {
    Refuse,     // a request that no longer fits the context fails with a message
    DropOldest, // the oldest turns go (the system prompt stays) until the request fits
};

struct ChatOptions {
    std::string systemPrompt;            // empty: none; unused in completion mode (no template)
    bool enableThinking = true;          // passed to the template as enable_thinking
    OverflowPolicy overflow = OverflowPolicy::Refuse;
    int32_t replyReserveTokens = 512;    // context kept free for the reply (at most half of it)
    // A Jinja chat template used instead of the model's own (for models whose template is
    // broken or missing); empty: the model's.
    std::string chatTemplate;
};

// Each piece comes with the generation's statistics so far (tokens count thinking too).
struct ChatStream {
    std::function<void(std::string_view text, const GenerateStats& stats)> onContent;   // the answer
    std::function<void(std::string_view text, const GenerateStats& stats)> onReasoning; // the thinking
};

// A message of a stored conversation, for ChatSession::restore.
struct StoredMessage {
    ChatMessage message;
    // An assistant message's generated ids (its ChatReply::result.outputIds) when they were kept:
    // the next prompt then holds exactly the tokens the model produced. Empty: from the text.
    std::vector<int32_t> replyIds;
};

struct ChatReply {
    ChatMessage message;           // the assistant message added to the history
    GenerateResult result;         // ids, stop reason, speeds, reused prompt tokens
    int32_t contextUsed = 0;       // tokens in the session's context after the reply
    int32_t droppedMessages = 0;   // history messages dropped to make room (DropOldest)
};

class ChatSession {
public:
    // Errors: as Session::create; InvalidArgument (a template that does not parse, naming its
    // line; replyReserveTokens < 0).
    static Result<std::unique_ptr<ChatSession>> create(const Model& model, const SessionParams& sessionParams,
                                                       const ChatOptions& options);
    // A session that continues a stored conversation: `history` becomes history() (invalid UTF-8
    // replaced). A leading system message takes the place of options.systemPrompt. Nothing is
    // computed until the next request, which prefills the whole conversation once. Errors: as
    // create; InvalidArgument (an unknown role, a system message after the first, reply ids on a
    // message that is not the assistant's or outside the vocabulary).
    static Result<std::unique_ptr<ChatSession>> restore(const Model& model, const SessionParams& sessionParams,
                                                        const ChatOptions& options,
                                                        const std::vector<StoredMessage>& history);
    ~ChatSession();

    // False when the model has no chat template: then every message is plain text continued
    // by the model (completion mode), and modeNote() says so for the UI.
    bool hasTemplate() const;
    std::string modeNote() const;

    // Adds the user's message (invalid UTF-8 replaced) and generates the reply, which is added
    // to the history unless the request failed. Text the user typed never becomes a control
    // token. Errors: InvalidArgument (empty message), FailedPrecondition (does not fit and the
    // policy is Refuse), template errors, generation errors — the history is then unchanged.
    Result<ChatReply> send(std::string_view userText, const GenerateParams& params, const ChatStream& stream = {});
    // Replaces the last assistant reply with a new one.
    Result<ChatReply> regenerate(const GenerateParams& params, const ChatStream& stream = {});
    // Replaces the last user message (and the reply after it) and generates again.
    Result<ChatReply> editLastUserMessage(std::string_view userText, const GenerateParams& params,
                                          const ChatStream& stream = {});
    // Clears the conversation (the system prompt stays) and the session's state.
    void reset();
    // Replaces the conversation with `history`, as restore reads it (a leading system message
    // takes the place of the options' system prompt), keeping the session's state: the next
    // request processes only what follows the longest common prefix of the tokens the session
    // holds and its prompt. For callers that are handed a whole conversation each time (an
    // OpenAI-style server). Errors: as restore; the history is then unchanged.
    Status setHistory(const std::vector<StoredMessage>& history);

    const std::vector<ChatMessage>& history() const;
    const Session& session() const;
    // The prompt tokens of the last request (for tests and statistics).
    const std::vector<int32_t>& lastPromptIds() const;

private:
    ChatSession();
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// ---- The prompt a chat sends, shown for inspection (hearth-cli template). ----
struct PromptRenderParams {
    // A JSON list of {"role", "content", ...}; every other key (tool_calls, tool_call_id, name,
    // reasoning_content) reaches the template unchanged.
    std::string messagesJson;
    std::string toolsJson;            // a JSON list of tool definitions; empty: none
    bool enableThinking = true;       // the template's enable_thinking
    bool addGenerationPrompt = true;  // end with the opening of the assistant's reply
    std::string chatTemplate;         // a Jinja template used instead of the model's; empty: the model's
};

struct RenderedPrompt {
    std::string text;                 // the prompt as the chat template renders it
    // Its tokens as a chat sends them (BOS when the model adds one): the template's control
    // tokens are tokens, text from the messages never becomes one.
    std::vector<int32_t> ids;
    // False: no template; plain completion mode (the contents joined, system messages left out).
    bool hasTemplate = true;
    // True when `text` is byte-identical to a plain render of the template. False for a template
    // whose output depends on the typed text in a way that cannot be kept apart from its own
    // (then `text` is the safe prompt a chat sends, with the typed strings put back raw).
    bool exact = true;
};

// Renders a conversation exactly as ChatSession builds its prompts. Errors: InvalidArgument
// (messages or tools that are not the expected JSON, naming the place; a template that does not
// parse, naming its line), the template's own errors (raise_exception). Any thread.
Result<RenderedPrompt> renderChatPrompt(const Model& model, const PromptRenderParams& params);

} // namespace hearth
