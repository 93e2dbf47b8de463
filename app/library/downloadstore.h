// DownloadStore: the downloads and their files in the history database (tables downloads and
// download_files, schema v3 and v4 of app/store/store_schema.h), so that a download outlives the
// app: a paused, failed or interrupted one resumes from its .part after a restart.
//
// It opens its own connection to the file (ConversationStore's conventions: WAL, foreign keys,
// the same migrations), so the headless `hearth --pull` uses it without the chat history.
// Threads: used only on the thread that opened it (the download queue's). Every call is its own
// committed statement. Errors: hearth::Status naming what failed; FailedPrecondition when not open.
#pragma once

#include <QSqlDatabase>
#include <QString>

#include <functional>

#include "downloadtypes.h"
#include "hearth/status.h"

class DownloadStore
{
public:
    DownloadStore();
    ~DownloadStore();
    DownloadStore(const DownloadStore&) = delete;
    DownloadStore& operator=(const DownloadStore&) = delete;

    // Opens or creates `path` (the history file), upgrading an older schema; a newer or damaged
    // file is refused and left as it is.
    hearth::Status open(const QString& path);
    void close();
    bool isOpen() const;

    // A new download in state Queued; returns its id.
    hearth::Result<qint64> insert(const DownloadRequest& request, const QString& folder);
    // Every download, oldest first.
    hearth::Result<QList<DownloadRecord>> list();
    hearth::Result<DownloadRecord> record(qint64 id);
    hearth::Status setState(qint64 id, DownloadState state, const QString& error = {});
    // The file at `position`: what is known about it now (size, hash, etag, bytes, complete).
    hearth::Status saveItem(qint64 id, int position, const DownloadItemRecord& item);
    // Every file of `record` in one transaction, in place of those stored, with its estimated
    // total: the list changed (a safetensors index added its shards, an optional file was dropped).
    hearth::Status saveItems(const DownloadRecord& record);
    hearth::Status remove(qint64 id);

    // The clock (ms since the epoch); empty: the system clock. For tests.
    void setClock(std::function<qint64()> nowMs) { m_nowMs = std::move(nowMs); }

private:
    qint64 now() const;
    hearth::Status requireOpen() const;
    hearth::Result<QList<DownloadRecord>> select(const QString& where, qint64 id);
    // One row of download_files (inside the caller's transaction); `asked` gives catalog_size.
    hearth::Status insertItem(qint64 id, int position, const DownloadItem& asked, const DownloadItemRecord& item);

    QString m_connectionName;
    QSqlDatabase m_db;
    std::function<qint64()> m_nowMs;
};
