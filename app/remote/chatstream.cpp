#include "chatstream.h"

#include <QCoreApplication>
#include <QNetworkReply>

#include "baseurl.h"
#include "remoteerror.h"

namespace {

constexpr int kSendIntervalMs = 16;               // as the engine's replies: about one frame
constexpr qsizetype kMaxWholeBody = 4 * 1024 * 1024; // a non-streamed answer or an error page

// The engine's stop reason names for the server's finish reasons.
QString stopReasonOf(const QString& finishReason)
{
    if (finishReason.isEmpty() || finishReason == QLatin1String("stop"))
        return QStringLiteral("eos");
    return finishReason; // "length" and "cancel" match; others are shown as the server named them
}

} // namespace

ChatStream::ChatStream(QNetworkReply* reply, const Setup& setup, QObject* parent)
    : QObject(parent)
    , m_reply(reply)
    , m_setup(setup)
{
    m_clock.start();
    m_sinceSend.start();
    m_sendTimer.setSingleShot(true);
    connect(&m_sendTimer, &QTimer::timeout, this, &ChatStream::sendPieces);
    reply->setParent(this);
    connect(reply, &QNetworkReply::readyRead, this, &ChatStream::onReadyRead);
    connect(reply, &QNetworkReply::finished, this, &ChatStream::onReplyFinished);
}

ChatStream::~ChatStream()
{
    release();
}

void ChatStream::stop()
{
    if (!m_ended)
        succeed(QStringLiteral("cancel"));
}

ChatStream::Mode ChatStream::modeOfReply() const
{
    const int status = m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QByteArray type = m_reply->header(QNetworkRequest::ContentTypeHeader).toByteArray().toLower();
    if (status >= 300)
        return Mode::Whole;
    // No type at all: read it as the events that were asked for.
    return type.isEmpty() || type.contains("text/event-stream") ? Mode::Events : Mode::Whole;
}

void ChatStream::onReadyRead()
{
    if (m_ended || !m_reply || !m_reply->isOpen()) // an aborted (timed out) reply has nothing left
        return;
    if (m_mode == Mode::Unknown)
        m_mode = modeOfReply();
    const QByteArray bytes = m_reply->readAll();
    if (m_mode == Mode::Whole) {
        if (m_body.size() < kMaxWholeBody)
            m_body += bytes.left(kMaxWholeBody - m_body.size());
        return;
    }
    for (const SseEvent& event : m_parser.feed(bytes)) {
        take(openai::readEvent(event));
        if (m_ended)
            return;
    }
}

void ChatStream::take(const openai::Chunk& chunk)
{
    if (!chunk.error.isEmpty()) {
        fail(QCoreApplication::translate("RemoteError", "The server reported an error: %1").arg(chunk.error));
        return;
    }
    QString content, reasoning = chunk.reasoning;
    m_thinkTags.take(chunk.content, content, reasoning);
    if (!chunk.content.isEmpty() || !chunk.reasoning.isEmpty()) {
        const double now = nowMs();
        if (m_firstMs < 0)
            m_firstMs = now;
        m_lastMs = now;
        ++m_deltas;
    }
    if (!content.isEmpty() || !reasoning.isEmpty()) {
        m_content += content;
        m_reasoning += reasoning;
        if (m_sinceSend.elapsed() >= kSendIntervalMs)
            sendPieces();
        else if (!m_sendTimer.isActive())
            m_sendTimer.start(int(kSendIntervalMs - m_sinceSend.elapsed()));
    }
    if (!chunk.finishReason.isEmpty())
        m_finishReason = chunk.finishReason;
    if (chunk.promptTokens >= 0)
        m_promptTokens = chunk.promptTokens;
    if (chunk.completionTokens >= 0)
        m_completionTokens = chunk.completionTokens;
    if (chunk.promptPerSecond > 0)
        m_promptPerSecond = chunk.promptPerSecond;
    if (chunk.predictedPerSecond > 0)
        m_predictedPerSecond = chunk.predictedPerSecond;
    if (chunk.done)
        succeed(stopReasonOf(m_finishReason));
}

