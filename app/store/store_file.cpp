#include "store/store_file.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSqlError>
#include <QSqlQuery>

#include <atomic>

#include "store/store_schema.h"
#include "store/store_sql.h"

namespace store {
namespace {

FileCheck fail(OpenProblem problem, const QString& message)
{
    const std::string m = message.toStdString();
    switch (problem) {
    case OpenProblem::Corrupt: return {hearth::dataLoss(m), problem};
    case OpenProblem::NewerVersion: return {hearth::unsupported(m), problem};
    case OpenProblem::Locked:
    case OpenProblem::NotWritable: return {hearth::failedPrecondition(m), problem};
    default: return {hearth::internalError(m), problem};
    }
}

OpenProblem problemOf(const QSqlError& error)
{
    switch (sqliteCode(error)) {
    case 5:  // SQLITE_BUSY
    case 6:  // SQLITE_LOCKED
        return OpenProblem::Locked;
    case 11: // SQLITE_CORRUPT
    case 26: // SQLITE_NOTADB
        return OpenProblem::Corrupt;
    case 3:  // SQLITE_PERM
    case 8:  // SQLITE_READONLY
    case 14: // SQLITE_CANTOPEN
        return OpenProblem::NotWritable;
    default:
        return OpenProblem::Failed;
    }
}

FileCheck failSql(const QSqlError& error, const QString& path)
{
    const OpenProblem problem = problemOf(error);
    QString text = error.databaseText().isEmpty() ? error.driverText() : error.databaseText();
    if (problem == OpenProblem::Locked) text += QStringLiteral(" (another program is using it)");
    return fail(problem, path + QStringLiteral(": ") + text);
}

FileCheck newerVersion(const QString& path, qint64 version)
{
    return fail(OpenProblem::NewerVersion,
                QStringLiteral("%1 was written by a newer version of Hearth (history schema %2; this version "
                               "reads up to %3). It was left unchanged.")
                    .arg(path).arg(version).arg(kSchemaVersion));
}

// Runs a one-row PRAGMA; on failure `check` is filled in.
QVariant pragma(QSqlDatabase& db, const QString& sql, const QString& path, FileCheck& check)
{
    QSqlQuery q(db);
    if (!q.exec(sql) || !q.next()) {
        check = failSql(q.lastError(), path);
        return {};
    }
    return q.value(0);
}

FileCheck inspect(QSqlDatabase& db, const QString& path, bool quickCheck)
{
    FileCheck check;
    const int version = pragma(db, QStringLiteral("PRAGMA user_version"), path, check).toInt();
    if (!check.status.isOk()) return check;
    if (version > kSchemaVersion) return newerVersion(path, version);
    if (version == 0) {
        const int tables = pragma(db, QStringLiteral("SELECT count(*) FROM sqlite_master"), path, check).toInt();
        if (!check.status.isOk()) return check;
        if (tables > 0)
            return fail(OpenProblem::Failed, path + QStringLiteral(" is a SQLite file, but not Hearth's history"));
    }
    if (quickCheck) {
        const QString result = pragma(db, QStringLiteral("PRAGMA quick_check(1)"), path, check).toString();
        if (!check.status.isOk()) return check;
        if (result != QLatin1String("ok"))
            return fail(OpenProblem::Corrupt, path + QStringLiteral(" is damaged: ") + result);
    }
    return check;
}

// SQLite's own file header: 16 magic bytes, and PRAGMA user_version big-endian at offset 60.
// Reading it directly refuses a foreign or newer file without SQLite creating -wal/-shm files
// beside it. (With a -wal file present the header may be stale; SQLite then has the last word.)
FileCheck checkHeader(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return fail(OpenProblem::NotWritable, QStringLiteral("cannot read %1: %2").arg(path, file.errorString()));
    const QByteArray header = file.read(100);
    if (header.size() < 100 || !header.startsWith(QByteArrayLiteral("SQLite format 3\0")))
        return fail(OpenProblem::Corrupt, path + QStringLiteral(": file is not a database"));
    const auto* b = reinterpret_cast<const uchar*>(header.constData()) + 60;
    const qint64 version = (qint64(b[0]) << 24) | (b[1] << 16) | (b[2] << 8) | b[3];
    if (version > kSchemaVersion) return newerVersion(path, version);
    return {};
}

QString uniqueConnectionName()
{
    static std::atomic<int> counter{0};
    return QStringLiteral("hearth-store-check-%1").arg(++counter);
}

} // namespace

FileCheck checkFile(const QString& path, int busyTimeoutMs, bool quickCheck)
{
    const QFileInfo info(path);
    const QString folder = info.absolutePath();
    if (!QFileInfo::exists(folder) && !QDir().mkpath(folder))
        return fail(OpenProblem::NotWritable, QStringLiteral("cannot create the folder %1").arg(folder));
    if (info.isDir()) return fail(OpenProblem::NotWritable, path + QStringLiteral(" is a folder"));
    // WAL keeps two files beside the database, so the folder must be writable too.
    if (!QFileInfo(folder).isWritable())
        return fail(OpenProblem::NotWritable, QStringLiteral("the folder %1 is not writable").arg(folder));
    if (!info.exists() || info.size() == 0) return {};
    if (!info.isWritable()) return fail(OpenProblem::NotWritable, path + QStringLiteral(" is read-only"));
    if (!QFileInfo::exists(path + QStringLiteral("-wal")))
        if (FileCheck header = checkHeader(path); !header.status.isOk()) return header;

    const QString name = uniqueConnectionName();
    FileCheck check;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
        db.setDatabaseName(path);
        db.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY;QSQLITE_BUSY_TIMEOUT=%1").arg(busyTimeoutMs));
        check = db.open() ? inspect(db, path, quickCheck) : failSql(db.lastError(), path);
        db.close();
    }
    QSqlDatabase::removeDatabase(name);
    return check;
}

