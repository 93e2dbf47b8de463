#include "downloadhash.h"

#include <QCoreApplication>
#include <QFile>
#include <QPromise>
#include <QRegularExpression>
#include <QThreadPool>

QFuture<PartHash> hashPartFile(const QString& path, std::shared_ptr<std::atomic_bool> cancel)
{
    auto promise = std::make_shared<QPromise<PartHash>>();
    QFuture<PartHash> future = promise->future();
    promise->start();
    QThreadPool::globalInstance()->start([promise, path, cancel] {
        PartHash out;
        out.hash = std::make_shared<QCryptographicHash>(QCryptographicHash::Sha256);
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly)) {
            out.error = QCoreApplication::translate("DownloadTask", "cannot read %1: %2").arg(path, file.errorString());
        } else {
            QByteArray buffer(1 << 20, Qt::Uninitialized);
            while (!cancel->load()) {
                const qint64 n = file.read(buffer.data(), buffer.size());
                if (n < 0) {
                    out.error = QCoreApplication::translate("DownloadTask", "cannot read %1: %2").arg(path, file.errorString());
                    break;
                }
                if (n == 0)
                    break;
                out.hash->addData(QByteArrayView(buffer.constData(), n));
                out.bytes += n;
            }
            if (cancel->load())
                out.error = QStringLiteral("cancelled");
        }
        promise->addResult(std::move(out));
        promise->finish();
    });
    return future;
}

bool isSha256(const QString& text)
{
    static const QRegularExpression hex(QStringLiteral("^[0-9a-fA-F]{64}$"));
    return hex.match(text).hasMatch();
}
