// The plain values of the downloader: what to download (a request made from a catalog variant),
// what the download store keeps about it, and the progress the queue reports. No QObject, no I/O.
#pragma once

#include <QList>
#include <QMetaType>
#include <QString>

struct CatalogFamily;
struct CatalogVariant;

// One file of a download.
struct DownloadItem {
    QString repo;          // "Qwen/Qwen3-8B-GGUF"
    QString remotePath;    // inside the repo ("Q8_0/x-00001-of-00002.gguf")
    QString revision;      // "main"
    QString localPath;     // relative to the models folder: "x.gguf" or "Qwen3-8B/config.json"
    qint64 expectedBytes = -1; // -1: unknown until a server says (X-Linked-Size, Content-Length)
    QString sha256;        // 64 lower-case hex digits; empty: unknown until X-Linked-Etag gives it
    bool optional = false; // a 404 drops it from the download instead of failing it
    // A safetensors index (shardindex.h): once it is in, the shards its weight_map names join the
    // download as files of the same repository and revision.
    bool listsShards = false;
};

// What a download is for: one catalog variant, its files, and what the user agreed to.
struct DownloadRequest {
    QString key;           // "qwen3-8b:Q4_K_M" (CatalogVariant::id)
    QString name;          // "Qwen3 8B · Q4_K_M", for people
    QString localName;     // the model in the models folder: a GGUF file or a folder (one segment)
    QString entryPath;     // the file renamed last, once every other file is in place (relative)
    QString license, licenseUrl;
    QList<DownloadItem> items;
};

// The request for a catalog variant (its files under their safe local names). The caller has
// checked the variant is offered (no `requires`).
DownloadRequest requestFromCatalog(const CatalogFamily& family, const CatalogVariant& variant);

enum class DownloadState {
    Queued,    // waiting for a free slot
    Running,   // transferring, or waiting to retry after a dropped connection
    Verifying, // re-reading a partial file before resuming, or a finished one for its Git blob id
    Paused,    // by the user (or by an app that stopped): resumes from the .part
    Failed,    // needs the user: the error says why; Retry starts again where it can
    Done,      // verified, moved into the models folder, registered
};

QString stateName(DownloadState state); // "queued", "running", ... (stored and shown to QML)
DownloadState stateFromName(const QString& name); // unknown: Paused (safe: nothing runs by itself)

// One file as the store keeps it.
struct DownloadItemRecord {
    DownloadItem item;
    qint64 received = 0;   // bytes in the .part when last saved (the file's own size wins)
    // The server's name for the file's bytes: a SHA-256 (64 hex digits, X-Linked-Etag), or with no
    // SHA-256 known a Git blob id (40 hex digits, ETag: a file kept in plain git). A different one
    // means a new file.
    QString linkedEtag;
    bool complete = false; // fully received and verified
};

struct DownloadRecord {
    qint64 id = 0;
    DownloadRequest request; // its items are those of `items` below
    QString folder;          // the models folder the download writes to (absolute)
    DownloadState state = DownloadState::Queued;
    QString error;
    QList<DownloadItemRecord> items;
    // The index's metadata.total_size plus the other files' sizes: the total shown while the
    // shards' own sizes are not all known yet. -1: none.
    qint64 estimatedBytes = -1;
    qint64 created = 0, updated = 0; // ms since the epoch
};

// What the queue reports about one download; the list model shows it.
struct DownloadProgress {
    qint64 id = 0;
    QString key, name, license, licenseUrl;
    DownloadState state = DownloadState::Queued;
    QString error;
    qint64 receivedBytes = 0;
    qint64 totalBytes = -1;      // -1: not known yet
    double bytesPerSecond = 0;   // smoothed; 0 when not transferring
    qint64 secondsLeft = -1;     // -1: unknown
    int retryInSeconds = -1;     // >= 0 while waiting to retry
    QString path;                // the model's path once Done
};
Q_DECLARE_METATYPE(DownloadProgress)
