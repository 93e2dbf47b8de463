// The one session a served model keeps, so that memory holds one KV cache: a ChatSession for chat
// requests (each hands over the whole conversation: setHistory keeps what the session already
// computed) or a plain Session for raw completions; switching frees the other first. Qt-free.
// Threading: the model's owner thread only.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hearth/chat.h"
#include "hearth/session.h"

namespace hearth::server {

class ModelSlot {
public:
    // `chatTemplate`: a Jinja template used instead of the model's own; empty: the model's.
    explicit ModelSlot(const SessionParams& params, std::string chatTemplate = {});

    // A chat session on `model` with thinking on or off (made, or remade when it differs).
    // Errors: as ChatSession::create.
    Status useChat(const Model& model, bool enableThinking);
    // A plain session on `model`. Errors: as Session::create.
    Status useRaw(const Model& model);
    // The context of the session in use (0 before the first use*).
    int32_t contextLength() const;
    // The session in use (the chat's or the plain one); null before the first use*.
    const Session* session() const;
    const std::string& chatTemplate() const { return m_options.chatTemplate; }

    // After useChat: the reply to `userText` after `history`. Errors: as setHistory and send.
    Result<ChatReply> chat(const std::vector<StoredMessage>& history, std::string_view userText,
                           const GenerateParams& params, const ChatStream& stream);
    // After useRaw: a continuation of `promptIds`. Errors: as Session::generate.
    Result<GenerateResult> complete(const std::vector<int32_t>& promptIds, const GenerateParams& params);

    // Frees whatever session it holds (the owner needs the memory for something else).
    void reset();
    // The same SessionParams from now on (the owner's settings changed); frees the session.
    void setSessionParams(const SessionParams& params);

private:
    const Model* m_model = nullptr;
    SessionParams m_params;
    ChatOptions m_options;
    std::unique_ptr<ChatSession> m_chat;
    std::unique_ptr<Session> m_raw;
};

} // namespace hearth::server
