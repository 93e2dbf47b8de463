#include "downloadtransfer.h"

#include <QCoreApplication>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QRegularExpression>
#if QT_CONFIG(ssl)
#include <QSslConfiguration>
#include <QSslSocket>
#endif

#include "downloadsafety.h"
#include "filesink.h"

namespace {

constexpr qint64 kChunk = 256 * 1024;

// "abc..." from "\"abc...\"" or W/"abc...": the value alone, lower case.
QString unquoteEtag(const QByteArray& raw)
{
    QString v = QString::fromLatin1(raw).trimmed();
    if (v.startsWith(QLatin1String("W/")))
        v.remove(0, 2);
    if (v.size() >= 2 && v.startsWith(QLatin1Char('"')) && v.endsWith(QLatin1Char('"')))
        v = v.mid(1, v.size() - 2);
    return v.toLower();
}

// Retry-After in seconds (the HTTP-date form is rare for these servers: ignored); -1 if none.
int retryAfterMs(const QNetworkReply* reply)
{
    bool ok = false;
    const int seconds = reply->rawHeader("Retry-After").trimmed().toInt(&ok);
    return ok && seconds >= 0 ? std::min(seconds, 3600) * 1000 : -1;
}

bool retryableNetworkError(QNetworkReply::NetworkError e)
{
    switch (e) {
    case QNetworkReply::SslHandshakeFailedError:
    case QNetworkReply::TooManyRedirectsError:
    case QNetworkReply::InsecureRedirectError:
    case QNetworkReply::ProtocolUnknownError:
    case QNetworkReply::ProtocolInvalidOperationError:
        return false;
    default:
        return true;
    }
}

TransferResult httpFailure(int status, const QNetworkReply* reply)
{
    TransferResult r;
    r.httpStatus = status;
    if (status == 408 || status == 429 || status >= 500) {
        r.kind = TransferResult::Retry;
        r.retryAfterMs = retryAfterMs(reply);
        r.error = QCoreApplication::translate("DownloadTransfer", "the server answered HTTP %1").arg(status);
    } else if (status == 401 || status == 403) {
        r.error = QCoreApplication::translate("DownloadTransfer", "access denied (HTTP %1): this model may need a Hugging Face token "
                                 "with access to it")
                      .arg(status);
    } else if (status == 404) {
        r.error = QCoreApplication::translate("DownloadTransfer", "not found on the server (HTTP 404)");
    } else {
        r.error = QCoreApplication::translate("DownloadTransfer", "the server answered HTTP %1").arg(status);
    }
    return r;
}

} // namespace

DownloadTransfer::DownloadTransfer(QNetworkAccessManager* network, TransferSetup setup, QObject* parent)
    : QObject(parent)
    , m_network(network)
    , m_setup(std::move(setup))
{
    m_stall.setSingleShot(true);
    m_stall.setInterval(m_setup.stallTimeoutMs);
    connect(&m_stall, &QTimer::timeout, this, [this] {
        m_stalled = true;
        if (m_reply)
            m_reply->abort();
    });
}

DownloadTransfer::~DownloadTransfer()
{
    abortQuietly();
}

void DownloadTransfer::start()
{
    get(m_setup.url);
}

void DownloadTransfer::get(const QUrl& url)
{
    QString why;
    if (!isAllowedDownloadUrl(url, &why)) {
        QMetaObject::invokeMethod(this, [this, why] { finish({TransferResult::Fail, why}); }, Qt::QueuedConnection);
        return;
    }
    QNetworkRequest request(url);
    // Each hop is seen here before it is taken (onRedirected), and taken as a request of its own.
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::UserVerifiedRedirectPolicy);
    request.setAttribute(QNetworkRequest::CacheLoadControlAttribute, QNetworkRequest::AlwaysNetwork);
    request.setTransferTimeout(0); // the stall timer below decides
    // Bytes as stored: a compressed body would not match Range offsets or the hash.
    request.setRawHeader("Accept-Encoding", "identity");
    request.setHeader(QNetworkRequest::UserAgentHeader, QByteArray("Hearth/" HEARTH_VERSION));
    if (m_setup.part->size() > 0)
        request.setRawHeader("Range", "bytes=" + QByteArray::number(m_setup.part->size()) + '-');
    if (!m_setup.token.isEmpty() && sameOrigin(url, m_setup.tokenOrigin))
        request.setRawHeader("Authorization", "Bearer " + m_setup.token);
#if QT_CONFIG(ssl)
    QSslConfiguration tls = request.sslConfiguration();
    tls.setPeerVerifyMode(QSslSocket::VerifyPeer);
    request.setSslConfiguration(tls);
#endif
    m_reply = m_network->get(request);
    m_reply->setReadBufferSize(4 * kChunk); // the socket waits while the disk is slower
    connect(m_reply, &QNetworkReply::redirected, this, &DownloadTransfer::onRedirected);
    connect(m_reply, &QNetworkReply::metaDataChanged, this, &DownloadTransfer::onMetaData);
    connect(m_reply, &QNetworkReply::readyRead, this, &DownloadTransfer::onReadyRead);
    connect(m_reply, &QNetworkReply::finished, this, &DownloadTransfer::onFinished);
    m_stall.start();
}

void DownloadTransfer::fail(const QString& error)
{
    if (m_done)
        return;
    m_failure = error;
    if (m_reply && m_reply->isRunning())
        m_reply->abort();
    else
        finish({TransferResult::Fail, error});
}

void DownloadTransfer::abortQuietly()
{
    m_done = true;
    m_stall.stop();
    if (m_reply) {
        m_reply->disconnect(this);
        m_reply->abort();
        m_reply->deleteLater();
        m_reply = nullptr;
    }
}

