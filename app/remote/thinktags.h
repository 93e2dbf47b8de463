// A reply's thinking written inline as "<think>…</think>" at the start of the content, as a
// server without a reasoning parser streams it (vLLM or SGLang started without
// --reasoning-parser): moved to the reasoning side while it streams, so it is shown folded as the
// local engine's is. Deltas may cut a tag anywhere; a part that might still become a tag is held
// back until it is decided. Content that does not open with the tag passes through untouched.
#pragma once

#include <QString>

class ThinkTags
{
public:
    // Takes the next content delta; adds to `content` and `reasoning` what is decided.
    void take(const QString& delta, QString& content, QString& reasoning);
    // The stream ended: whatever was held back is content (or reasoning, inside the tags).
    void flush(QString& content, QString& reasoning);

private:
    enum class State { Start, Thinking, Content };
    State m_state = State::Start;
    QString m_held;
    bool m_trimNewlines = false; // newlines right after </think> are dropped
};
