#include "baseurl.h"

#include <QCoreApplication>
#include <QHostAddress>

namespace remote {
namespace {

// Endpoints a user may paste whole; the base URL is what comes before them.
const char* const kEndpointSuffixes[] = {"/chat/completions", "/completions", "/models"};

} // namespace

BaseUrl parseBaseUrl(const QString& typed)
{
    BaseUrl out;
    QString text = typed.trimmed();
    if (text.isEmpty()) {
        out.error = QCoreApplication::translate("RemoteUrl", "Enter the server's address, for example http://localhost:8000/v1.");
        return out;
    }
    if (!text.contains(QLatin1String("://")))
        text.prepend(QLatin1String("http://"));
    QUrl url(text, QUrl::StrictMode);
    const QString scheme = url.scheme().toLower();
    if (!url.isValid() || url.host().isEmpty()) {
        out.error = QCoreApplication::translate("RemoteUrl", "This is not a web address. Enter one like http://localhost:8000/v1.");
        return out;
    }
    if (scheme != QLatin1String("http") && scheme != QLatin1String("https")) {
        out.error = QCoreApplication::translate("RemoteUrl", "Use an http:// or https:// address.");
        return out;
    }
    if (!url.userInfo().isEmpty()) {
        out.error = QCoreApplication::translate("RemoteUrl", "Leave the user name and password out of the address; put an API key in its own field.");
        return out;
    }
    if (url.hasQuery() || url.hasFragment()) {
        out.error = QCoreApplication::translate("RemoteUrl", "The base URL cannot have a query (?…) or a fragment (#…).");
        return out;
    }
    QString path = url.path();
    while (path.endsWith(QLatin1Char('/')))
        path.chop(1);
    for (const char* suffix : kEndpointSuffixes) {
        if (path.endsWith(QLatin1String(suffix))) {
            path.chop(int(qstrlen(suffix)));
            break;
        }
    }
    // A bare server address: every server Hearth knows serves the API under /v1.
    url.setPath(path.isEmpty() ? QStringLiteral("/v1") : path);
    url.setScheme(scheme);
    out.url = url;
    return out;
}

QUrl endpointUrl(const QUrl& base, const QString& path)
{
    QUrl url = base;
    url.setPath(base.path() + QLatin1Char('/') + path);
    return url;
}

bool isLoopback(const QUrl& url)
{
    const QString host = url.host().toLower();
    if (host == QLatin1String("localhost") || host.endsWith(QLatin1String(".localhost")))
        return true;
    const QHostAddress address(host);
    return !address.isNull() && address.isLoopback();
}

QString hostLabel(const QUrl& url)
{
    const int defaultPort = url.scheme() == QLatin1String("https") ? 443 : 80;
    const int port = url.port(defaultPort);
    const QString host = url.host().contains(QLatin1Char(':')) ? QLatin1Char('[') + url.host() + QLatin1Char(']')
                                                               : url.host();
    return port == defaultPort ? host : host + QLatin1Char(':') + QString::number(port);
}

} // namespace remote
