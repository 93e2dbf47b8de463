#include "downloadsafety.h"

#include <QCoreApplication>
#include <QHostAddress>

#include "catalog.h"

namespace {

bool isLoopbackHost(const QString& host)
{
    if (host.compare(QLatin1String("localhost"), Qt::CaseInsensitive) == 0)
        return true;
    const QHostAddress address(host);
    return !address.isNull() && address.isLoopback();
}

} // namespace

bool isAllowedDownloadUrl(const QUrl& url, QString* why)
{
    auto refuse = [&](const QString& reason) {
        if (why)
            *why = reason;
        return false;
    };
    if (!url.isValid() || url.host().isEmpty())
        return refuse(QCoreApplication::translate("DownloadSafety", "not a valid download address: %1").arg(url.toDisplayString()));
    if (!url.userInfo().isEmpty())
        return refuse(QCoreApplication::translate("DownloadSafety", "a download address may not carry a user name or password"));
    const QString scheme = url.scheme().toLower();
    if (scheme == QLatin1String("https"))
        return true;
    if (scheme == QLatin1String("http") && isLoopbackHost(url.host()))
        return true;
    return refuse(QCoreApplication::translate("DownloadSafety", "refusing %1: downloads go over HTTPS (plain HTTP only to this computer)")
                      .arg(url.toDisplayString(QUrl::RemoveQuery)));
}

bool sameOrigin(const QUrl& a, const QUrl& b)
{
    return a.scheme().compare(b.scheme(), Qt::CaseInsensitive) == 0 &&
           a.host().compare(b.host(), Qt::CaseInsensitive) == 0 &&
           a.port(a.scheme() == QLatin1String("https") ? 443 : 80) == b.port(b.scheme() == QLatin1String("https") ? 443 : 80);
}

bool isSafeLocalPath(const QString& path, QString* why)
{
    const QStringList segments = path.split(QLatin1Char('/'));
    if (segments.size() > 2) {
        if (why)
            *why = QCoreApplication::translate("DownloadSafety", "%1: too many folders").arg(path);
        return false;
    }
    for (const QString& s : segments)
        if (!isSafeFileName(s, why))
            return false;
    return true;
}
