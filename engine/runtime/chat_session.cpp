// ChatSession: a conversation on a Session — history, prompt building, overflow policy,
// thinking split, regenerate and edit.
#include <algorithm>
#include <optional>

#include "hearth/chat.h"
#include "runtime/chat_prompt.h"
#include "runtime/model_internal.h"
#include "chat/thinking_splitter.h"
#include "base/utf8.h"
#include "tokenizer/tokenizer.h"

namespace hearth {

struct ChatSession::Impl {
    const Model* model = nullptr;
    ChatOptions options;
    std::optional<chat::ChatTemplate> tmpl;
    std::unique_ptr<Session> session;
    std::vector<ChatTurn> turns;          // the system prompt first, when there is one
    std::vector<ChatMessage> history;     // the messages of `turns`, for callers
    std::vector<int32_t> lastPromptIds;

    void syncHistory() {
        history.clear();
        for (const ChatTurn& t : turns) history.push_back(t.message);
    }
    size_t firstDroppable() const { return !turns.empty() && turns.front().message.role == "system" ? 1 : 0; }

    // Renders and fits the prompt: Refuse fails, DropOldest removes whole turns (a user message
    // and what follows up to the next user message) after the system prompt.
    Result<ChatPrompt> fittedPrompt(std::vector<ChatTurn>& work, int32_t& dropped) {
        // Room for the reply, but never more than half the context (small models, small contexts).
        const int32_t reserve = std::min(options.replyReserveTokens, session->contextLength() / 2);
        const int32_t limit = session->contextLength() - reserve;
        const PromptOptions promptOptions{.enableThinking = options.enableThinking};
        for (;;) {
            HEARTH_ASSIGN(ChatPrompt prompt, buildChatPrompt(loadedModel(*model), tmpl ? &*tmpl : nullptr, work, promptOptions));
            if (int32_t(prompt.ids.size()) <= limit) return prompt;
            const size_t first = firstDroppable();
            const size_t lastUser = work.size() - 1; // the new request always stays
            if (options.overflow == OverflowPolicy::Refuse || first >= lastUser)
                return failedPrecondition("the conversation needs " + std::to_string(prompt.ids.size()) +
                                          " tokens plus " + std::to_string(reserve) +
                                          " for the reply, more than the context of " +
                                          std::to_string(session->contextLength()) +
                                          (options.overflow == OverflowPolicy::Refuse
                                               ? " tokens; start a new chat or let old turns be dropped"
                                               : " tokens even with only the latest message"));
            size_t end = first + 1;
            while (end < lastUser && work[end].message.role != "user") ++end;
            dropped += int32_t(end - first);
            work.erase(work.begin() + first, work.begin() + end);
        }
    }

    // How much of `prompt` is the history alone, before the reply's opening: the next turn's
    // prompt starts the same way even when its template renders this reply differently (Qwen3.5
    // drops the thinking), so a recurrent state saved there can be resumed (0: unknown).
    int32_t historyLength(const std::vector<ChatTurn>& work, const ChatPrompt& prompt) {
        const PromptOptions options{.enableThinking = this->options.enableThinking, .addGenerationPrompt = false};
        auto history = buildChatPrompt(loadedModel(*model), tmpl ? &*tmpl : nullptr, work, options);
        if (!history.isOk()) return 0;
        const auto& ids = history.value().ids;
        const auto diverge = std::mismatch(ids.begin(), ids.end(), prompt.ids.begin(), prompt.ids.end());
        return int32_t(diverge.first - ids.begin());
    }

