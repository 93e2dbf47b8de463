#include "downloadstore.h"

#include <QDateTime>
#include <QFileInfo>
#include <QSqlQuery>

#include <atomic>

#include "store/store_file.h"
#include "store/store_schema.h"
#include "store/store_sql.h"

namespace {

constexpr int kBusyTimeoutMs = 2000;

// An empty QString is bound as NULL by Qt SQL; the columns want ''.
QVariant text(const QString& s)
{
    return s.isNull() ? QVariant(QStringLiteral("")) : QVariant(s);
}

QVariant nullableSize(qint64 bytes)
{
    return bytes >= 0 ? QVariant(bytes) : QVariant(QMetaType::fromType<qint64>());
}

DownloadItemRecord itemFromRow(const QSqlQuery& q)
{
    DownloadItemRecord r;
    r.item.repo = q.value(0).toString();
    r.item.remotePath = q.value(1).toString();
    r.item.revision = q.value(2).toString();
    r.item.localPath = q.value(3).toString();
    r.item.expectedBytes = q.value(4).isNull() ? -1 : q.value(4).toLongLong();
    r.item.sha256 = q.value(5).toString();
    r.linkedEtag = q.value(6).toString();
    r.received = q.value(7).toLongLong();
    r.complete = q.value(8).toInt() != 0;
    r.item.optional = q.value(10).toInt() != 0;
    r.item.listsShards = q.value(11).toInt() != 0;
    return r;
}

} // namespace

DownloadStore::DownloadStore() = default;

DownloadStore::~DownloadStore()
{
    close();
}

hearth::Status DownloadStore::open(const QString& path)
{
    close();
    const QString file = QFileInfo(path).absoluteFilePath();
    store::FileCheck check = store::checkFile(file, kBusyTimeoutMs, /*quickCheck=*/false);
    if (!check.status.isOk())
        return check.status;
    static std::atomic<int> counter{0};
    m_connectionName = QStringLiteral("hearth-downloads-%1").arg(++counter);
    m_db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_connectionName);
    check = store::openWritable(m_db, file, kBusyTimeoutMs);
    hearth::Status s = check.status.isOk() ? store::migrate(m_db) : check.status;
    if (!s.isOk()) {
        close();
        return s.withContext(file.toStdString());
    }
    return hearth::Status::ok();
}

void DownloadStore::close()
{
    if (m_db.isValid())
        m_db.close();
    m_db = QSqlDatabase();
    if (!m_connectionName.isEmpty())
        QSqlDatabase::removeDatabase(m_connectionName);
    m_connectionName.clear();
}

bool DownloadStore::isOpen() const
{
    return m_db.isValid() && m_db.isOpen();
}

qint64 DownloadStore::now() const
{
    return m_nowMs ? m_nowMs() : QDateTime::currentMSecsSinceEpoch();
}

hearth::Status DownloadStore::requireOpen() const
{
    return isOpen() ? hearth::Status::ok() : hearth::failedPrecondition("the download list is not open");
}

hearth::Result<qint64> DownloadStore::insert(const DownloadRequest& request, const QString& folder)
{
    HEARTH_TRY(requireOpen());
    store::WriteTransaction tx(m_db);
    HEARTH_TRY(tx.status());
    const qint64 t = now();
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("INSERT INTO downloads (key, name, local_name, entry_path, license, license_url, "
                             "folder, state, created, updated) VALUES (?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?)"));
    for (const QVariant& v : {text(request.key), text(request.name), text(request.localName),
                              text(request.entryPath), text(request.license), text(request.licenseUrl),
                              text(folder), QVariant(t), QVariant(t)})
        q.addBindValue(v);
    HEARTH_TRY(store::runQuery(q, QStringLiteral("adding a download")));
    const qint64 id = q.lastInsertId().toLongLong();
    for (int i = 0; i < request.items.size(); ++i)
        HEARTH_TRY(insertItem(id, i, request.items[i], DownloadItemRecord{request.items[i]}));
    HEARTH_TRY(tx.commit());
    return id;
}

hearth::Status DownloadStore::insertItem(qint64 id, int position, const DownloadItem& asked, const DownloadItemRecord& item)
{
    QSqlQuery f(m_db);
    f.prepare(QStringLiteral("INSERT INTO download_files (download_id, position, repo, remote_path, revision, "
                             "local_path, catalog_size, size, sha256, linked_etag, received, complete, optional, "
                             "lists_shards) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    for (const QVariant& v : {QVariant(id), QVariant(position), text(item.item.repo), text(item.item.remotePath),
                              text(item.item.revision), text(item.item.localPath), nullableSize(asked.expectedBytes),
                              nullableSize(item.item.expectedBytes), text(item.item.sha256), text(item.linkedEtag),
                              QVariant(item.received), QVariant(item.complete ? 1 : 0),
                              QVariant(item.item.optional ? 1 : 0), QVariant(item.item.listsShards ? 1 : 0)})
        f.addBindValue(v);
    return store::runQuery(f, QStringLiteral("adding the files of a download"));
}

