#include "downloadtext.h"

#include <QCoreApplication>
#include <QLocale>

namespace downloadtext {
namespace {

QString amount(const DownloadProgress& p)
{
    return p.totalBytes >= 0 ? QCoreApplication::translate("DownloadText", "%1 of %2").arg(bytes(p.receivedBytes), bytes(p.totalBytes)) : bytes(p.receivedBytes);
}

} // namespace

QString bytes(qint64 bytes)
{
    if (bytes < 0)
        return QStringLiteral("?");
    return QLocale().formattedDataSize(bytes, 1, QLocale::DataSizeIecFormat);
}

QString rate(double bytesPerSecond)
{
    return QCoreApplication::translate("DownloadText", "%1/s").arg(bytes(qint64(bytesPerSecond)));
}

QString timeLeft(qint64 seconds)
{
    if (seconds < 0)
        return {};
    if (seconds < 60)
        return QCoreApplication::translate("DownloadText", "%1 s left").arg(seconds);
    if (seconds < 3600)
        return QCoreApplication::translate("DownloadText", "%1 min left").arg((seconds + 59) / 60);
    return QCoreApplication::translate("DownloadText", "%1 h %2 min left").arg(seconds / 3600).arg((seconds % 3600) / 60);
}

QString stateText(DownloadState state)
{
    switch (state) {
    case DownloadState::Queued: return QCoreApplication::translate("DownloadText", "Waiting");
    case DownloadState::Running: return QCoreApplication::translate("DownloadText", "Downloading");
    case DownloadState::Verifying: return QCoreApplication::translate("DownloadText", "Checking the part already downloaded");
    case DownloadState::Paused: return QCoreApplication::translate("DownloadText", "Paused");
    case DownloadState::Failed: return QCoreApplication::translate("DownloadText", "Failed");
    case DownloadState::Done: return QCoreApplication::translate("DownloadText", "Downloaded");
    }
    return {};
}

QString detail(const DownloadProgress& p)
{
    switch (p.state) {
    case DownloadState::Running: {
        if (p.retryInSeconds >= 0)
            return QCoreApplication::translate("DownloadText", "%1 · trying again in %2 s (%3)").arg(amount(p)).arg(p.retryInSeconds).arg(p.error);
        QStringList parts{amount(p)};
        if (p.bytesPerSecond > 0)
            parts << rate(p.bytesPerSecond);
        if (p.secondsLeft >= 0)
            parts << timeLeft(p.secondsLeft);
        return parts.join(QStringLiteral(" · "));
    }
    case DownloadState::Failed:
        return p.error;
    case DownloadState::Done:
        return bytes(p.totalBytes >= 0 ? p.totalBytes : p.receivedBytes);
    case DownloadState::Queued:
    case DownloadState::Verifying:
    case DownloadState::Paused:
        return stateText(p.state) + QStringLiteral(" · ") + amount(p);
    }
    return {};
}

} // namespace downloadtext
