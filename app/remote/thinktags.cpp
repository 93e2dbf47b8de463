#include "thinktags.h"

namespace {

const QString kOpen = QStringLiteral("<think>");
const QString kClose = QStringLiteral("</think>");

// How many characters at the end of `text` could begin `tag`.
qsizetype partialTagAtEnd(const QString& text, const QString& tag)
{
    for (qsizetype n = qMin(text.size(), tag.size() - 1); n > 0; --n) {
        if (QStringView(text).right(n) == QStringView(tag).left(n))
            return n;
    }
    return 0;
}

} // namespace

void ThinkTags::take(const QString& delta, QString& content, QString& reasoning)
{
    m_held += delta;
    if (m_state == State::Start) {
        qsizetype i = 0;
        while (i < m_held.size() && m_held[i].isSpace())
            ++i;
        const QStringView rest = QStringView(m_held).mid(i);
        if (rest.size() < kOpen.size() && QStringView(kOpen).startsWith(rest))
            return; // still undecided
        if (rest.startsWith(kOpen)) {
            m_state = State::Thinking;
            m_held = m_held.mid(i + kOpen.size());
        } else {
            m_state = State::Content;
        }
    }
    if (m_state == State::Thinking) {
        const qsizetype close = m_held.indexOf(kClose);
        if (close < 0) {
            const qsizetype keep = partialTagAtEnd(m_held, kClose);
            reasoning += m_held.left(m_held.size() - keep);
            m_held = m_held.right(keep);
            return;
        }
        reasoning += m_held.left(close);
        m_held = m_held.mid(close + kClose.size());
        m_state = State::Content;
        m_trimNewlines = true;
    }
    // The answer after the thinking conventionally starts after a blank line: not part of it.
    while (m_trimNewlines && !m_held.isEmpty()) {
        if (m_held.front() != QLatin1Char('\n'))
            m_trimNewlines = false;
        else
            m_held.remove(0, 1);
    }
    content += m_held;
    m_held.clear();
}

void ThinkTags::flush(QString& content, QString& reasoning)
{
    (m_state == State::Thinking ? reasoning : content) += m_held;
    m_held.clear();
}
