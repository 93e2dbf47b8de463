#include "chatstate.h"

namespace {

bool sameMessage(const hearth::ChatMessage& a, const hearth::ChatMessage& b)
{
    return a.role == b.role && a.content == b.content && a.reasoning == b.reasoning;
}

bool sameOptions(const hearth::ChatOptions& a, const hearth::ChatOptions& b)
{
    return a.systemPrompt == b.systemPrompt && a.enableThinking == b.enableThinking && a.overflow == b.overflow &&
           a.replyReserveTokens == b.replyReserveTokens && a.chatTemplate == b.chatTemplate;
}

} // namespace

void ChatState::reset()
{
    m_chat.reset();
    m_held.clear();
}

hearth::Status ChatState::ensure(const hearth::Model& model, const hearth::SessionParams& params,
                                 const hearth::ChatOptions& options)
{
    if (m_chat)
        return hearth::Status::ok();
    m_options = options;
    m_held.clear();
    HEARTH_ASSIGN(m_chat, hearth::ChatSession::create(model, params, m_options));
    return hearth::Status::ok();
}

// Whether the session holds `history` followed by `extra` more messages.
bool ChatState::holds(const std::vector<hearth::StoredMessage>& history, size_t extra) const
{
    if (m_held.size() != history.size() + extra)
        return false;
    for (size_t i = 0; i < history.size(); ++i)
        if (!sameMessage(m_held[i], history[i].message))
            return false;
    return true;
}

hearth::Result<hearth::ChatReply> ChatState::reply(const hearth::Model& model, const hearth::SessionParams& params,
                                                   const hearth::ChatOptions& options,
                                                   const std::vector<hearth::StoredMessage>& history,
                                                   std::string_view userText, const hearth::GenerateParams& generate,
                                                   const hearth::ChatStream& stream, bool& restored)
{
    restored = false;
    const bool sameSession = m_chat && sameOptions(options, m_options);
    const bool rewind = sameSession && holds(history, 2) && m_held[history.size()].role == "user" &&
                        m_held[history.size() + 1].role == "assistant";
    auto result = [&]() -> hearth::Result<hearth::ChatReply> {
        if (sameSession && holds(history, 0))
            return m_chat->send(userText, generate, stream);
        if (rewind && m_held[history.size()].content == userText)
            return m_chat->regenerate(generate, stream);
        if (rewind)
            return m_chat->editLastUserMessage(userText, generate, stream);
        // Freed before the new session allocates its KV cache, so both never need to fit.
        reset();
        restored = true;
        m_options = options;
        HEARTH_ASSIGN(m_chat, hearth::ChatSession::restore(model, params, options, history));
        for (const hearth::StoredMessage& stored : history)
            m_held.push_back(stored.message);
        return m_chat->send(userText, generate, stream);
    }();
    if (!result.isOk())
        return result;
    m_held.resize(history.size());
    m_held.push_back({"user", std::string(userText), {}});
    m_held.push_back(result->message);
    return result;
}
