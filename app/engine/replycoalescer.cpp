#include "replycoalescer.h"

ReplyCoalescer::ReplyCoalescer(Sink sink, int intervalMs)
    : m_sink(std::move(sink))
    , m_intervalMs(intervalMs)
{
    m_sinceSend.start();
}

void ReplyCoalescer::addContent(std::string_view text, const ReplyStats& stats)
{
    m_content.append(text);
    m_stats = stats;
    maybeSend();
}

void ReplyCoalescer::addReasoning(std::string_view text, const ReplyStats& stats)
{
    m_reasoning.append(text);
    m_stats = stats;
    maybeSend();
}

void ReplyCoalescer::maybeSend()
{
    if (m_sinceSend.elapsed() >= m_intervalMs)
        flush();
}

void ReplyCoalescer::flush()
{
    if (m_sentContent == m_content.size() && m_sentReasoning == m_reasoning.size())
        return;
    // The engine hands on whole UTF-8 characters, so every cut here is a character boundary.
    const QString content = QString::fromUtf8(m_content.data() + m_sentContent, qsizetype(m_content.size() - m_sentContent));
    const QString reasoning =
        QString::fromUtf8(m_reasoning.data() + m_sentReasoning, qsizetype(m_reasoning.size() - m_sentReasoning));
    m_sentContent = m_content.size();
    m_sentReasoning = m_reasoning.size();
    m_sinceSend.restart();
    m_sink(content, reasoning, m_stats);
}
