// Server-Sent Events (the WHATWG "event stream" format) read incrementally: bytes go in as the
// network hands them over, split anywhere (inside a line, between CR and LF, inside a UTF-8
// character) or with many events in one read, and whole events come out. Lines end in LF, CRLF or
// CR; a line starting with ':' is a comment (a keep-alive); "data" lines join with LF; "event" and
// "id" are kept; an unknown field is ignored, as the format says. Plain C++ and QByteArray.
#pragma once

#include <QByteArray>
#include <QList>

struct SseEvent {
    QByteArray type; // the "event" field; empty means "message"
    QByteArray data; // the data lines joined with LF (UTF-8 as sent)
    QByteArray id;   // the last "id" seen (it carries over to later events)
};

class SseParser
{
public:
    // Takes the next bytes and returns the events they complete, in order.
    QList<SseEvent> feed(const QByteArray& bytes);
    // The stream has ended: an event whose last line was complete but had no blank line after it
    // is returned too (the format would drop it; a server that closes right after its last data
    // line still meant it). A line cut off by the end is dropped.
    QList<SseEvent> finish();
    // Bytes held back: an unfinished line or event.
    bool hasPending() const { return !m_line.isEmpty() || m_hasData || !m_type.isEmpty(); }

private:
    void takeLine(const QByteArray& line, QList<SseEvent>& out);
    void dispatch(QList<SseEvent>& out);

    QByteArray m_line;      // the current line so far
    bool m_afterCr = false; // the last byte was CR: an LF right after it ends nothing new
    bool m_started = false; // the first line was seen (a byte order mark is skipped before it)
    QByteArray m_data, m_type, m_id;
    bool m_hasData = false;
};
