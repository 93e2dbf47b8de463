// DownloadTask, the checks at both ends of a file: a .part left by an earlier run hashed again
// before more is appended, a finished file checked against its SHA-256 (or, with none known, its
// Git blob id, read again from disk) and size, and the verified files moved to their final names.
// The transfers are in downloadtask.cpp.
#include "downloadtask.h"

#include <QDir>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QLockFile>

#include "downloadhash.h"
#include "filesink.h"

void DownloadTask::hashWhileVerifying(const std::function<QFuture<PartHash>(std::shared_ptr<std::atomic_bool>)>& hash,
                                      std::function<void(const PartHash&)> done)
{
    setState(DownloadState::Verifying);
    auto cancel = std::make_shared<std::atomic_bool>(false);
    if (m_rehashCancel)
        m_rehashCancel->store(true);
    m_rehashCancel = cancel;
    auto* watcher = new QFutureWatcher<PartHash>(this);
    connect(watcher, &QFutureWatcher<PartHash>::finished, this, [this, watcher, cancel, done = std::move(done)] {
        watcher->deleteLater();
        if (cancel->load() || m_record.state != DownloadState::Verifying)
            return; // paused or cancelled meanwhile
        const PartHash result = watcher->result();
        if (!result.error.isEmpty()) {
            failWith(result.error);
            return;
        }
        done(result);
    });
    watcher->setFuture(hash(cancel));
}

// A .part from an earlier run: hashed again from its first byte before more is appended.
void DownloadTask::verifyPartThenRun(int i)
{
    m_record.items[i].received = QFileInfo(partPath(i)).size();
    const QString path = partPath(i);
    hashWhileVerifying([path](auto cancel) { return hashPartFile(path, cancel); }, [this, i](const PartHash& result) {
        auto opened = m_context->files->openExisting(partPath(i));
        if (!opened.isOk()) {
            failWith(opened.status());
            return;
        }
        m_part = std::move(opened).value();
        if (m_part->size() != result.bytes) {
            failWith(tr("%1 changed while it was being checked").arg(partPath(i)));
            return;
        }
        m_hash = result.hash;
        m_hashedItem = i;
        m_record.items[i].received = result.bytes;
        setState(DownloadState::Running);
        startTransfer(i);
    });
}

void DownloadTask::itemComplete(int i)
{
    DownloadItemRecord& r = m_record.items[i];
    const QString expected = !r.item.sha256.isEmpty() ? r.item.sha256.toLower() : (isSha256(r.linkedEtag) ? r.linkedEtag : QString());
    const qint64 size = m_part->size();
    if (expected.isEmpty() && isGitBlobId(r.linkedEtag)) {
        verifyGitIdThenAccept(i);
        return;
    }
    if (expected.isEmpty()) {
        failWith(tr("%1 cannot be verified: neither the catalog nor the server gives its SHA-256")
                     .arg(r.item.localPath));
        return;
    }
    const QString actual = QString::fromLatin1(m_hash->result().toHex());
    if (actual != expected || (r.item.expectedBytes >= 0 && size != r.item.expectedBytes)) {
        qWarning("download %lld: %s has SHA-256 %s, expected %s", m_record.id, qPrintable(r.item.localPath),
                 qPrintable(actual), qPrintable(expected));
        discardDamaged(i, tr("the downloaded %1 is damaged (its SHA-256 does not match) and was deleted; Retry "
                             "downloads it again")
                              .arg(r.item.localPath));
        return;
    }
    acceptItem(i);
}

// No SHA-256 is known, only the Git blob id Hugging Face gives a file kept in plain git. Its
// header holds the whole size, so it cannot grow with the bytes as the SHA-256 does (nor survive a
// resume): the finished .part is read again, on the pool like a resumed one.
void DownloadTask::verifyGitIdThenAccept(int i)
{
    const qint64 size = m_part->size();
    const QString path = partPath(i);
    hashWhileVerifying([path](auto cancel) { return hashGitBlob(path, cancel); }, [this, i, size](const PartHash& result) {
        if (result.bytes != size || m_part->size() != size) {
            failWith(tr("%1 changed while it was being checked").arg(partPath(i)));
            return;
        }
        DownloadItemRecord& r = m_record.items[i];
        const QString actual = QString::fromLatin1(result.hash->result().toHex());
        if (actual != r.linkedEtag || (r.item.expectedBytes >= 0 && size != r.item.expectedBytes)) {
            qWarning("download %lld: %s has Git blob id %s, expected %s", m_record.id, qPrintable(r.item.localPath),
                     qPrintable(actual), qPrintable(r.linkedEtag));
            discardDamaged(i, tr("the downloaded %1 is damaged (its Git object id does not match) and was deleted; "
                                 "Retry downloads it again")
                                  .arg(r.item.localPath));
            return;
        }
        setState(DownloadState::Running);
        acceptItem(i);
    });
}

// A damaged or unusable file: nothing of it can be trusted, so it goes, and the task fails with `error`.
void DownloadTask::discardDamaged(int i, const QString& error)
{
    DownloadItemRecord& r = m_record.items[i];
    m_part.reset();
    m_hash.reset();
    m_hashedItem = -1;
    m_context->files->remove(partPath(i));
    r.received = 0;
    r.linkedEtag.clear();
    saveItem(i);
    failWith(error);
}

// Item `i` is verified: it is complete, and the next file starts (or every .part takes its name).
void DownloadTask::acceptItem(int i)
{
    DownloadItemRecord& r = m_record.items[i];
    const qint64 size = m_part->size();
    r.complete = true;
    r.item.expectedBytes = size;
    r.received = size;
    if (!r.item.listsShards)
        saveItem(i);
    else if (!addShards(i)) // saves the whole list, this file's completion with it
        return;
    m_part.reset();
    m_hash.reset();
    m_hashedItem = -1;
    runItem();
}

// Every file is verified: each .part takes its final name, the entry file last.
void DownloadTask::finishAll()
{
    QList<int> order;
    int entry = -1;
    for (int i = 0; i < m_record.items.size(); ++i) {
        if (m_record.items[i].item.localPath == m_record.request.entryPath)
            entry = i;
        else
            order << i;
    }
    if (entry >= 0)
        order << entry;
    QList<int> moved;
    for (int i : std::as_const(order)) {
        const QFileInfo part(partPath(i)), target(finalPath(i));
        // Killed after moving this one last time: it is already where it goes.
        if (!part.exists() && target.exists() && target.size() == m_record.items[i].item.expectedBytes)
            continue;
        if (hearth::Status s = m_context->files->moveNoReplace(partPath(i), finalPath(i)); !s.isOk()) {
            for (int j : std::as_const(moved))
                (void)m_context->files->moveNoReplace(finalPath(j), partPath(j));
            failWith(tr("cannot move the download into place: %1").arg(QString::fromStdString(s.message())));
            return;
        }
        moved << i;
    }
    m_lock.reset();
    setState(DownloadState::Done);
    const QString path = QDir(m_record.folder).filePath(m_record.request.localName);
    qInfo("download %lld: %s registered at %s", m_record.id, qPrintable(m_record.request.key), qPrintable(path));
    emit registered(m_record.request.key, path);
}