void ChatStream::onReplyFinished()
{
    if (m_ended || !m_reply)
        return;
    onReadyRead(); // whatever is left unread
    if (m_ended)
        return;
    if (m_mode == Mode::Unknown)
        m_mode = modeOfReply();
    // Nothing here aborts a live reply: a cancelled operation is the transfer timeout.
    const bool timedOut = m_reply->error() == QNetworkReply::OperationCanceledError;
    const remote::HttpOutcome outcome = remote::outcomeOf(m_reply, m_body, timedOut);
    const QString host = remote::hostLabel(m_setup.url);
    if (outcome.status >= 300 || (outcome.error != QNetworkReply::NoError && m_deltas == 0)) {
        fail(remote::describeFailure(outcome, m_setup.url, m_setup.hadKey, m_setup.timeoutSeconds));
        return;
    }
    if (m_mode == Mode::Events) {
        for (const SseEvent& event : m_parser.finish()) {
            take(openai::readEvent(event));
            if (m_ended)
                return;
        }
        if (outcome.error != QNetworkReply::NoError)
            fail(remote::describeFailure(outcome, m_setup.url, m_setup.hadKey, m_setup.timeoutSeconds) + QLatin1Char(' ')
                 + QCoreApplication::translate("RemoteError", "What arrived before is kept."));
        else if (!m_finishReason.isEmpty())
            succeed(stopReasonOf(m_finishReason)); // finished, only the [DONE] line is missing
        else
            fail(QCoreApplication::translate("RemoteError", "The connection to %1 ended before the reply was complete.").arg(host)
                 + (m_deltas > 0 ? QLatin1Char(' ') + QCoreApplication::translate("RemoteError", "What arrived before is kept.")
                                 : QString()));
        return;
    }
    if (remote::isHtml(outcome.contentType, m_body)) {
        fail(QCoreApplication::translate("RemoteError", "%1 answered with a web page, not an API: is this the API's address?").arg(host));
        return;
    }
    // A server that answered the stream request with one whole completion.
    const openai::Chunk whole = openai::readCompletion(m_body);
    if (whole.malformed) {
        fail(QCoreApplication::translate("RemoteError", "%1 sent an answer that is not an OpenAI-compatible completion.").arg(host),
             hearth::StatusCode::Internal);
        return;
    }
    take(whole);
    if (!m_ended)
        succeed(stopReasonOf(m_finishReason));
}

void ChatStream::sendPieces()
{
    m_sendTimer.stop();
    const QString content = m_content.mid(m_sentContent), reasoning = m_reasoning.mid(m_sentReasoning);
    if (content.isEmpty() && reasoning.isEmpty())
        return;
    m_sentContent = m_content.size();
    m_sentReasoning = m_reasoning.size();
    m_sinceSend.restart();
    emit pieces(content, reasoning, stats());
}

ReplyStats ChatStream::stats() const
{
    ReplyStats s;
    s.tokens = m_completionTokens >= 0 ? m_completionTokens : m_deltas;
    s.elapsedMs = nowMs();
    s.ttftMs = m_firstMs;
    s.prefillTokPerS = m_promptPerSecond;
    if (m_predictedPerSecond > 0)
        s.decodeTokPerS = m_predictedPerSecond;
    else if (s.tokens > 1 && m_lastMs > m_firstMs)
        s.decodeTokPerS = (s.tokens - 1) * 1000.0 / (m_lastMs - m_firstMs);
    s.promptTokens = qMax(0, m_promptTokens);
    // The context bar only once the server has said how long the prompt was (with its usage).
    if (m_setup.contextSize > 0 && m_promptTokens >= 0) {
        s.contextSize = m_setup.contextSize;
        s.contextUsed = qMin(m_promptTokens + s.tokens, s.contextSize);
    }
    return s;
}

// The end of the stream either way: what the think-tag splitter held back joins the text, the
// last pieces go out, and the request is let go.
void ChatStream::endStream()
{
    QString content, reasoning;
    m_thinkTags.flush(content, reasoning);
    m_content += content;
    m_reasoning += reasoning;
    sendPieces();
    m_ended = true;
    release();
}

void ChatStream::succeed(const QString& stopReason)
{
    endStream();
    ReplyResult r;
    r.content = m_content;
    r.reasoning = m_reasoning;
    r.stopReason = stopReason;
    r.stats = stats();
    emit finished(r);
}

void ChatStream::fail(const QString& message, hearth::StatusCode code)
{
    endStream();
    emit failed({m_content, m_reasoning, stats(), {code, message}});
}

void ChatStream::release()
{
    m_sendTimer.stop();
    if (!m_reply)
        return;
    QNetworkReply* reply = m_reply;
    m_reply = nullptr;
    disconnect(reply, nullptr, this, nullptr);
    if (reply->isRunning())
        reply->abort(); // a stop, an error event, or [DONE] before the server closed
    reply->deleteLater();
}