    // Generates a reply to `work` (which ends with the user's message); on success it becomes
    // the history.
    Result<ChatReply> respond(std::vector<ChatTurn> work, const GenerateParams& params, const ChatStream& stream) {
        ChatReply reply;
        HEARTH_ASSIGN(ChatPrompt prompt, fittedPrompt(work, reply.droppedMessages));
        lastPromptIds = prompt.ids;
        ThinkingSplitter splitter(prompt.startsInThinking);
        GenerateStats last;
        auto deliver = [&](const ThinkingSplitter::Pieces& p, const GenerateStats& stats) {
            last = stats;
            if (!p.reasoning.empty() && stream.onReasoning) stream.onReasoning(p.reasoning, stats);
            if (!p.content.empty() && stream.onContent) stream.onContent(p.content, stats);
        };
        GenerateParams gen = params;
        gen.onText = [&](std::string_view piece, const GenerateStats& stats) { deliver(splitter.push(piece), stats); };
        gen.checkpointAt = historyLength(work, prompt);
        HEARTH_ASSIGN(reply.result, session->generate(prompt.ids, gen));
        deliver(splitter.flush(), last);
        session->markTurnBoundary();
        reply.message = {"assistant", splitter.content(), splitter.reasoning()};
        reply.contextUsed = int32_t(session->cachedTokens().size());
        work.push_back({reply.message, reply.result.text, reply.result.outputIds});
        turns = std::move(work);
        syncHistory();
        return reply;
    }
};

ChatSession::ChatSession() : m_impl(std::make_unique<Impl>()) {}
ChatSession::~ChatSession() = default;

Result<std::unique_ptr<ChatSession>> ChatSession::create(const Model& model, const SessionParams& sessionParams,
                                                         const ChatOptions& options) {
    if (options.replyReserveTokens < 0) return invalidArgument("replyReserveTokens must be >= 0");
    std::unique_ptr<ChatSession> chat(new ChatSession());
    Impl& d = *chat->m_impl;
    d.model = &model;
    d.options = options;
    const bool overridden = !options.chatTemplate.empty();
    const std::string& source = overridden ? options.chatTemplate : loadedModel(model).chatTemplate;
    if (!source.empty()) {
        auto parsed = chat::ChatTemplate::parse(source);
        if (!parsed.isOk())
            return parsed.status().withContext(overridden ? "the chat-template override" : model.info().path + ": chat template");
        d.tmpl = std::move(parsed).value();
    }
    HEARTH_ASSIGN(d.session, Session::create(model, sessionParams));
    if (!options.systemPrompt.empty())
        d.turns.push_back({{"system", utf8::sanitize(options.systemPrompt), {}}, {}, {}});
    d.syncHistory();
    return chat;
}

namespace {

// A stored conversation as turns: roles checked, text made valid UTF-8, reply ids kept with the
// text they decode to (the prompt splices the ids where that text appears).
Result<std::vector<ChatTurn>> storedTurns(const Model& model, const std::vector<StoredMessage>& history) {
    const int32_t vocab = model.info().vocabSize;
    std::vector<ChatTurn> turns;
    for (size_t i = 0; i < history.size(); ++i) {
        const StoredMessage& stored = history[i];
        const std::string& role = stored.message.role;
        const std::string where = "history message " + std::to_string(i) + ": ";
        if (role != "system" && role != "user" && role != "assistant" && role != "tool")
            return invalidArgument(where + "unknown role '" + role + "'; expected system, user, assistant or tool");
        if (role == "system" && i > 0) return invalidArgument(where + "a system message must come first");
        if (!stored.replyIds.empty() && role != "assistant")
            return invalidArgument(where + "only an assistant message has reply ids, not a " + role + " message");
        for (int32_t id : stored.replyIds)
            if (id < 0 || id >= vocab)
                return invalidArgument(where + "reply id " + std::to_string(id) + " is outside the vocabulary of " +
                                       std::to_string(vocab));
        ChatTurn turn{{role, utf8::sanitize(stored.message.content), utf8::sanitize(stored.message.reasoning)}, {}, {}};
        // The generated text is what the ids decode to after a prompt (a leading space kept, as
        // Session streams it).
        if (!stored.replyIds.empty()) {
            const Tokenizer& tok = *loadedModel(model).tokenizer;
            StreamingDetokenizer detok(tok, tok.bosId() == 0 ? 1 : 0); // any id but BOS: not at the start
            for (int32_t id : stored.replyIds) turn.rawReply += detok.push(id);
            turn.rawReply += detok.flush();
            turn.replyIds = stored.replyIds;
        }
        turns.push_back(std::move(turn));
    }
    return turns;
}

} // namespace

Result<std::unique_ptr<ChatSession>> ChatSession::restore(const Model& model, const SessionParams& sessionParams,
                                                          const ChatOptions& options,
                                                          const std::vector<StoredMessage>& history) {
    HEARTH_ASSIGN(std::vector<ChatTurn> turns, storedTurns(model, history));
    ChatOptions effective = options;
    if (!turns.empty() && turns.front().message.role == "system") effective.systemPrompt.clear();
    HEARTH_ASSIGN(auto chat, create(model, sessionParams, effective));
    Impl& d = *chat->m_impl;
    d.turns.insert(d.turns.end(), std::make_move_iterator(turns.begin()), std::make_move_iterator(turns.end()));
    d.syncHistory();
    return chat;
}

Status ChatSession::setHistory(const std::vector<StoredMessage>& history) {
    Impl& d = *m_impl;
    HEARTH_ASSIGN(std::vector<ChatTurn> turns, storedTurns(*d.model, history));
    if ((turns.empty() || turns.front().message.role != "system") && !d.options.systemPrompt.empty())
        turns.insert(turns.begin(), ChatTurn{{"system", utf8::sanitize(d.options.systemPrompt), {}}, {}, {}});
    d.turns = std::move(turns);
    d.syncHistory();
    return Status::ok();
}

bool ChatSession::hasTemplate() const { return m_impl->tmpl.has_value(); }

std::string ChatSession::modeNote() const {
    if (hasTemplate()) return {};
    return "This model has no chat template, so Hearth runs it in plain completion mode: it continues "
           "your text as written instead of answering as a chat assistant.";
}

Result<ChatReply> ChatSession::send(std::string_view userText, const GenerateParams& params, const ChatStream& stream) {
    if (userText.empty()) return invalidArgument("the message is empty");
    std::vector<ChatTurn> work = m_impl->turns;
    work.push_back({{"user", utf8::sanitize(userText), {}}, {}, {}});
    return m_impl->respond(std::move(work), params, stream);
}

Result<ChatReply> ChatSession::regenerate(const GenerateParams& params, const ChatStream& stream) {
    std::vector<ChatTurn> work = m_impl->turns;
    if (work.empty() || work.back().message.role != "assistant")
        return failedPrecondition("there is no reply to regenerate");
    work.pop_back();
    return m_impl->respond(std::move(work), params, stream);
}

Result<ChatReply> ChatSession::editLastUserMessage(std::string_view userText, const GenerateParams& params,
                                                   const ChatStream& stream) {
    if (userText.empty()) return invalidArgument("the message is empty");
    std::vector<ChatTurn> work = m_impl->turns;
    while (!work.empty() && work.back().message.role != "user") work.pop_back();
    if (work.empty()) return failedPrecondition("there is no message to edit");
    work.back().message.content = utf8::sanitize(userText);
    return m_impl->respond(std::move(work), params, stream);
}

void ChatSession::reset() {
    Impl& d = *m_impl;
    d.turns.resize(d.firstDroppable());
    d.syncHistory();
    d.session->reset();
}

const std::vector<ChatMessage>& ChatSession::history() const { return m_impl->history; }
const Session& ChatSession::session() const { return *m_impl->session; }
const std::vector<int32_t>& ChatSession::lastPromptIds() const { return m_impl->lastPromptIds; }

} // namespace hearth
