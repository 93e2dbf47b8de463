// The app's log file: every Qt message (qInfo, qWarning, QML warnings, ...) as one timestamped
// line, appended to a file in the user's state folder and flushed at once, so that a crash or a
// kill keeps everything written before it. Past a size the file moves to "<file>.1" (one older
// file is kept). Messages still reach stderr as before. The handler may be called from any thread.
#pragma once

#include <QDateTime>
#include <QString>
#include <QtGlobal>

namespace logfile {

constexpr qint64 kDefaultMaxBytes = 2 * 1024 * 1024;

// Linux: $XDG_STATE_HOME/hearth/hearth.log (default ~/.local/state); elsewhere the app's local
// data folder.
QString defaultPath();
// Opens `path` (creating its folder) and installs the message handler. False when the file cannot
// be opened: messages then go to stderr only, as without a log.
bool install(const QString& path, qint64 maxBytes = kDefaultMaxBytes);
// Restores the previous handler and closes the file.
void uninstall();
// The file being written; empty when none.
QString currentPath();
// One line of the log (without the newline): "2026-12-01 10:00:00.123 [pid] warning [category]
// text" (two starts may share the file); lines inside the text are indented by two spaces.
QString formatLine(QtMsgType type, const char* category, const QString& text, const QDateTime& when, qint64 pid);

} // namespace logfile