FileCheck openWritable(QSqlDatabase& db, const QString& path, int busyTimeoutMs)
{
    db.setDatabaseName(path);
    db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=%1").arg(busyTimeoutMs));
    if (!db.open()) return failSql(db.lastError(), path);
    FileCheck check;
    // WAL: readers never block the writer, and a commit is one append to the -wal file.
    // NORMAL: a commit survives the app being killed; only a power cut can lose the last ones.
    const QString mode = pragma(db, QStringLiteral("PRAGMA journal_mode = WAL"), path, check).toString();
    if (!check.status.isOk()) return check;
    if (mode != QLatin1String("wal"))
        qWarning("history %s: the file system does not allow WAL; using journal mode %s", qPrintable(path),
                 qPrintable(mode));
    if (hearth::Status s = execSql(db, QStringLiteral("PRAGMA synchronous = NORMAL")); !s.isOk())
        return {s, OpenProblem::Failed};
    if (hearth::Status s = execSql(db, QStringLiteral("PRAGMA foreign_keys = ON")); !s.isOk())
        return {s, OpenProblem::Failed};
    const int foreignKeys = pragma(db, QStringLiteral("PRAGMA foreign_keys"), path, check).toInt();
    if (!check.status.isOk()) return check;
    if (foreignKeys != 1) return fail(OpenProblem::Failed, QStringLiteral("this SQLite has no foreign key support"));
    return check;
}

OpenProblem problemOf(const hearth::Status& status)
{
    switch (status.code()) {
    case hearth::StatusCode::Ok: return OpenProblem::None;
    case hearth::StatusCode::Unsupported: return OpenProblem::NewerVersion;
    case hearth::StatusCode::DataLoss: return OpenProblem::Corrupt;
    case hearth::StatusCode::FailedPrecondition: return OpenProblem::Locked;
    default: return OpenProblem::Failed;
    }
}

QString problemLabel(OpenProblem problem)
{
    switch (problem) {
    case OpenProblem::Corrupt: return QStringLiteral("corrupt");
    case OpenProblem::NewerVersion: return QStringLiteral("newer");
    case OpenProblem::Locked: return QStringLiteral("locked");
    case OpenProblem::NotWritable: return QStringLiteral("unwritable");
    case OpenProblem::None:
    case OpenProblem::Failed: break;
    }
    return QStringLiteral("old");
}

hearth::Result<QString> moveAside(const QString& path, const QString& label, const QDateTime& when)
{
    if (!QFileInfo::exists(path)) return hearth::notFound((path + QStringLiteral(": no such file")).toStdString());
    const QString base = path + QLatin1Char('.') + label + QLatin1Char('-') +
                         when.toString(QStringLiteral("yyyyMMdd-HHmmss"));
    QString aside = base;
    for (int n = 2; QFileInfo::exists(aside) || QFileInfo::exists(aside + QStringLiteral("-wal")); ++n)
        aside = base + QLatin1Char('-') + QString::number(n);
    QFile file(path);
    if (!file.rename(aside))
        return hearth::failedPrecondition(
            QStringLiteral("cannot rename %1 to %2: %3").arg(path, aside, file.errorString()).toStdString());
    // The -wal file may hold the latest commits: it goes with the file. The -shm index is
    // rebuilt from the -wal, so one that cannot be moved is simply removed.
    QFile wal(path + QStringLiteral("-wal"));
    if (wal.exists() && !wal.rename(aside + QStringLiteral("-wal")))
        return hearth::failedPrecondition(
            QStringLiteral("moved %1 to %2, but not its -wal file: %3").arg(path, aside, wal.errorString())
                .toStdString());
    QFile shm(path + QStringLiteral("-shm"));
    if (shm.exists() && !shm.rename(aside + QStringLiteral("-shm"))) shm.remove();
    return aside;
}

} // namespace store
