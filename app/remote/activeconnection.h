// Which connection the chat talks through: the local engine (the loaded model) or one of the
// user's remote connections (RemoteBackend). Choosing a remote one unloads the local model, so
// that its memory is free; loading a local model switches back. The choice is kept
// (ConnectionList::activeId), and the next start reconnects instead of loading the last local
// model. The chat asks `backend()` for replies and `isReady()` before sending. GUI thread.
#pragma once

#include <QObject>
#include <QPointer>
#include <QQmlEngine>

#include "apikeys.h"
#include "connectionlist.h"
#include "enginehost.h"
#include "remotebackend.h"

class ActiveConnection : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("ActiveConnection belongs to the chat: ChatController.connection")
    Q_PROPERTY(bool remote READ isRemote NOTIFY changed)
    Q_PROPERTY(RemoteBackend* remoteBackend READ remoteBackend CONSTANT)
    // A reply can be asked for now (a model loaded, or a remote connection with its key read).
    Q_PROPERTY(bool ready READ isReady NOTIFY changed)
    // What answers: the loaded model's name or the remote model's; empty: nothing.
    Q_PROPERTY(QString modelName READ modelName NOTIFY changed)

public:
    explicit ActiveConnection(EngineHost* engine, QObject* parent = nullptr);

    // Where connections and their API keys are kept (main: the shared ones; tests: their own).
    void setStores(ConnectionList* connections, ApiKeyStore* keys);
    ConnectionList* connections() const { return m_connections; }

    ReplyBackend* backend() const;
    RemoteBackend* remoteBackend() const { return m_remote; }
    bool isRemote() const { return !m_remoteId.isEmpty(); }
    bool isReady() const;
    QString modelName() const;

    // Talks to the remote connection `id` from now on; false when there is no such connection.
    Q_INVOKABLE bool useRemote(const QString& id);
    // Back to the local engine (whatever model it has, maybe none).
    Q_INVOKABLE void useLocal();
    // Deletes the connection `id` and its API key; the local engine answers if it was in use.
    Q_INVOKABLE bool removeConnection(const QString& id);
    // At start: reconnects to the remote connection used last, if the last one was remote.
    // True when it does.
    bool restore();

signals:
    // The backend, its readiness or the model's name changed.
    void changed();
    // backend() is another object now.
    void backendChanged();

private:
    void onKeyRead(const QString& id, const QByteArray& key, const QString& problem);
    void onConnectionEdited(const QString& id);
    void setRemoteId(const QString& id);

    QPointer<EngineHost> m_engine;
    RemoteBackend* m_remote;
    QPointer<ConnectionList> m_connections;
    QPointer<ApiKeyStore> m_keys;
    QString m_remoteId;    // the remote connection in use (its key may still be being read)
    bool m_keyRead = false;
};