void DownloadTransfer::onRedirected(const QUrl& url)
{
    readLinkedHeaders(); // the redirect's own headers: X-Linked-Etag, X-Linked-Size, ETag
    QString why;
    if (!isAllowedDownloadUrl(url, &why)) {
        fail(tr("the server redirected to a refused address: %1").arg(why));
        return;
    }
    if (++m_redirects > m_setup.maxRedirects) {
        fail(tr("too many redirects"));
        return;
    }
    // Not redirectAllowed(): Qt 6.4, following a redirect itself after the server closed the
    // connection, was seen to report status 100 with no body, or the body twice. A request of
    // our own also decides afresh whether the token goes (only to the endpoint's origin).
    QNetworkReply* old = m_reply;
    old->disconnect(this);
    old->abort();
    old->deleteLater();
    m_reply = nullptr;
    get(url);
}

void DownloadTransfer::readLinkedHeaders()
{
    if (m_reply->hasRawHeader("X-Linked-Etag"))
        m_linkedEtag = unquoteEtag(m_reply->rawHeader("X-Linked-Etag"));
    if (m_reply->hasRawHeader("ETag")) {
        const QByteArray etag = m_reply->rawHeader("ETag").trimmed();
        m_etag = etag.startsWith("W/") ? QString() : unquoteEtag(etag);
    }
    bool ok = false;
    const qint64 size = m_reply->rawHeader("X-Linked-Size").trimmed().toLongLong(&ok);
    if (ok && size >= 0)
        m_remoteSize = size;
}

void DownloadTransfer::onMetaData()
{
    const int status = m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status >= 300 && status < 400)
        return; // a redirect: onRedirected reads it
    m_stall.start();
    readLinkedHeaders();
    const qint64 offset = m_setup.part->size();
    if (status == 200) {
        bool ok = false;
        const qint64 length = m_reply->header(QNetworkRequest::ContentLengthHeader).toLongLong(&ok);
        if (ok && length >= 0)
            m_remoteSize = length;
        if (offset > 0) {
            // The server ignored Range: the body is the whole file, written from the start.
            if (hearth::Status s = m_setup.part->truncate(0); !s.isOk()) {
                fail(QString::fromStdString(s.message()));
                return;
            }
            m_setup.hash->reset();
            m_restarted = true;
        }
        m_accepting = true;
    } else if (status == 206) {
        static const QRegularExpression range(QStringLiteral("^bytes (\\d+)-(\\d+)/(\\d+|\\*)$"));
        const QRegularExpressionMatch m = range.match(QString::fromLatin1(m_reply->rawHeader("Content-Range")).trimmed());
        if (!m.hasMatch() || m.captured(1).toLongLong() != offset) {
            fail(tr("the server sent another part of the file than asked for (%1)")
                     .arg(QString::fromLatin1(m_reply->rawHeader("Content-Range"))));
            return;
        }
        if (m.captured(3) != QLatin1String("*"))
            m_remoteSize = m.captured(3).toLongLong();
        m_accepting = true;
    }
    if (m_accepting)
        emit headersKnown(); // may call fail()
}

void DownloadTransfer::onReadyRead()
{
    if (m_done || !m_reply)
        return;
    m_stall.start();
    if (!m_accepting) {
        m_reply->readAll(); // an error page
        return;
    }
    while (m_reply && m_reply->bytesAvailable() > 0 && m_failure.isEmpty()) {
        const QByteArray chunk = m_reply->read(kChunk);
        m_setup.hash->addData(chunk);
        if (hearth::Status s = m_setup.part->write(chunk.constData(), chunk.size()); !s.isOk()) {
            fail(QString::fromStdString(s.message()));
            return;
        }
    }
    emit received(m_setup.part->size());
}

void DownloadTransfer::onFinished()
{
    if (m_done)
        return;
    onReadyRead(); // whatever is still buffered
    if (m_done)
        return;
    const int status = m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QNetworkReply::NetworkError error = m_reply->error();
    TransferResult r;
    r.httpStatus = status;
    if (!m_failure.isEmpty()) {
        r = {TransferResult::Fail, m_failure, -1, status};
    } else if (m_stalled) {
        r = {TransferResult::Retry,
             tr("no data for %1 s").arg(m_setup.stallTimeoutMs / 1000.0, 0, 'f', 1), -1, status};
    } else if (status == 416) {
        static const QRegularExpression total(QStringLiteral("^bytes \\*/(\\d+)$"));
        const QRegularExpressionMatch m = total.match(QString::fromLatin1(m_reply->rawHeader("Content-Range")).trimmed());
        if (m.hasMatch())
            m_remoteSize = m.captured(1).toLongLong();
        r.kind = TransferResult::RangeNotSatisfiable;
        r.error = tr("the server has no bytes past %1").arg(m_setup.part->size());
    } else if (m_accepting && error == QNetworkReply::NoError) {
        if (m_remoteSize >= 0 && m_setup.part->size() != m_remoteSize) {
            r.kind = TransferResult::Retry;
            r.error = tr("the connection closed at %1 of %2 bytes").arg(m_setup.part->size()).arg(m_remoteSize);
        } else {
            r.kind = TransferResult::Complete;
        }
    } else if (status >= 400) {
        r = httpFailure(status, m_reply);
    } else {
        r.kind = retryableNetworkError(error) ? TransferResult::Retry : TransferResult::Fail;
        r.error = m_reply->errorString();
    }
    finish(r);
}

void DownloadTransfer::finish(TransferResult result)
{
    if (m_done)
        return;
    m_done = true;
    m_stall.stop();
    if (m_reply) {
        m_reply->disconnect(this);
        m_reply->deleteLater();
        m_reply = nullptr;
    }
    emit finished(result);
}
