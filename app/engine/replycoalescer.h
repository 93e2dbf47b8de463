// Gathers a streamed reply's text and hands it on at most once per interval: a queued signal per
// token would flood the GUI thread at thousands of tokens per second, while the screen redraws
// at ~60 Hz. A piece after a quiet interval goes out at once (slow models stay live), and
// flush() always sends what is left. Runs on the engine thread; time checks, no timer (the
// engine call that streams blocks that thread's event loop).
#pragma once

#include <QElapsedTimer>
#include <QString>

#include <functional>
#include <string>
#include <string_view>

#include "enginetypes.h"

class ReplyCoalescer
{
public:
    using Sink = std::function<void(const QString& content, const QString& reasoning, const ReplyStats& stats)>;

    explicit ReplyCoalescer(Sink sink, int intervalMs = 16);

    void addContent(std::string_view text, const ReplyStats& stats);
    void addReasoning(std::string_view text, const ReplyStats& stats);
    // Sends the pending text, if any.
    void flush();

    // All the text so far (what a failed reply keeps).
    const std::string& content() const { return m_content; }
    const std::string& reasoning() const { return m_reasoning; }
    const ReplyStats& lastStats() const { return m_stats; }

private:
    void maybeSend();

    Sink m_sink;
    int m_intervalMs;
    QElapsedTimer m_sinceSend;
    std::string m_content, m_reasoning;
    size_t m_sentContent = 0, m_sentReasoning = 0; // bytes already handed on
    ReplyStats m_stats;
};
