#include "appinstance.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocalServer>
#include <QLocalSocket>
#include <QLockFile>
#include <QStandardPaths>
#include <QThread>
#include <QTimer>
#include <QWindow>

namespace {

QPointer<AppInstance> s_shared;

constexpr qint64 kMaxRequestBytes = 64 * 1024; // a request is a path and a number

QByteArray encodeRequest(const StartOptions& options)
{
    QJsonObject request;
    request[QStringLiteral("model")] = options.modelPath;
    request[QStringLiteral("conversation")] = options.conversationId;
    return QJsonDocument(request).toJson(QJsonDocument::Compact) + '\n';
}

// Sends the request and waits for the running instance's "ok".
bool forward(const QString& socketPath, const StartOptions& options, int timeoutMs)
{
    QElapsedTimer clock;
    clock.start();
    QLocalSocket socket;
    // The running instance takes the lock a moment before it listens: try again until then.
    for (;;) {
        socket.connectToServer(socketPath);
        if (socket.waitForConnected(500))
            break;
        if (clock.elapsed() > timeoutMs)
            return false;
        QThread::msleep(100);
    }
    socket.write(encodeRequest(options));
    if (!socket.waitForBytesWritten(timeoutMs))
        return false;
    QByteArray answer;
    while (!answer.contains('\n')) {
        const int left = int(timeoutMs - clock.elapsed());
        if (left <= 0 || !socket.waitForReadyRead(left))
            return false;
        answer += socket.readAll();
    }
    return answer.startsWith("ok");
}

} // namespace

AppInstance::AppInstance(QObject* parent)
    : QObject(parent)
{
}

AppInstance::~AppInstance()
{
    release();
}

void AppInstance::setShared(AppInstance* instance)
{
    s_shared = instance;
}

AppInstance* AppInstance::create(QQmlEngine*, QJSEngine*)
{
    // main() registers its instance; a QML test without one gets a plain instance that claims
    // nothing (and that the engine deletes, which clears s_shared).
    if (!s_shared)
        s_shared = new AppInstance(nullptr);
    else
        QJSEngine::setObjectOwnership(s_shared, QJSEngine::CppOwnership);
    return s_shared;
}

QString AppInstance::instanceKey(const QString& databasePath)
{
    if (databasePath.isEmpty())
        return QStringLiteral("hearth");
    const QByteArray hash = QCryptographicHash::hash(databasePath.toUtf8(), QCryptographicHash::Sha1);
    return QStringLiteral("hearth-") + QString::fromLatin1(hash.toHex().left(12));
}

AppInstance::Claim AppInstance::claim(const StartOptions& options, int timeoutMs)
{
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::RuntimeLocation);
    if (dir.isEmpty() || !QDir().mkpath(dir)) {
        qWarning("instance: no runtime folder; running without the single-instance check");
        return Claim::Primary;
    }
    m_key = instanceKey(options.databasePath);
    const QString base = QDir(dir).filePath(m_key);
    m_lock = std::make_unique<QLockFile>(base + QStringLiteral(".lock"));
    // Only a dead holder makes the lock stale, however long a Hearth has been running.
    m_lock->setStaleLockTime(0);
    if (m_lock->tryLock(0)) {
        listen(base + QStringLiteral(".socket"));
        return Claim::Primary;
    }
    const QLockFile::LockError error = m_lock->error();
    m_lock.reset();
    if (error != QLockFile::LockFailedError) {
        qWarning("instance: cannot create %s.lock; running without the single-instance check", qPrintable(base));
        return Claim::Primary;
    }
    if (forward(base + QStringLiteral(".socket"), options, timeoutMs)) {
        qInfo("instance: handed the request to the running Hearth");
        return Claim::Forwarded;
    }
    return Claim::Unreachable;
}

void AppInstance::listen(const QString& socketPath)
{
    // We hold the lock, so a socket file left there belongs to an instance that crashed.
    QLocalServer::removeServer(socketPath);
    m_server = new QLocalServer(this);
    m_server->setSocketOptions(QLocalServer::UserAccessOption);
    if (!m_server->listen(socketPath)) {
        qWarning("instance: cannot listen on %s: %s", qPrintable(socketPath), qPrintable(m_server->errorString()));
        return;
    }
    connect(m_server, &QLocalServer::newConnection, this, [this] {
        while (QLocalSocket* socket = m_server->nextPendingConnection()) {
            connect(socket, &QLocalSocket::disconnected, socket, &QObject::deleteLater);
            connect(socket, &QLocalSocket::readyRead, this, &AppInstance::readRequest);
        }
    });
}

void AppInstance::readRequest()
{
    auto* socket = qobject_cast<QLocalSocket*>(sender());
    if (!socket)
        return;
    if (!socket->canReadLine()) {
        if (socket->bytesAvailable() > kMaxRequestBytes)
            socket->abort();
        return;
    }
    const QByteArray line = socket->readLine(kMaxRequestBytes);
    socket->write("ok\n");
    socket->disconnectFromServer();
    handleRequest(line);
}

void AppInstance::handleRequest(const QByteArray& json)
{
    const QJsonObject request = QJsonDocument::fromJson(json).object();
    const QString model = request.value(QStringLiteral("model")).toString();
    const qint64 conversation = request.value(QStringLiteral("conversation")).toInteger();
    qInfo("instance: another start asked to open model \"%s\" conversation %lld", qPrintable(model),
          static_cast<long long>(conversation));
    raiseWindow();
    if (!model.isEmpty())
        emit openRequested(model);
    if (conversation > 0)
        emit conversationRequested(conversation);
}

void AppInstance::setWindow(QWindow* window)
{
    m_window = window;
}

void AppInstance::raiseWindow()
{
    if (!m_window)
        return;
    m_window->setWindowStates(m_window->windowStates() & ~Qt::WindowMinimized);
    m_window->show();
    m_window->raise();
    m_window->requestActivate(); // where the platform allows it (Wayland may only flash it)
}

void AppInstance::setStart(const StartOptions& options, const StartModel& model)
{
    m_start = options;
    m_current = options;
    m_current.modelPath = model.path;
    if (m_notice != model.notice) {
        m_notice = model.notice;
        emit startupNoticeChanged();
    }
    if (!m_notice.isEmpty())
        qWarning("start: %s", qPrintable(m_notice));
}

void AppInstance::announceStart()
{
    QTimer::singleShot(0, this, [this] {
        qInfo("start: model \"%s\", conversation %lld", qPrintable(m_current.modelPath),
              static_cast<long long>(m_current.conversationId));
        if (!m_current.modelPath.isEmpty())
            emit openRequested(m_current.modelPath);
        if (m_current.conversationId > 0)
            emit conversationRequested(m_current.conversationId);
    });
}

QString AppInstance::restartOffer()
{
    return tr("The graphics card stopped working, and Hearth can use it again only after a restart. "
              "Everything you wrote and every reply so far is saved. Restart Hearth to continue this "
              "conversation.");
}

void AppInstance::setCurrent(const QString& modelPath, qint64 conversationId)
{
    m_current.modelPath = modelPath;
    m_current.conversationId = conversationId;
}

void AppInstance::restartApp()
{
    qInfo("instance: restarting (model \"%s\", conversation %lld)", qPrintable(m_current.modelPath),
          static_cast<long long>(m_current.conversationId));
    m_restart = true;
    QCoreApplication::quit();
}

void AppInstance::release()
{
    if (m_server) {
        m_server->close();
        delete m_server;
        m_server = nullptr;
    }
    if (m_lock) {
        m_lock->unlock();
        m_lock.reset();
    }
}
