#include "store/store_sql.h"

namespace store {

int sqliteCode(const QSqlError& error)
{
    bool ok = false;
    const int code = error.nativeErrorCode().toInt(&ok);
    return ok ? (code & 0xff) : 0; // extended codes carry the primary code in the low byte
}

hearth::Status sqlStatus(const QSqlError& error, const QString& what)
{
    QString text = error.driverText();
    if (!error.databaseText().isEmpty()) text = error.databaseText();
    const std::string message = (what + QStringLiteral(": ") + text).toStdString();
    switch (sqliteCode(error)) {
    case 5:  // SQLITE_BUSY
    case 6:  // SQLITE_LOCKED
    case 8:  // SQLITE_READONLY
    case 14: // SQLITE_CANTOPEN
        return hearth::failedPrecondition(message);
    case 11: // SQLITE_CORRUPT
    case 26: // SQLITE_NOTADB
        return hearth::dataLoss(message);
    case 13: // SQLITE_FULL
        return hearth::outOfMemory(message);
    default:
        return hearth::internalError(message);
    }
}

hearth::Status execSql(QSqlDatabase& db, const QString& sql)
{
    QSqlQuery query(db);
    if (!query.exec(sql)) return sqlStatus(query.lastError(), sql.left(60).simplified());
    return hearth::Status::ok();
}

hearth::Status runQuery(QSqlQuery& query, const QString& what)
{
    if (!query.exec()) return sqlStatus(query.lastError(), what);
    return hearth::Status::ok();
}

hearth::Result<QVariant> queryValue(QSqlDatabase& db, const QString& sql)
{
    QSqlQuery query(db);
    if (!query.exec(sql)) return sqlStatus(query.lastError(), sql);
    if (!query.next()) return hearth::internalError((sql + QStringLiteral(": no row")).toStdString());
    return query.value(0);
}

QVariant nullableId(qint64 id)
{
    return id > 0 ? QVariant(id) : QVariant(QMetaType::fromType<qint64>());
}

WriteTransaction::WriteTransaction(QSqlDatabase& db) : m_db(db)
{
    m_begin = execSql(m_db, QStringLiteral("BEGIN IMMEDIATE"));
    m_done = !m_begin.isOk();
}

WriteTransaction::~WriteTransaction()
{
    if (!m_done) (void)execSql(m_db, QStringLiteral("ROLLBACK"));
}

hearth::Status WriteTransaction::commit()
{
    if (!m_begin.isOk()) return m_begin;
    hearth::Status s = execSql(m_db, QStringLiteral("COMMIT"));
    // A failed COMMIT leaves the transaction open; the destructor rolls it back.
    if (s.isOk()) m_done = true;
    return s;
}

} // namespace store
