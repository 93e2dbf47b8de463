#include "runtime/chat_prompt.h"

#include <algorithm>

#include "chat/protected_render.h"

namespace hearth {
namespace {

// A stretch of the rendered text: plain (user-typed: no control tokens) or spliced (the ids
// the model generated for it).
struct Region {
    size_t begin = 0, end = 0;
    const std::vector<int32_t>* ids = nullptr; // null: plain text
};

nlohmann::ordered_json messagesJson(const std::vector<ChatTurn>& turns) {
    nlohmann::ordered_json messages = nlohmann::ordered_json::array();
    for (const ChatTurn& t : turns) {
        if (!t.given.is_null()) {
            messages.push_back(t.given);
            continue;
        }
        nlohmann::ordered_json m = {{"role", t.message.role}, {"content", t.message.content}};
        if (!t.message.reasoning.empty()) m["reasoning_content"] = t.message.reasoning;
        messages.push_back(std::move(m));
    }
    return messages;
}

// Splices each reply whose generated text appears verbatim (outside what users typed) as the
// ids the model generated; the user-controlled ranges are marked plain.
std::vector<Region> findRegions(const chat::ProtectedRender& render, const std::vector<ChatTurn>& turns) {
    std::vector<Region> regions;
    for (const chat::ByteRange& r : render.userRanges) regions.push_back({r.begin, r.end, nullptr});
    auto overlapsUser = [&](size_t begin, size_t end) {
        return std::any_of(render.userRanges.begin(), render.userRanges.end(),
                           [&](const chat::ByteRange& r) { return begin < r.end && r.begin < end; });
    };
    size_t cursor = 0;
    for (const ChatTurn& t : turns) {
        if (t.message.role != "assistant" || t.rawReply.empty() || t.replyIds.empty()) continue;
        size_t at = render.text.find(t.rawReply, cursor);
        while (at != std::string::npos && overlapsUser(at, at + t.rawReply.size()))
            at = render.text.find(t.rawReply, at + 1);
        if (at == std::string::npos) continue;
        regions.push_back({at, at + t.rawReply.size(), &t.replyIds});
        cursor = at + t.rawReply.size();
    }
    std::sort(regions.begin(), regions.end(), [](const Region& a, const Region& b) { return a.begin < b.begin; });
    return regions;
}

std::vector<int32_t> encodeRegions(const Tokenizer& tok, const std::string& text, const std::vector<Region>& regions) {
    std::vector<int32_t> ids;
    size_t done = 0;
    std::vector<TextRange> plain;
    auto flush = [&](size_t end) {
        if (end <= done) return;
        const std::string_view segment = std::string_view(text).substr(done, end - done);
        std::vector<TextRange> local;
        for (const TextRange& r : plain) local.push_back({r.begin - done, r.end - done});
        const std::vector<int32_t> part = tok.encodeWithPlainRanges(segment, false, local);
        ids.insert(ids.end(), part.begin(), part.end());
        plain.clear();
        done = end;
    };
    for (const Region& r : regions) {
        if (r.ids) {
            flush(r.begin);
            ids.insert(ids.end(), r.ids->begin(), r.ids->end());
            done = r.end;
        } else {
            plain.push_back({r.begin, r.end});
        }
    }
    flush(text.size());
    return ids;
}

} // namespace

Result<ChatPrompt> buildChatPrompt(const LoadedModel& model, const chat::ChatTemplate* tmpl,
                                   const std::vector<ChatTurn>& turns, const PromptOptions& options) {
    const Tokenizer& tok = *model.tokenizer;
    ChatPrompt prompt;
    std::vector<Region> regions;
    if (tmpl) {
        chat::RenderOptions render;
        render.addGenerationPrompt = options.addGenerationPrompt;
        render.tools = options.tools;
        render.extraContext["enable_thinking"] = options.enableThinking;
        if (tok.bosId() >= 0) render.bosToken = tok.tokenPiece(tok.bosId());
        if (tok.eosId() >= 0) render.eosToken = tok.tokenPiece(tok.eosId());
        HEARTH_ASSIGN(chat::ProtectedRender rendered, chat::renderProtected(*tmpl, messagesJson(turns), render));
        regions = findRegions(rendered, turns);
        prompt.exact = rendered.exact;
        prompt.text = std::move(rendered.text);
    } else {
        // Completion mode: the conversation is one text that the model continues. A system
        // prompt has no place in it (the model would continue it as if the user had written it).
        for (const ChatTurn& t : turns) {
            if (t.message.role == "system") continue;
            const size_t at = prompt.text.size();
            const bool reply = t.message.role == "assistant" && !t.replyIds.empty();
            const std::string& part = reply ? t.rawReply : t.message.content;
            prompt.text += part;
            regions.push_back({at, prompt.text.size(), reply ? &t.replyIds : nullptr});
        }
    }
    prompt.ids = encodeRegions(tok, prompt.text, regions);
    if (tok.addsBos() && tok.bosId() >= 0 && (prompt.ids.empty() || prompt.ids.front() != tok.bosId()))
        prompt.ids.insert(prompt.ids.begin(), tok.bosId());
    const std::string_view tail = std::string_view(prompt.text).substr(prompt.text.size() - std::min<size_t>(prompt.text.size(), 16));
    const size_t open = tail.rfind("<think>");
    prompt.startsInThinking = tmpl && open != std::string_view::npos && tail.find("</think>", open) == std::string_view::npos;
    return prompt;
}

} // namespace hearth
