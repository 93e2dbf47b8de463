#include "apprunner.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QLocalSocket>
#include <QRegularExpression>
#include <QThread>

#include <signal.h>

AppRunner::AppRunner()
{
    // The runtime folder must be private (0700), as XDG asks and Qt checks; QTemporaryDir is.
    m_valid = m_dir.isValid() && QDir(m_dir.path()).mkpath(QStringLiteral("config")) &&
              QDir(m_dir.path()).mkpath(QStringLiteral("data")) && QDir(m_dir.path()).mkpath(QStringLiteral("state"));
}

AppRunner::~AppRunner()
{
    static const QRegularExpression started(QStringLiteral("^\\S+ \\S+ \\[(\\d+)\\] info start: Hearth "),
                                            QRegularExpression::MultilineOption);
    const QString exe = QFileInfo(QStringLiteral(HEARTH_EXE)).canonicalFilePath();
    for (auto it = started.globalMatch(log()); it.hasNext();) {
        const qint64 pid = it.next().captured(1).toLongLong();
        // Only a process that still runs our executable: a pid can be reused once it ended.
        if (QFileInfo(QStringLiteral("/proc/%1/exe").arg(pid)).canonicalFilePath() == exe)
            ::kill(pid_t(pid), SIGKILL);
    }
}

QString AppRunner::logPath() const
{
    return m_dir.filePath(QStringLiteral("state/hearth/hearth.log"));
}

QString AppRunner::settingsPath() const
{
    return m_dir.filePath(QStringLiteral("config/Hearth/Hearth.conf"));
}

QString AppRunner::socketPath(const QString& key) const
{
    return m_dir.filePath(key + QStringLiteral(".socket"));
}

QString AppRunner::log() const
{
    QFile file(logPath());
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

std::unique_ptr<QProcess> AppRunner::start(const QStringList& args, const QProcessEnvironment& extraEnv) const
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("HOME"), home());
    env.insert(QStringLiteral("XDG_RUNTIME_DIR"), home());
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_dir.filePath(QStringLiteral("config")));
    env.insert(QStringLiteral("XDG_DATA_HOME"), m_dir.filePath(QStringLiteral("data")));
    env.insert(QStringLiteral("XDG_STATE_HOME"), m_dir.filePath(QStringLiteral("state")));
    env.insert(QStringLiteral("XDG_CACHE_HOME"), m_dir.filePath(QStringLiteral("cache")));
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    for (const QString& key : extraEnv.keys())
        env.insert(key, extraEnv.value(key));
    auto process = std::make_unique<QProcess>();
    process->setProcessEnvironment(env);
    process->setWorkingDirectory(home());
    process->setProcessChannelMode(QProcess::ForwardedChannels); // the app's messages show in the test's output
    process->start(QStringLiteral(HEARTH_EXE), args);
    process->waitForStarted(10000);
    return process;
}

bool AppRunner::waitForLog(const QString& text, int timeoutMs) const
{
    QElapsedTimer clock;
    clock.start();
    while (!log().contains(text)) {
        if (clock.elapsed() > timeoutMs)
            return false;
        QThread::msleep(50);
    }
    return true;
}

bool AppRunner::waitForListener(int timeoutMs, const QString& key) const
{
    QElapsedTimer clock;
    clock.start();
    for (;;) {
        QLocalSocket socket;
        socket.connectToServer(socketPath(key));
        if (socket.waitForConnected(200)) {
            socket.disconnectFromServer();
            return true;
        }
        if (clock.elapsed() > timeoutMs)
            return false;
        QThread::msleep(100);
    }
}

QString logLineOf(qint64 pid, const QString& level, const QString& text)
{
    return QStringLiteral("[%1] %2 %3").arg(pid).arg(level, text);
}
