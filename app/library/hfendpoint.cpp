#include "hfendpoint.h"

#include "downloadtypes.h"

QString chooseHfEndpoint(const QString& setting)
{
    QString endpoint = qEnvironmentVariable("HEARTH_HF_ENDPOINT").trimmed();
    if (endpoint.isEmpty())
        endpoint = setting.trimmed();
    if (endpoint.isEmpty())
        endpoint = QString::fromLatin1(kDefaultHfEndpoint);
    while (endpoint.endsWith(QLatin1Char('/')))
        endpoint.chop(1);
    return endpoint;
}

QUrl itemUrl(const QString& endpoint, const DownloadItem& item)
{
    // Each segment percent-encoded on its own: a '#' or '?' in a name stays part of the path.
    QStringList segments = item.repo.split(QLatin1Char('/'));
    segments << QStringLiteral("resolve") << (item.revision.isEmpty() ? QStringLiteral("main") : item.revision);
    segments << item.remotePath.split(QLatin1Char('/'));
    QString path;
    for (const QString& s : std::as_const(segments))
        path += QLatin1Char('/') + QString::fromLatin1(QUrl::toPercentEncoding(s));
    QUrl url(endpoint);
    url.setPath(url.path(QUrl::FullyEncoded) + path, QUrl::TolerantMode);
    return url;
}
