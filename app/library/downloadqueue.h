// DownloadQueue: every download of this Hearth, persisted in the DownloadStore, with at most
// `parallel` running at once (the rest wait as Queued, oldest first). At open it takes up the
// downloads an earlier run left: those that were running or queued are queued again and resume
// from their .part files; paused and failed ones wait for the user.
//
// Before a download is accepted: its local names are safe, the endpoint is allowed, nothing of
// that name is in the models folder yet (a download never replaces a file it did not create),
// and the disk has room for the sizes known so far.
// Threads: lives on one thread (the list model moves it to a thread of its own; `hearth --pull`
// keeps it on the main thread); call it only there. Owns its tasks, the store and the network
// access manager.
#pragma once

#include <QList>
#include <QNetworkAccessManager>
#include <QObject>

#include "downloadstore.h"
#include "downloadtask.h"

class DownloadQueue : public QObject
{
    Q_OBJECT

public:
    explicit DownloadQueue(QObject* parent = nullptr);
    ~DownloadQueue() override; // stops the transfers; their state stays for the next run

    // Tests: a file layer that fails on purpose (not owned; outlives the queue).
    void setFileLayer(FileLayer* files) { m_context.files = files; }
    void setOptions(const DownloadOptions& options);
    void setEndpoint(const QString& endpoint) { m_context.endpoint = endpoint; }
    void setToken(const QByteArray& token) { m_context.token = token; }
    const DownloadOptions& options() const { return m_context.options; }

    // Opens the download list in the history file and takes up its downloads. Without it (or
    // when it fails) downloads work but are not remembered.
    hearth::Status open(const QString& databasePath);

    // A new download of `request` into `folder`, queued; or, for a key already in the list, that
    // download (resumed when it was paused or had failed). Refusals say why.
    hearth::Result<qint64> add(const DownloadRequest& request, const QString& folder);
    void pause(qint64 id);
    void resume(qint64 id); // also: Retry after a failure
    // Stops the download, deletes its .part files and forgets it (a finished model stays).
    void cancel(qint64 id);
    // Stops every transfer, keeping their state (app quit).
    void shutdown();

    QList<DownloadProgress> snapshot() const;
    const DownloadTask* task(qint64 id) const;

signals:
    void changed(const DownloadProgress& progress);
    void removed(qint64 id);
    void registered(qint64 id, const QString& key, const QString& path);

private:
    DownloadTask* adopt(DownloadRecord record);
    DownloadTask* find(qint64 id) const;
    DownloadTask* findKey(const QString& key) const;
    hearth::Status checkRequest(const DownloadRequest& request, const QString& folder) const;
    void forget(DownloadTask* task);
    void schedule();

    QNetworkAccessManager m_network;
    DownloadStore m_store;
    DownloadContext m_context;
    QList<DownloadTask*> m_tasks; // children, oldest first
    qint64 m_unsavedId = 0;       // ids of downloads not in the store count down from -1
    bool m_scheduling = false, m_scheduleAgain = false;
};
