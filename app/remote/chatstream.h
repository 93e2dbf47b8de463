// One reply streamed from POST /chat/completions: the Server-Sent Events are read as they arrive
// (content and thinking deltas, the finish reason, usage, llama-server's timings, an error
// event), the text is handed on at most every ~16 ms, and the reply ends exactly once —
// finished (the finish reason or [DONE], or stop()) or failed (an HTTP error with the server's
// message, an error event, a dropped or silent connection), always with the text so far.
// Numbers are the stream's own: time to first token from the request, tokens counted per delta
// until the server's usage gives the true count, decode tok/s from the first to the last delta
// (or the server's when it reports one). GUI thread.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <QUrl>

#include "enginetypes.h"
#include "openaiwire.h"
#include "sseparser.h"
#include "thinktags.h"

class QNetworkReply;

class ChatStream : public QObject
{
    Q_OBJECT

public:
    struct Setup {
        QUrl url;                // what was asked (for messages)
        bool hadKey = false;     // an API key was sent
        int timeoutSeconds = 0;  // the reply's transfer timeout
        int contextSize = 0;     // the model's context on the server; 0: unknown
    };
    // Takes `reply` (a POST just made) and follows it; the clock starts now.
    ChatStream(QNetworkReply* reply, const Setup& setup, QObject* parent = nullptr);
    ~ChatStream() override;

    // Aborts the request: finished arrives with stop reason "cancel" and the text so far.
    void stop();
    bool isEnded() const { return m_ended; }

signals:
    void pieces(const QString& content, const QString& reasoning, const ReplyStats& stats);
    void finished(const ReplyResult& result);
    void failed(const ReplyFailure& failure);

private:
    enum class Mode { Unknown, Events, Whole };

    void onReadyRead();
    void onReplyFinished();
    Mode modeOfReply() const;
    void take(const openai::Chunk& chunk);
    void sendPieces();
    ReplyStats stats() const;
    double nowMs() const { return double(m_clock.nsecsElapsed()) / 1e6; }
    void endStream();
    void succeed(const QString& stopReason);
    void fail(const QString& message, hearth::StatusCode code = hearth::StatusCode::FailedPrecondition);
    void release();

    QPointer<QNetworkReply> m_reply;
    Setup m_setup;
    Mode m_mode = Mode::Unknown;
    SseParser m_parser;
    ThinkTags m_thinkTags;
    QByteArray m_body; // Whole mode: the answer as it came
    QElapsedTimer m_clock, m_sinceSend;
    QTimer m_sendTimer;
    QString m_content, m_reasoning;
    qsizetype m_sentContent = 0, m_sentReasoning = 0;
    int m_deltas = 0;
    double m_firstMs = -1, m_lastMs = -1;
    int m_promptTokens = -1, m_completionTokens = -1;
    double m_promptPerSecond = -1, m_predictedPerSecond = -1;
    QString m_finishReason;
    bool m_done = false, m_ended = false;
};
