// The one running Hearth per user and history file. The first start holds a lock file and
// listens on a local socket, both in the user's runtime folder; a later start hands its request
// (a model, a conversation) to it and exits, so one database is never opened by two processes.
// A lock left by a crashed instance is stale (its process is gone): the next start takes over.
// Also: the model and conversation to open at start, and restarting the app (after a sticky GPU
// error: everything is already saved). GUI thread only.
#pragma once

#include <QObject>
#include <QPointer>
#include <QQmlEngine>

#include <memory>

#include "startoptions.h"

class QLocalServer;
class QLockFile;
class QWindow;

class AppInstance : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    QML_SINGLETON
    // For the user when the model asked for or used last is not there (empty state); else empty.
    Q_PROPERTY(QString startupNotice READ startupNotice NOTIFY startupNoticeChanged)
    // What to say when the GPU failed for good (a sticky CUDA error), with restartApp as the way on.
    Q_PROPERTY(QString restartOffer READ restartOffer CONSTANT)

public:
    enum class Claim {
        Primary,     // this process is the running Hearth (or runs alone: no runtime folder)
        Forwarded,   // the running Hearth took the request: exit 0
        Unreachable, // another Hearth holds the lock but does not answer
    };

    // Not default-constructible: Qt 6.4's QML would make its own singleton instead of create().
    explicit AppInstance(QObject* parent);
    ~AppInstance() override;

    // main() makes the one instance and registers it here before QML starts; QML's singleton is it.
    static void setShared(AppInstance* instance);
    static AppInstance* create(QQmlEngine*, QJSEngine*);

    // The lock and socket name for `databasePath` (empty: the default history).
    static QString instanceKey(const QString& databasePath);
    // Becomes the running Hearth, or hands `options` to it (waiting up to timeoutMs for its answer).
    Claim claim(const StartOptions& options, int timeoutMs = 5000);
    // The window to raise when another start asks.
    void setWindow(QWindow* window);

    // What this start asked for, and what it is to open (see chooseStartModel).
    void setStart(const StartOptions& options, const StartModel& model);
    const StartOptions& startOptions() const { return m_start; }
    QString startupNotice() const { return m_notice; }
    static QString restartOffer();
    // Emits openRequested / conversationRequested for this start's model and conversation once
    // the event loop runs (so that objects made meanwhile still see them).
    void announceStart();

    // What is open now (the controller reports it), for restartApp.
    Q_INVOKABLE void setCurrent(const QString& modelPath, qint64 conversationId);
    // Quits; once the process has released the database and the lock, main() starts Hearth again
    // on the current model and conversation (restartCommand).
    Q_INVOKABLE void restartApp();
    bool restartRequested() const { return m_restart; }
    QStringList restartCommand() const { return restartArguments(m_current); }
    // Gives up the lock and the socket (before a restart starts the next process).
    void release();

signals:
    void openRequested(const QString& path);
    void conversationRequested(qint64 id);
    void startupNoticeChanged();

private:
    void listen(const QString& socketPath);
    void readRequest();
    void handleRequest(const QByteArray& json);
    void raiseWindow();

    QString m_key;
    std::unique_ptr<QLockFile> m_lock;
    QLocalServer* m_server = nullptr; // child
    QPointer<QWindow> m_window;
    StartOptions m_start, m_current;
    QString m_notice;
    bool m_restart = false;
};
