// SHA-256 for downloads: reading a .part left by an earlier run again (on the thread pool: a
// file of many GB takes a while, and the download thread must keep serving the others), and
// what counts as a SHA-256 in text. Any thread.
#pragma once

#include <QCryptographicHash>
#include <QFuture>
#include <QString>

#include <atomic>
#include <memory>

struct PartHash {
    std::shared_ptr<QCryptographicHash> hash; // over the first `bytes` bytes of the file
    qint64 bytes = 0;
    QString error; // not empty: the file could not be read (or the work was cancelled)
};

// Hashes the file at `path` on the global thread pool; stops early when `cancel` becomes true.
QFuture<PartHash> hashPartFile(const QString& path, std::shared_ptr<std::atomic_bool> cancel);

// 64 hexadecimal digits (what X-Linked-Etag holds for a file stored with Git LFS; a 40-digit
// value there is a Git object id, not a SHA-256).
bool isSha256(const QString& text);
