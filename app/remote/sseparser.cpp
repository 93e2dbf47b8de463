#include "sseparser.h"

QList<SseEvent> SseParser::feed(const QByteArray& bytes)
{
    QList<SseEvent> out;
    for (const char c : bytes) {
        if (c == '\n' && m_afterCr) {
            m_afterCr = false; // the LF of a CRLF
            continue;
        }
        m_afterCr = c == '\r';
        if (c == '\r' || c == '\n') {
            takeLine(m_line, out);
            m_line.clear();
        } else {
            m_line += c;
        }
    }
    return out;
}

QList<SseEvent> SseParser::finish()
{
    QList<SseEvent> out;
    m_line.clear(); // cut off by the end: not a line
    dispatch(out);
    m_type.clear();
    return out;
}

void SseParser::takeLine(const QByteArray& raw, QList<SseEvent>& out)
{
    QByteArray line = raw;
    if (!m_started) {
        m_started = true;
        if (line.startsWith("\xEF\xBB\xBF"))
            line.remove(0, 3);
    }
    if (line.isEmpty()) {
        dispatch(out);
        m_type.clear();
        return;
    }
    if (line.startsWith(':'))
        return; // a comment
    const qsizetype colon = line.indexOf(':');
    const QByteArray field = colon < 0 ? line : line.left(colon);
    QByteArray value = colon < 0 ? QByteArray() : line.mid(colon + 1);
    if (value.startsWith(' '))
        value.remove(0, 1);
    if (field == "data") {
        if (m_hasData)
            m_data += '\n';
        m_data += value;
        m_hasData = true;
    } else if (field == "event") {
        m_type = value;
    } else if (field == "id" && !value.contains('\0')) {
        m_id = value;
    }
}

void SseParser::dispatch(QList<SseEvent>& out)
{
    // An event with no data line is dropped; its type does not carry over.
    if (m_hasData)
        out.append({m_type, m_data, m_id});
    m_data.clear();
    m_hasData = false;
}
