#include "markdownsource.h"

namespace {

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

} // namespace

qsizetype MarkdownSource::lineStart(qsizetype offset) const
{
    while (offset > 0 && m_src[offset - 1] != '\n')
        --offset;
    return offset;
}

qsizetype MarkdownSource::lineEnd(qsizetype offset) const
{
    while (offset < m_src.size() && m_src[offset] != '\n')
        ++offset;
    return offset;
}

bool MarkdownSource::isBlankLine(qsizetype lineStart) const
{
    for (qsizetype i = lineStart, end = lineEnd(lineStart); i < end; ++i) {
        if (!isSpace(m_src[i]))
            return false;
    }
    return true;
}

qsizetype MarkdownSource::lastNonBlankLine(qsizetype offset) const
{
    for (qsizetype line = lineStart(offset);; line = lineStart(line - 1)) {
        if (!isBlankLine(line))
            return line;
        if (line == 0)
            return -1;
    }
}

bool MarkdownSource::isFenceLine(qsizetype lineStart, char fence, bool closing) const
{
    const qsizetype end = lineEnd(lineStart);
    qsizetype i = lineStart;
    while (i < end && i - lineStart < 3 && m_src[i] == ' ')
        ++i;
    const qsizetype run = i;
    while (i < end && m_src[i] == fence)
        ++i;
    if (i - run < 3)
        return false;
    while (closing && i < end && isSpace(m_src[i]))
        ++i;
    return !closing || i == end;
}

qsizetype MarkdownSource::fenceStart(char fence, qsizetype infoOffset, qsizetype contentOffset) const
{
    if (infoOffset >= 0) {
        const qsizetype line = lineStart(infoOffset);
        return isFenceLine(line, fence, false) ? line : -1;
    }
    if (contentOffset < 0)
        return -1;
    // Content starts on a line below the opening fence, blank lines between.
    for (qsizetype line = lineStart(contentOffset); line > 0;) {
        const qsizetype previous = lineStart(line - 1);
        if (isFenceLine(previous, fence, false))
            return previous;
        if (!isBlankLine(previous))
            return -1;
        line = previous;
    }
    return -1;
}

bool MarkdownSource::lastFenceClosed(char fence, qsizetype infoOffset, qsizetype contentEnd) const
{
    const qsizetype last = lastNonBlankLine(m_src.size());
    if (last < 0 || !isFenceLine(last, fence, true))
        return false;
    if (contentEnd >= 0)
        return last >= contentEnd;
    if (infoOffset >= 0)
        return last > infoOffset;
    // No content and no info: the opening fence is the previous non-blank line.
    const qsizetype opening = last > 0 ? lastNonBlankLine(last - 1) : -1;
    return opening >= 0 && isFenceLine(opening, fence, false);
}
