// Hashes for downloads: reading a .part left by an earlier run again (SHA-256), or a finished file
// kept in plain git for its Git blob id, on the thread pool (a file of many GB takes a while, and
// the download thread must keep serving the others); what counts as either in text. Any thread.
#pragma once

#include <QCryptographicHash>
#include <QFuture>
#include <QString>

#include <atomic>
#include <memory>

struct PartHash {
    std::shared_ptr<QCryptographicHash> hash; // over the first `bytes` bytes of the file (Git: and its header)
    qint64 bytes = 0;
    QString error; // not empty: the file could not be read (or the work was cancelled)
};

// Hashes the file at `path` on the global thread pool; stops early when `cancel` becomes true.
QFuture<PartHash> hashPartFile(const QString& path, std::shared_ptr<std::atomic_bool> cancel);

// The Git blob object id of the file at `path`: SHA-1 over "blob <size>\0" and its bytes, what
// Hugging Face's ETag holds for a file kept in plain git (not LFS). On the global thread pool; stops
// early when `cancel` becomes true; an error when the file's size changes while it is read.
QFuture<PartHash> hashGitBlob(const QString& path, std::shared_ptr<std::atomic_bool> cancel);

// 64 hexadecimal digits (what X-Linked-Etag holds for a file stored with Git LFS; a 40-digit
// value there is a Git object id, not a SHA-256).
bool isSha256(const QString& text);
// 40 hexadecimal digits: a Git object id (SHA-1), never taken for a SHA-256 nor the reverse.
bool isGitBlobId(const QString& text);
