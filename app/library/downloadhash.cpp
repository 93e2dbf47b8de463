#include "downloadhash.h"

#include <QCoreApplication>
#include <QFile>
#include <QPromise>
#include <QRegularExpression>
#include <QThreadPool>

namespace {

// `path` read whole into a hash of `algorithm`, on the pool. `gitBlob`: Git's header first, whose
// size must still be the file's at the end.
QFuture<PartHash> hashOnPool(const QString& path, QCryptographicHash::Algorithm algorithm, bool gitBlob,
                             std::shared_ptr<std::atomic_bool> cancel)
{
    auto promise = std::make_shared<QPromise<PartHash>>();
    QFuture<PartHash> future = promise->future();
    promise->start();
    QThreadPool::globalInstance()->start([promise, path, algorithm, gitBlob, cancel] {
        PartHash out;
        out.hash = std::make_shared<QCryptographicHash>(algorithm);
        QFile file(path);
        qint64 size = -1;
        if (!file.open(QIODevice::ReadOnly)) {
            out.error = QCoreApplication::translate("DownloadTask", "cannot read %1: %2").arg(path, file.errorString());
        } else {
            if (gitBlob) {
                size = file.size();
                QByteArray header = "blob " + QByteArray::number(size);
                header.append('\0');
                out.hash->addData(header);
            }
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
            else if (out.error.isEmpty() && gitBlob && out.bytes != size)
                out.error = QCoreApplication::translate("DownloadTask", "%1 changed while it was being checked").arg(path);
        }
        promise->addResult(std::move(out));
        promise->finish();
    });
    return future;
}

} // namespace

QFuture<PartHash> hashPartFile(const QString& path, std::shared_ptr<std::atomic_bool> cancel)
{
    return hashOnPool(path, QCryptographicHash::Sha256, false, std::move(cancel));
}

QFuture<PartHash> hashGitBlob(const QString& path, std::shared_ptr<std::atomic_bool> cancel)
{
    return hashOnPool(path, QCryptographicHash::Sha1, true, std::move(cancel));
}

bool isSha256(const QString& text)
{
    static const QRegularExpression hex(QStringLiteral("^[0-9a-fA-F]{64}$"));
    return hex.match(text).hasMatch();
}

bool isGitBlobId(const QString& text)
{
    static const QRegularExpression hex(QStringLiteral("^[0-9a-fA-F]{40}$"));
    return hex.match(text).hasMatch();
}
