// DownloadTask, where the file list changes: the shards a safetensors index names join the
// download once the index is verified, and an optional file the server does not have leaves it.
//
// Resume: the changed list is written to the store whole, in the same transaction as the index's
// "complete" flag, so a restart (or a kill) finds the shards as ordinary files and resumes the one
// it was in. The index is not read again: killed before that transaction, the index is simply not
// complete yet, and is verified and read again as any file would be.
#include "downloadtask.h"

#include <QFileInfo>

#include <algorithm>

#include "downloadsafety.h"
#include "downloadstore.h"
#include "filesink.h"
#include "shardindex.h"

namespace {

// `path` with its last segment replaced by `name` ("dir/index.json" -> "dir/name").
QString sibling(const QString& path, const QString& name)
{
    const qsizetype slash = path.lastIndexOf(QLatin1Char('/'));
    return slash < 0 ? name : path.left(slash + 1) + name;
}

} // namespace

void DownloadTask::saveItems()
{
    if (!m_context->store || !m_context->store->isOpen())
        return;
    if (hearth::Status s = m_context->store->saveItems(m_record); !s.isOk())
        qWarning("download %lld: %s", m_record.id, s.message().c_str());
}

// Item `i`, a verified index marked complete: its shards become files of the download. The
// index comes from the network: a name it gives that is not a plain .safetensors file name fails
// the download, and the index's bytes go (a Retry fetches it again).
bool DownloadTask::addShards(int i)
{
    const DownloadItem from = m_record.items[i].item;
    auto refuse = [&](const QString& why) {
        m_record.items[i].complete = false; // acceptItem marked it before asking us
        discardDamaged(i, tr("%1 cannot be used: %2").arg(from.localPath, why));
        return false;
    };
    ShardIndex index;
    QString why;
    if (!readShardIndex(partPath(i), &index, &why))
        return refuse(why);
    QList<DownloadItem> shards;
    for (const QString& shard : std::as_const(index.shards)) {
        shards << DownloadItem{from.repo, sibling(from.remotePath, shard), from.revision, sibling(from.localPath, shard)};
        if (!isSafeLocalPath(shards.last().localPath, &why)) // parseShardIndex refuses such names already
            return refuse(why);
    }
    qint64 others = 0; // what the index's total leaves out: the other files, as far as known
    QStringList have;
    for (const DownloadItemRecord& r : std::as_const(m_record.items)) {
        others += std::max<qint64>(0, r.item.expectedBytes);
        have << r.item.localPath;
    }
    for (const DownloadItem& item : std::as_const(shards)) {
        if (have.contains(item.localPath))
            continue;
        m_record.items << DownloadItemRecord{item};
        m_record.request.items << item;
    }
    m_record.estimatedBytes = index.totalBytes > 0 ? index.totalBytes + others : -1;
    qInfo("download %lld: %s names %lld shards", m_record.id, qPrintable(from.localPath), qint64(index.shards.size()));
    saveItems();
    return true;
}

// Item `i` is optional and the server answered 404: the download goes on without it.
void DownloadTask::dropOptional(int i)
{
    qInfo("download %lld: %s is not on the server; it is optional, so the download goes on without it", m_record.id,
          qPrintable(m_record.items[i].item.localPath));
    m_part.reset();
    m_hash.reset();
    m_hashedItem = -1;
    m_context->files->remove(partPath(i));
    m_record.items.removeAt(i);
    m_record.request.items.removeAt(i);
    saveItems();
    runItem();
}