hearth::Status DownloadStore::saveItems(const DownloadRecord& record)
{
    HEARTH_TRY(requireOpen());
    store::WriteTransaction tx(m_db);
    HEARTH_TRY(tx.status());
    QSqlQuery d(m_db);
    d.prepare(QStringLiteral("DELETE FROM download_files WHERE download_id = ?"));
    d.addBindValue(record.id);
    HEARTH_TRY(store::runQuery(d, QStringLiteral("replacing the files of a download")));
    for (int i = 0; i < record.items.size(); ++i)
        HEARTH_TRY(insertItem(record.id, i, record.request.items.value(i, record.items[i].item), record.items[i]));
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("UPDATE downloads SET estimated_size = ?, updated = ? WHERE id = ?"));
    for (const QVariant& v : {nullableSize(record.estimatedBytes), QVariant(now()), QVariant(record.id)})
        q.addBindValue(v);
    HEARTH_TRY(store::runQuery(q, QStringLiteral("saving the files of a download")));
    if (q.numRowsAffected() == 0)
        return hearth::notFound("download " + std::to_string(record.id) + " does not exist");
    return tx.commit();
}

hearth::Result<QList<DownloadRecord>> DownloadStore::select(const QString& where, qint64 id)
{
    HEARTH_TRY(requireOpen());
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("SELECT id, key, name, local_name, entry_path, license, license_url, folder, state, "
                             "error, created, updated, estimated_size FROM downloads %1 ORDER BY id").arg(where));
    if (id > 0)
        q.addBindValue(id);
    HEARTH_TRY(store::runQuery(q, QStringLiteral("reading the downloads")));
    QList<DownloadRecord> out;
    while (q.next()) {
        DownloadRecord r;
        r.id = q.value(0).toLongLong();
        r.request.key = q.value(1).toString();
        r.request.name = q.value(2).toString();
        r.request.localName = q.value(3).toString();
        r.request.entryPath = q.value(4).toString();
        r.request.license = q.value(5).toString();
        r.request.licenseUrl = q.value(6).toString();
        r.folder = q.value(7).toString();
        r.state = stateFromName(q.value(8).toString());
        r.error = q.value(9).toString();
        r.created = q.value(10).toLongLong();
        r.updated = q.value(11).toLongLong();
        r.estimatedBytes = q.value(12).isNull() ? -1 : q.value(12).toLongLong();
        out << r;
    }
    for (DownloadRecord& r : out) {
        QSqlQuery f(m_db);
        f.prepare(QStringLiteral("SELECT repo, remote_path, revision, local_path, size, sha256, linked_etag, "
                                 "received, complete, catalog_size, optional, lists_shards FROM download_files WHERE download_id = ? "
                                 "ORDER BY position"));
        f.addBindValue(r.id);
        HEARTH_TRY(store::runQuery(f, QStringLiteral("reading the files of a download")));
        while (f.next()) {
            r.items << itemFromRow(f);
            DownloadItem asked = r.items.last().item;
            asked.expectedBytes = f.value(9).isNull() ? -1 : f.value(9).toLongLong();
            r.request.items << asked;
        }
    }
    return out;
}

hearth::Result<QList<DownloadRecord>> DownloadStore::list()
{
    return select({}, 0);
}

hearth::Result<DownloadRecord> DownloadStore::record(qint64 id)
{
    HEARTH_ASSIGN(QList<DownloadRecord> rows, select(QStringLiteral("WHERE id = ?"), id));
    if (rows.isEmpty())
        return hearth::notFound("download " + std::to_string(id) + " does not exist");
    return rows.first();
}

hearth::Status DownloadStore::setState(qint64 id, DownloadState state, const QString& error)
{
    HEARTH_TRY(requireOpen());
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("UPDATE downloads SET state = ?, error = ?, updated = ? WHERE id = ?"));
    q.addBindValue(stateName(state));
    q.addBindValue(text(error));
    q.addBindValue(now());
    q.addBindValue(id);
    HEARTH_TRY(store::runQuery(q, QStringLiteral("saving the state of a download")));
    if (q.numRowsAffected() == 0)
        return hearth::notFound("download " + std::to_string(id) + " does not exist");
    return hearth::Status::ok();
}

hearth::Status DownloadStore::saveItem(qint64 id, int position, const DownloadItemRecord& item)
{
    HEARTH_TRY(requireOpen());
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("UPDATE download_files SET size = ?, sha256 = ?, linked_etag = ?, received = ?, "
                             "complete = ? WHERE download_id = ? AND position = ?"));
    for (const QVariant& v : {nullableSize(item.item.expectedBytes), text(item.item.sha256),
                              text(item.linkedEtag), QVariant(item.received), QVariant(item.complete ? 1 : 0),
                              QVariant(id), QVariant(position)})
        q.addBindValue(v);
    HEARTH_TRY(store::runQuery(q, QStringLiteral("saving the progress of a download")));
    if (q.numRowsAffected() == 0)
        return hearth::notFound("download " + std::to_string(id) + " has no file " + std::to_string(position));
    return hearth::Status::ok();
}

hearth::Status DownloadStore::remove(qint64 id)
{
    HEARTH_TRY(requireOpen());
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("DELETE FROM downloads WHERE id = ?"));
    q.addBindValue(id);
    return store::runQuery(q, QStringLiteral("removing a download"));
}
