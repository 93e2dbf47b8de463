// The engine worker's ChatSession and the conversation it holds, as the app stores it. A reply
// continues that session when the app's history is what it already holds (send), or that minus
// the last user message and its reply (regenerate, or edit when the text changed: the KV state is
// kept up to the change). Any other history — another conversation, new options, a reloaded
// model — rebuilds the session from the history (ChatSession::restore: one full prefill).
// Engine thread only.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hearth/chat.h"

class ChatState
{
public:
    // Forgets the session (the model it was made on is going away).
    void reset();
    // Makes an empty session when there is none (so a fresh model reports its KV cache), with
    // the options the first reply will most likely ask for.
    hearth::Status ensure(const hearth::Model& model, const hearth::SessionParams& params,
                          const hearth::ChatOptions& options);

    // Generates the reply to `userText` after `history`. `restored` tells whether the session was
    // rebuilt. On failure the session keeps what it held before.
    hearth::Result<hearth::ChatReply> reply(const hearth::Model& model, const hearth::SessionParams& params,
                                            const hearth::ChatOptions& options,
                                            const std::vector<hearth::StoredMessage>& history,
                                            std::string_view userText, const hearth::GenerateParams& generate,
                                            const hearth::ChatStream& stream, bool& restored);

    const hearth::ChatSession* session() const { return m_chat.get(); }

private:
    bool holds(const std::vector<hearth::StoredMessage>& history, size_t extra) const;

    std::unique_ptr<hearth::ChatSession> m_chat;
    hearth::ChatOptions m_options;
    std::vector<hearth::ChatMessage> m_held; // the app's view of the conversation m_chat holds
};
