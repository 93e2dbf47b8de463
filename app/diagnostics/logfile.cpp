#include "logfile.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QMutex>
#include <QStandardPaths>

#include <algorithm>

namespace logfile {
namespace {

struct LogState {
    QMutex mutex;
    QFile file;
    qint64 maxBytes = kDefaultMaxBytes;
    QtMessageHandler previous = nullptr;
    bool installed = false;
    qint64 pid = 0;
};

LogState& state()
{
    static LogState s;
    return s;
}

// A message raised while writing a message (QFile warns) goes to the previous handler only.
thread_local bool t_writing = false;

bool openFile(LogState& s)
{
    return s.file.open(QIODevice::WriteOnly | QIODevice::Append | QIODevice::Text);
}

// Keeps one older file: "<file>.1".
void rotate(LogState& s)
{
    const QString path = s.file.fileName();
    s.file.close();
    QFile::remove(path + QStringLiteral(".1"));
    QFile::rename(path, path + QStringLiteral(".1"));
    openFile(s);
}

const char* levelName(QtMsgType type)
{
    switch (type) {
    case QtDebugMsg: return "debug";
    case QtInfoMsg: return "info";
    case QtWarningMsg: return "warning";
    case QtCriticalMsg: return "critical";
    case QtFatalMsg: return "fatal";
    }
    return "message";
}

void handler(QtMsgType type, const QMessageLogContext& context, const QString& text)
{
    LogState& s = state();
    if (!t_writing) {
        t_writing = true;
        const QByteArray line =
            (formatLine(type, context.category, text, QDateTime::currentDateTime(), s.pid) + QLatin1Char('\n')).toUtf8();
        {
            QMutexLocker lock(&s.mutex);
            if (s.file.isOpen()) {
                if (s.file.size() > 0 && s.file.size() + line.size() > s.maxBytes)
                    rotate(s);
                s.file.write(line);
                s.file.flush(); // a kill must not lose the lines before it
            }
        }
        t_writing = false;
    }
    if (s.previous)
        s.previous(type, context, text);
}

} // namespace

QString defaultPath()
{
#if defined(Q_OS_UNIX) && !defined(Q_OS_MACOS)
    // The XDG base directory spec puts logs under the state folder; Qt 6.4 has no name for it.
    QString stateHome = qEnvironmentVariable("XDG_STATE_HOME");
    if (stateHome.isEmpty() || QDir::isRelativePath(stateHome))
        stateHome = QDir::homePath() + QStringLiteral("/.local/state");
    return stateHome + QStringLiteral("/hearth/hearth.log");
#else
    return QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation) + QStringLiteral("/hearth.log");
#endif
}

bool install(const QString& path, qint64 maxBytes)
{
    LogState& s = state();
    {
        QMutexLocker lock(&s.mutex);
        s.file.close();
        s.file.setFileName(path);
        s.maxBytes = std::max<qint64>(maxBytes, 1024);
        s.pid = QCoreApplication::applicationPid();
        QDir().mkpath(QFileInfo(path).absolutePath());
        if (!openFile(s))
            return false;
        if (s.file.size() > s.maxBytes)
            rotate(s);
    }
    if (!s.installed) {
        s.previous = qInstallMessageHandler(handler);
        s.installed = true;
    }
    return true;
}

void uninstall()
{
    LogState& s = state();
    if (s.installed) {
        qInstallMessageHandler(s.previous);
        s.installed = false;
    }
    QMutexLocker lock(&s.mutex);
    s.file.close();
}

QString currentPath()
{
    LogState& s = state();
    QMutexLocker lock(&s.mutex);
    return s.file.isOpen() ? s.file.fileName() : QString();
}

QString formatLine(QtMsgType type, const char* category, const QString& text, const QDateTime& when, qint64 pid)
{
    QString line = when.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz")) + QStringLiteral(" [%1] ").arg(pid) +
                   QLatin1String(levelName(type));
    if (category && qstrcmp(category, "default") != 0)
        line += QStringLiteral(" [%1]").arg(QLatin1String(category));
    QString body = text;
    body.replace(QLatin1Char('\n'), QStringLiteral("\n  "));
    return line + QLatin1Char(' ') + body;
}

} // namespace logfile
