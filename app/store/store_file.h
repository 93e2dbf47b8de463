// The history file itself: looking at an existing file without writing to it, opening the
// connection with the store's settings (WAL, foreign keys), telling the open problems apart, and
// moving a file aside. Internal to app/store/.
#pragma once

#include <QDateTime>
#include <QSqlDatabase>
#include <QString>

#include "hearth/status.h"
#include "store/store_types.h"

namespace store {

struct FileCheck {
    hearth::Status status;
    OpenProblem problem = OpenProblem::None;
};

// Creates the folder if missing and checks the file (when it exists) through a read-only
// connection: a SQLite file at all, not from a newer schema, quick_check when asked. Nothing is
// written to an existing file, so a refused one stays byte for byte as it was.
FileCheck checkFile(const QString& path, int busyTimeoutMs, bool quickCheck);

// Opens `db` (a connection already added under its name) read-write and sets WAL,
// synchronous=NORMAL and foreign keys.
FileCheck openWritable(QSqlDatabase& db, const QString& path, int busyTimeoutMs);

// Which way on a failed Status from the schema code calls for.
OpenProblem problemOf(const hearth::Status& status);

// "corrupt", "locked", "newer", ...: the word in a moved-aside file's name.
QString problemLabel(OpenProblem problem);

// Renames path, path-wal and path-shm to "<path>.<label>-<yyyyMMdd-HHmmss>" (+ -wal/-shm, so
// SQLite still finds them together); a number is added if that name is taken.
hearth::Result<QString> moveAside(const QString& path, const QString& label, const QDateTime& when);

} // namespace store
