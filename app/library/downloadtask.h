// DownloadTask: one model download from start to registration. Its files are fetched one after
// another into "<name>.part" files beside where they will go; each is hashed (SHA-256) while it
// arrives, and a .part left by an earlier run is read and hashed again before the download goes
// on from its end. Dropped connections, 5xx answers and stalls are retried with growing pauses;
// anything else stops the task as Failed with a sentence for the user. Only when every file
// matches its expected SHA-256 (the catalog's, else the server's X-Linked-Etag) and size are the
// .part files renamed to their final names (the model's entry file last, never over an existing
// file); then the task is Done and the store says so. A file with no SHA-256 from either but a
// Git blob id in its ETag (a small file Hugging Face keeps in plain git) is checked against that
// id instead, hashed from the finished .part on the thread pool, so a resume changes nothing.
// A safetensors index (DownloadItem::listsShards) adds the shards its weight_map names once it is
// verified; an optional file the server does not have (404) is dropped. Both change the file list,
// which the store then keeps whole, so that a restart resumes the same list.
// Threads: the queue's thread. Owned by the DownloadQueue. (downloadtask.cpp: transfers and
// retries; downloadtask_verify.cpp: re-hashing a .part, verifying, moving into place;
// downloadtask_index.cpp: the shards of an index, optional files.)
#pragma once

#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QTimer>

#include <atomic>
#include <functional>
#include <memory>

#include "downloadhash.h"
#include "downloadtypes.h"
#include "hearth/status.h"

class DownloadStore;
class DownloadTransfer;
class FileLayer;
class PartFile;
class QLockFile;
class QNetworkAccessManager;
struct TransferResult;

struct DownloadOptions {
    int parallel = 2;              // downloads at once
    int stallTimeoutMs = 30000;    // no byte for this long: the connection is dropped and retried
    int retryBaseMs = 1000;        // first pause before a retry; doubles each time
    int retryMaxMs = 60000;        // the longest pause
    int maxAttempts = 8;           // tries in a row without a byte of progress, then Failed
    qint64 reserveBytes = 256ll << 20; // disk space left free beyond the download
    int progressIntervalMs = 250;  // how often changed() reports progress at most
};

// What every task shares (owned by the queue).
struct DownloadContext {
    QNetworkAccessManager* network = nullptr;
    DownloadStore* store = nullptr; // may be closed: then nothing is persisted
    FileLayer* files = nullptr;
    QString endpoint;               // chooseHfEndpoint()
    QByteArray token;
    DownloadOptions options;
};

class DownloadTask : public QObject
{
    Q_OBJECT

public:
    DownloadTask(DownloadRecord record, const DownloadContext* context, QObject* parent = nullptr);
    ~DownloadTask() override;

    qint64 id() const { return m_record.id; }
    const DownloadRecord& record() const { return m_record; }
    DownloadState state() const { return m_record.state; }
    bool isActive() const; // Running or Verifying
    DownloadProgress progress() const;

    void start();   // from Queued (or Paused/Failed, as a retry)
    void pause();   // keeps the .part and the hash so far
    void stop();    // the app is quitting: like pause, but the stored state stays (it resumes next time)
    void cancel();  // stops and deletes the .part files (the queue forgets the record)
    // Sets state Queued (waiting for a slot).
    void enqueue();

    // The path of item `i`'s .part and final file.
    QString partPath(int i) const;
    QString finalPath(int i) const;

signals:
    void changed();  // state or progress (progress at most every progressIntervalMs)
    void finished(); // left Running/Verifying: Done, Failed or Paused
    void registered(const QString& key, const QString& path);

private:
    int currentItem() const;
    void runItem();
    void verifyPartThenRun(int i);
    // Verifying: `hash` (a file hash on the thread pool, given its cancel flag) runs, and `done`
    // gets its result unless the task was paused or cancelled meanwhile or the file could not be read.
    void hashWhileVerifying(const std::function<QFuture<PartHash>(std::shared_ptr<std::atomic_bool>)>& hash,
                            std::function<void(const PartHash&)> done);
    void startTransfer(int i);
    void onHeaders(int i);
    void onTransferFinished(int i, const TransferResult& result);
    void scheduleRetry(int i, const QString& error, int retryAfterMs);
    void itemComplete(int i);
    void verifyGitIdThenAccept(int i);
    void acceptItem(int i);
    void discardDamaged(int i, const QString& error);
    void finishAll();
    void setState(DownloadState state, const QString& error = {});
    void failWith(const QString& error);
    void failWith(const hearth::Status& status) { failWith(QString::fromStdString(status.message())); }
    void saveItem(int i);
    void saveItems();
    bool addShards(int i);
    void dropOptional(int i);
    void sampleSpeed();
    bool checkDiskSpace(int fromItem, QString* error) const;
    void dropTransfer();
    bool lockPart();

    DownloadRecord m_record;
    const DownloadContext* m_context;
    std::unique_ptr<PartFile> m_part;
    std::shared_ptr<QCryptographicHash> m_hash; // over m_part's bytes (item m_hashedItem)
    int m_hashedItem = -1;
    DownloadTransfer* m_transfer = nullptr; // child
    std::shared_ptr<std::atomic_bool> m_rehashCancel; // the hashing on the pool under way, if any
    std::unique_ptr<QLockFile> m_lock;
    QTimer m_retryTimer;
    QElapsedTimer m_retryClock;
    int m_retryDelayMs = 0;
    int m_attempts = 0;
    bool m_startOver = false; // the running transfer ends because the .part is stale
    qint64 m_attemptStartBytes = 0;
    // Speed: bytes and time at the last sample, smoothed rate.
    QTimer m_sampler;
    QElapsedTimer m_clock;
    qint64 m_sampleBytes = 0, m_sampleMs = 0, m_lastSaveMs = 0, m_lastEmitMs = -1;
    double m_rate = 0;
};
