#include "server/model_slot.h"

namespace hearth::server {

ModelSlot::ModelSlot(const SessionParams& params, std::string chatTemplate) : m_params(params) {
    // The request's conversation is the whole truth: no system prompt of our own, nothing dropped;
    // a prompt may take all of the context but one token.
    m_options.overflow = OverflowPolicy::Refuse;
    m_options.replyReserveTokens = 1;
    m_options.chatTemplate = std::move(chatTemplate);
}

Status ModelSlot::useChat(const Model& model, bool enableThinking) {
    if (m_chat && m_model == &model && m_options.enableThinking == enableThinking) return Status::ok();
    reset(); // before the new session allocates, so that both never need to fit
    m_options.enableThinking = enableThinking;
    HEARTH_ASSIGN(m_chat, ChatSession::create(model, m_params, m_options));
    m_model = &model;
    return Status::ok();
}

Status ModelSlot::useRaw(const Model& model) {
    if (m_raw && m_model == &model) return Status::ok();
    reset();
    HEARTH_ASSIGN(m_raw, Session::create(model, m_params));
    m_model = &model;
    return Status::ok();
}

int32_t ModelSlot::contextLength() const {
    const Session* s = session();
    return s ? s->contextLength() : 0;
}

const Session* ModelSlot::session() const {
    if (m_chat) return &m_chat->session();
    return m_raw.get();
}

Result<ChatReply> ModelSlot::chat(const std::vector<StoredMessage>& history, std::string_view userText,
                                  const GenerateParams& params, const ChatStream& stream) {
    if (!m_chat) return failedPrecondition("no chat session: useChat first");
    HEARTH_TRY(m_chat->setHistory(history));
    return m_chat->send(userText, params, stream);
}

Result<GenerateResult> ModelSlot::complete(const std::vector<int32_t>& promptIds, const GenerateParams& params) {
    if (!m_raw) return failedPrecondition("no session: useRaw first");
    return m_raw->generate(promptIds, params);
}

void ModelSlot::reset() {
    m_chat.reset();
    m_raw.reset();
    m_model = nullptr;
}

void ModelSlot::setSessionParams(const SessionParams& params) {
    reset();
    m_params = params;
}

} // namespace hearth::server
