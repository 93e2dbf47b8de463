// Streaming detokenization: token bytes are joined and cut only at character boundaries.
#include "tokenizer/tokenizer.h"
#include "base/utf8.h"

namespace hearth {

StreamingDetokenizer::StreamingDetokenizer(const Tokenizer& tokenizer, int32_t previousId)
    : m_tokenizer(tokenizer), m_previous(previousId) {}

std::string StreamingDetokenizer::push(int32_t id) {
    try {
        std::string bytes = m_tokenizer.tokenBytes(id);
        // A token that adds no text (a control token) leaves m_previous alone, so the first
        // piece with text after "<s></s>..." is still "first" (SentencePiece decodes that way).
        if (bytes.empty()) return {};
        const bool atStart = m_previous < 0 || m_previous == m_tokenizer.bosId();
        // Byte tokens keep their space: the dummy prefix is always the "▁" of a piece.
        if (atStart && m_tokenizer.stripsLeadingSpace() && bytes.front() == ' ' &&
            m_tokenizer.tokenKind(id) != TokenKind::Byte)
            bytes.erase(0, 1);
        m_previous = id;
        m_pending += bytes;

        std::string out;
        size_t pos = 0;
        while (pos < m_pending.size()) {
            const utf8::Step step = utf8::scan(m_pending, pos);
            if (step.kind == utf8::Scan::Incomplete) break; // wait for the next token
            if (step.kind == utf8::Scan::Complete) out.append(m_pending, pos, step.length);
            else out += utf8::kReplacement;
            pos += step.length;
        }
        m_pending.erase(0, pos);
        return out;
    } catch (...) { // allocation only; a lost piece beats an exception through the engine API
        m_pending.clear();
        return {};
    }
}

std::string StreamingDetokenizer::flush() {
    // What is held is always the valid start of one character: one U+FFFD stands for it.
    if (m_pending.empty()) return {};
    m_pending.clear();
    return std::string(utf8::kReplacement);
}

} // namespace hearth
