#include "activeconnection.h"

ActiveConnection::ActiveConnection(EngineHost* engine, QObject* parent)
    : QObject(parent)
    , m_engine(engine)
    , m_remote(new RemoteBackend(this))
{
    connect(m_remote, &RemoteBackend::connectionChanged, this, &ActiveConnection::changed);
    connect(engine, &EngineHost::modelChanged, this, &ActiveConnection::changed);
    connect(engine, &EngineHost::deviceLostChanged, this, &ActiveConnection::changed);
    // A local load, from wherever it was asked, ends the remote connection.
    connect(engine, &EngineHost::loadingChanged, this, [this] {
        if (m_engine->isLoading() && isRemote())
            useLocal();
        emit changed();
    });
}

void ActiveConnection::setStores(ConnectionList* connections, ApiKeyStore* keys)
{
    if (m_connections)
        disconnect(m_connections, nullptr, this, nullptr);
    if (m_keys)
        disconnect(m_keys, nullptr, this, nullptr);
    m_connections = connections;
    m_keys = keys;
    if (connections)
        connect(connections, &ConnectionList::connectionChanged, this, &ActiveConnection::onConnectionEdited);
    if (keys)
        connect(keys, &ApiKeyStore::keyRead, this, &ActiveConnection::onKeyRead);
}

ReplyBackend* ActiveConnection::backend() const
{
    return isRemote() ? static_cast<ReplyBackend*>(m_remote) : m_engine.data();
}

bool ActiveConnection::isReady() const
{
    if (isRemote())
        return m_keyRead && m_remote->canReply();
    // After a lost GPU every engine call fails: the way on is a restart, not another message.
    return m_engine && m_engine->isLoaded() && !m_engine->isLoading() && !m_engine->isDeviceLost();
}

QString ActiveConnection::modelName() const
{
    if (isRemote()) {
        const RemoteConnection* c = m_connections ? m_connections->find(m_remoteId) : nullptr;
        return c ? c->model : m_remote->modelName();
    }
    return m_engine ? m_engine->modelName() : QString();
}

void ActiveConnection::setRemoteId(const QString& id)
{
    const bool switched = id.isEmpty() != m_remoteId.isEmpty();
    m_remoteId = id;
    if (m_connections)
        m_connections->setActiveId(id);
    if (switched)
        emit backendChanged();
    emit changed();
}

bool ActiveConnection::useRemote(const QString& id)
{
    const RemoteConnection* c = m_connections ? m_connections->find(id) : nullptr;
    if (!c)
        return false;
    // One model at a time: the local one goes, with its memory.
    if (m_engine && (m_engine->isLoaded() || m_engine->isLoading()))
        m_engine->unload();
    m_keyRead = false;
    m_remote->disconnectFromServer();
    setRemoteId(id);
    if (c->hasKey && m_keys) {
        m_keys->read(id); // onKeyRead connects
    } else {
        m_keyRead = true;
        m_remote->connectTo(*c, {});
    }
    return true;
}

void ActiveConnection::onKeyRead(const QString& id, const QByteArray& key, const QString& problem)
{
    const RemoteConnection* c = m_connections ? m_connections->find(id) : nullptr;
    if (id != m_remoteId || m_keyRead || !c)
        return;
    m_keyRead = true;
    m_remote->connectTo(*c, key, problem);
    emit changed();
}

void ActiveConnection::onConnectionEdited(const QString& id)
{
    if (id != m_remoteId)
        return;
    // Edited: connect again with what it is now. Removed: back to the local engine.
    if (!useRemote(id))
        useLocal();
}

void ActiveConnection::useLocal()
{
    if (!isRemote())
        return;
    m_remote->disconnectFromServer();
    m_keyRead = false;
    setRemoteId({});
}

bool ActiveConnection::restore()
{
    const QString id = m_connections ? m_connections->activeId() : QString();
    return !id.isEmpty() && useRemote(id);
}

bool ActiveConnection::removeConnection(const QString& id)
{
    if (!m_connections || !m_connections->find(id))
        return false;
    if (m_keys && m_connections->find(id)->hasKey)
        m_keys->forget(id);
    return m_connections->remove(id); // onConnectionEdited goes back to the engine if it was in use
}
