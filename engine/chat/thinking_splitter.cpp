#include "chat/thinking_splitter.h"

#include <algorithm>

namespace hearth {
namespace {

constexpr std::string_view kOpen = "<think>";
constexpr std::string_view kClose = "</think>";

// Length of the longest suffix of `text` that is a proper prefix of `tag`.
size_t partialTagSuffix(std::string_view text, std::string_view tag) {
    for (size_t len = std::min(tag.size() - 1, text.size()); len > 0; --len)
        if (text.substr(text.size() - len) == tag.substr(0, len)) return len;
    return 0;
}

} // namespace

ThinkingSplitter::ThinkingSplitter(bool startsInThinking)
    : m_state(startsInThinking ? State::Thinking : State::Start) {}

ThinkingSplitter::Pieces ThinkingSplitter::push(std::string_view text) {
    m_pending.append(text);
    return drain(false);
}

ThinkingSplitter::Pieces ThinkingSplitter::flush() { return drain(true); }

ThinkingSplitter::Pieces ThinkingSplitter::drain(bool final) {
    Pieces out;
    for (;;) {
        if (m_state == State::Start) {
            // Thinking only counts at the very start of the reply (after white space).
            const size_t first = m_pending.find_first_not_of(" \t\r\n");
            if (first == std::string::npos) {
                if (!final) return out;
                m_state = State::Answer;
                m_contentStarted = true;
                continue;
            }
            const std::string_view rest = std::string_view(m_pending).substr(first);
            if (rest.substr(0, kOpen.size()) == kOpen) {
                m_pending.erase(0, first + kOpen.size());
                m_state = State::Thinking;
                continue;
            }
            if (!final && kOpen.substr(0, rest.size()) == rest) return out; // maybe "<thi"
            m_state = State::Answer;
            m_contentStarted = true; // no thinking: the reply is kept exactly as generated
            continue;
        }
        if (m_state == State::Thinking) {
            const size_t close = m_pending.find(kClose);
            // Without the closing tag yet, hold back what may start it and the newlines before
            // it ("<think>\n…\n</think>": those newlines are layout, not thinking).
            size_t take = close;
            if (close == std::string::npos) {
                take = final ? m_pending.size() : m_pending.size() - partialTagSuffix(m_pending, kClose);
            }
            size_t end = take;
            while (end > 0 && m_pending[end - 1] == '\n') --end;
            if (close == std::string::npos && final) end = take;
            size_t begin = 0;
            if (m_reasoning.empty())
                while (begin < end && m_pending[begin] == '\n') ++begin;
            const std::string part = m_pending.substr(begin, end - begin);
            m_reasoning += part;
            out.reasoning += part;
            if (close != std::string::npos) {
                m_pending.erase(0, close + kClose.size());
                m_state = State::Answer;
                continue;
            }
            m_pending.erase(0, end);
            return out;
        }
        // Answer: everything goes through, except blank lines right after </think>.
        if (!m_contentStarted) {
            const size_t first = m_pending.find_first_not_of('\n');
            if (first == std::string::npos) {
                m_pending.clear();
                return out;
            }
            m_pending.erase(0, first);
            m_contentStarted = true;
        }
        m_content += m_pending;
        out.content += m_pending;
        m_pending.clear();
        return out;
    }
}

} // namespace hearth
