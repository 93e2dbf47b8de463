#include "remoteerror.h"

#include <QCoreApplication>

#include "baseurl.h"
#include "openaiwire.h"

namespace remote {
namespace {

QString httpFailure(const HttpOutcome& o, const QUrl& url, bool hadKey)
{
    const QString host = hostLabel(url);
    const QString status = QString::number(o.status);
    QString text;
    if (o.status >= 300 && o.status < 400)
        return QCoreApplication::translate("RemoteError", "%1 sent Hearth to another address (HTTP %2 to %3). Use that address as the base URL.")
            .arg(host, status, QString::fromUtf8(o.location));
    if (o.status == 401 || o.status == 403)
        text = hadKey ? QCoreApplication::translate("RemoteError", "%1 refused the API key (HTTP %2). Check the key in the connection.")
                      : QCoreApplication::translate("RemoteError", "%1 needs an API key (HTTP %2). Add it to the connection.");
    else if (o.status == 404)
        text = QCoreApplication::translate("RemoteError", "%1 has nothing at %2 (HTTP 404). The base URL of an OpenAI-compatible server usually ends in /v1.")
                   .arg(host, url.path());
    else if (o.status == 429)
        text = QCoreApplication::translate("RemoteError", "%1 is busy (HTTP %2). Try again in a moment.");
    else if (o.status >= 500)
        text = QCoreApplication::translate("RemoteError", "%1 failed to answer (HTTP %2).");
    else
        text = QCoreApplication::translate("RemoteError", "%1 refused the request (HTTP %2).");
    if (o.status != 404)
        text = text.arg(host, status);
    if (isHtml(o.contentType, o.body))
        return text + QLatin1Char(' ') + QCoreApplication::translate("RemoteError", "It answered with a web page, not an API: is this the API's address?");
    const QString message = openai::errorMessage(o.body);
    if (!message.isEmpty())
        return text + QLatin1Char(' ') + QCoreApplication::translate("RemoteError", "The server says: %1").arg(message);
    return text;
}

} // namespace

bool isHtml(const QByteArray& contentType, const QByteArray& body)
{
    if (contentType.toLower().contains("text/html"))
        return true;
    const QByteArray start = body.left(64).trimmed().toLower();
    return start.startsWith("<!doctype html") || start.startsWith("<html");
}

HttpOutcome outcomeOf(QNetworkReply* reply, const QByteArray& body, bool timedOut)
{
    HttpOutcome o;
    o.error = reply->error();
    o.errorString = reply->errorString();
    o.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    o.body = body;
    o.contentType = reply->header(QNetworkRequest::ContentTypeHeader).toByteArray();
    o.location = reply->rawHeader("Location");
    o.timedOut = timedOut;
    return o;
}

QString describeFailure(const HttpOutcome& o, const QUrl& url, bool hadKey, int timeoutSeconds)
{
    if (o.status >= 300)
        return httpFailure(o, url, hadKey);
    const QString host = hostLabel(url);
    if (o.timedOut || o.error == QNetworkReply::TimeoutError)
        return QCoreApplication::translate("RemoteError", "%1 sent nothing for %2 seconds; the request was given up.")
            .arg(host).arg(timeoutSeconds);
    switch (o.error) {
    case QNetworkReply::ConnectionRefusedError:
        return QCoreApplication::translate("RemoteError", "Could not connect to %1: nothing is listening there. Is the server running?").arg(host);
    case QNetworkReply::HostNotFoundError:
        return QCoreApplication::translate("RemoteError", "The server %1 was not found. Check the address.").arg(host);
    case QNetworkReply::RemoteHostClosedError:
        return QCoreApplication::translate("RemoteError", "%1 closed the connection.").arg(host);
    case QNetworkReply::SslHandshakeFailedError:
        return QCoreApplication::translate("RemoteError", "The secure connection to %1 failed: %2").arg(host, o.errorString);
    case QNetworkReply::ProxyConnectionRefusedError:
    case QNetworkReply::ProxyNotFoundError:
    case QNetworkReply::ProxyTimeoutError:
    case QNetworkReply::ProxyAuthenticationRequiredError:
        return QCoreApplication::translate("RemoteError", "The proxy to %1 failed: %2").arg(host, o.errorString);
    default:
        return QCoreApplication::translate("RemoteError", "Could not reach %1: %2").arg(host, o.errorString);
    }
}

} // namespace remote
