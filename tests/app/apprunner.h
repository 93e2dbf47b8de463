// Starting the real `hearth` executable from a test: a scratch home (HOME and the XDG folders,
// with a private runtime folder) so that nothing of the user's is read or touched, the offscreen
// platform, and the app's log file, which the tests read to see what the app did.
#pragma once

#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <memory>

class AppRunner
{
public:
    AppRunner();
    // Kills every `hearth` that logged its start here and still runs (a restarted one is not a
    // child of the test), so that a failed test leaves no app behind.
    ~AppRunner();
    bool isValid() const { return m_valid; }

    QString home() const { return m_dir.path(); }
    QString logPath() const;                                           // the app's log file
    QString settingsPath() const;                                      // its QSettings file
    QString socketPath(const QString& key = QStringLiteral("hearth")) const; // AppInstance::instanceKey
    QString log() const;                                               // the log so far

    // Starts `hearth args` in the scratch home (the working folder too), with `extraEnv` added.
    std::unique_ptr<QProcess> start(const QStringList& args,
                                    const QProcessEnvironment& extraEnv = QProcessEnvironment()) const;
    // Polls the log until it contains `text`; false after timeoutMs.
    bool waitForLog(const QString& text, int timeoutMs) const;
    // Polls until a Hearth listens on the socket of `key`; false after timeoutMs.
    bool waitForListener(int timeoutMs, const QString& key = QStringLiteral("hearth")) const;

private:
    QTemporaryDir m_dir;
    bool m_valid = false;
};

// The marker of a log line written by the process `pid` (logfile::formatLine).
QString logLineOf(qint64 pid, const QString& level, const QString& text);
