// Line-level facts about markdown source (UTF-8) that md4c does not report: where a fenced code
// block opens, and whether the last one is closed yet. Used by MarkdownBlocks only.
#pragma once

#include <QByteArrayView>

class MarkdownSource
{
public:
    explicit MarkdownSource(QByteArrayView utf8) : m_src(utf8) {}

    qsizetype lineStart(qsizetype offset) const;
    qsizetype lineEnd(qsizetype offset) const;
    bool isBlankLine(qsizetype lineStart) const;
    // The start of the last line at or before `offset` with something on it; -1 if none.
    qsizetype lastNonBlankLine(qsizetype offset) const;
    // Up to 3 spaces, then 3 or more `fence` characters; a closing fence has nothing after them.
    bool isFenceLine(qsizetype lineStart, char fence, bool closing) const;

    // The opening fence line of a fenced code block, from where its info string is (-1: none) or
    // else its first content byte (-1: none); -1 when it cannot be told.
    qsizetype fenceStart(char fence, qsizetype infoOffset, qsizetype contentOffset) const;
    // Whether a fenced code block that is the last block has its closing fence; contentEnd is the
    // end of its last content byte (-1: no content).
    bool lastFenceClosed(char fence, qsizetype infoOffset, qsizetype contentEnd) const;

private:
    QByteArrayView m_src;
};
