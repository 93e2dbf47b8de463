// Splits a model's streamed reply into thinking (<think>…</think>) and answer, holding back text
// that might be the start of a tag, so the UI can fold the thinking away as it streams.
#pragma once

#include <string>
#include <string_view>

namespace hearth {

class ThinkingSplitter {
public:
    // `startsInThinking`: the prompt already opened <think> (the reply begins inside it).
    explicit ThinkingSplitter(bool startsInThinking = false);

    struct Pieces {
        std::string reasoning;
        std::string content;
    };
    Pieces push(std::string_view text);
    Pieces flush();

    const std::string& reasoning() const { return m_reasoning; }
    const std::string& content() const { return m_content; }

private:
    enum class State { Start, Thinking, Answer };
    Pieces drain(bool final);

    State m_state;
    std::string m_pending;       // received but not yet assigned
    std::string m_reasoning, m_content;
    bool m_contentStarted = false; // leading blank lines after </think> are dropped
};

} // namespace hearth
