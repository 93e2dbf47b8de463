// Small helpers shared by the store's files: running SQL through Qt SQL, turning a QSqlError
// into a hearth::Status with context, and a write transaction that rolls back unless committed.
// Internal to app/store/.
#pragma once

#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QString>
#include <QVariant>

#include "hearth/status.h"

namespace store {

// SQLite's primary result code behind a Qt SQL error (SQLITE_BUSY = 5, ...); 0 if none.
int sqliteCode(const QSqlError& error);

// "what: <SQLite's message>". Busy/locked and read-only files are FailedPrecondition, a damaged
// or foreign file DataLoss, anything else Internal.
hearth::Status sqlStatus(const QSqlError& error, const QString& what);

// Runs one statement (QSQLITE runs only the first of several).
hearth::Status execSql(QSqlDatabase& db, const QString& sql);

// Runs a prepared query with its bound values.
hearth::Status runQuery(QSqlQuery& query, const QString& what);

// The first column of the first row of a one-value query (a PRAGMA, a count).
hearth::Result<QVariant> queryValue(QSqlDatabase& db, const QString& sql);

// NULL for nullopt / 0 ids: what an optional column receives.
QVariant nullableId(qint64 id);

// BEGIN IMMEDIATE on construction (takes the write lock at once, so a busy database fails here
// rather than halfway); ROLLBACK on destruction unless commit() succeeded.
class WriteTransaction {
public:
    explicit WriteTransaction(QSqlDatabase& db);
    ~WriteTransaction();
    WriteTransaction(const WriteTransaction&) = delete;
    WriteTransaction& operator=(const WriteTransaction&) = delete;

    const hearth::Status& status() const { return m_begin; } // whether BEGIN worked
    hearth::Status commit();

private:
    QSqlDatabase& m_db;
    hearth::Status m_begin;
    bool m_done = false;
};

} // namespace store
