#include "connectionlist.h"

#include <QCoreApplication>
#include <QPointer>
#include <QSettings>
#include <QUuid>

#include "baseurl.h"

ConnectionList::ConnectionList(QObject* parent)
    : QAbstractListModel(parent)
    , m_settings(std::make_unique<QSettings>())
{
    read();
}

ConnectionList::ConnectionList(const QString& iniPath, QObject* parent)
    : QAbstractListModel(parent)
    , m_settings(std::make_unique<QSettings>(iniPath, QSettings::IniFormat))
{
    read();
}

ConnectionList::~ConnectionList() = default;

ConnectionList* ConnectionList::shared()
{
    static QPointer<ConnectionList> instance;
    if (!instance) {
        instance = new ConnectionList(QCoreApplication::instance());
        QJSEngine::setObjectOwnership(instance, QJSEngine::CppOwnership);
    }
    return instance;
}

ConnectionList* ConnectionList::create(QQmlEngine*, QJSEngine*)
{
    return shared();
}

void ConnectionList::read()
{
    QSettings& s = *m_settings;
    const int n = s.beginReadArray(QStringLiteral("remote/connections"));
    for (int i = 0; i < n; ++i) {
        s.setArrayIndex(i);
        RemoteConnection c;
        c.id = s.value(QStringLiteral("id")).toString();
        c.name = s.value(QStringLiteral("name")).toString();
        const remote::BaseUrl url = remote::parseBaseUrl(s.value(QStringLiteral("baseUrl")).toString());
        c.baseUrl = url.url;
        c.model = s.value(QStringLiteral("model")).toString();
        c.contextLength = qMax(0, s.value(QStringLiteral("contextLength")).toInt());
        c.hasKey = s.value(QStringLiteral("hasKey")).toBool();
        // An entry edited by hand into something unusable is left out rather than guessed at.
        if (!c.id.isEmpty() && url.error.isEmpty() && !find(c.id))
            m_items.append(c);
    }
    s.endArray();
    m_activeId = s.value(QStringLiteral("remote/active")).toString();
    if (!find(m_activeId))
        m_activeId.clear();
}

void ConnectionList::write()
{
    QSettings& s = *m_settings;
    s.remove(QStringLiteral("remote/connections"));
    s.beginWriteArray(QStringLiteral("remote/connections"), int(m_items.size()));
    for (int i = 0; i < m_items.size(); ++i) {
        const RemoteConnection& c = m_items[i];
        s.setArrayIndex(i);
        s.setValue(QStringLiteral("id"), c.id);
        s.setValue(QStringLiteral("name"), c.name);
        s.setValue(QStringLiteral("baseUrl"), c.baseUrl.toString());
        s.setValue(QStringLiteral("model"), c.model);
        s.setValue(QStringLiteral("contextLength"), c.contextLength);
        s.setValue(QStringLiteral("hasKey"), c.hasKey);
    }
    s.endArray();
    s.setValue(QStringLiteral("remote/active"), m_activeId);
    s.sync();
}

int ConnectionList::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_items.size());
}

QVariant ConnectionList::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= m_items.size())
        return {};
    const RemoteConnection& c = m_items[index.row()];
    switch (role) {
    case IdRole: return c.id;
    case NameRole: return c.name;
    case BaseUrlRole: return c.baseUrl.toString();
    case HostRole: return remote::hostLabel(c.baseUrl);
    case ModelRole: return c.model;
    case HasKeyRole: return c.hasKey;
    case ActiveRole: return c.id == m_activeId;
    default: return {};
    }
}

QHash<int, QByteArray> ConnectionList::roleNames() const
{
    return {{IdRole, "connectionId"}, {NameRole, "name"},     {BaseUrlRole, "baseUrl"}, {HostRole, "host"},
            {ModelRole, "modelName"},     {HasKeyRole, "hasKey"}, {ActiveRole, "active"}};
}

const RemoteConnection* ConnectionList::find(const QString& id) const
{
    for (const RemoteConnection& c : m_items)
        if (!id.isEmpty() && c.id == id)
            return &c;
    return nullptr;
}

QString ConnectionList::put(RemoteConnection connection)
{
    if (connection.id.isEmpty())
        connection.id = QUuid::createUuid().toString(QUuid::WithoutBraces);
    for (int i = 0; i < m_items.size(); ++i) {
        if (m_items[i].id == connection.id) {
            m_items[i] = connection;
            write();
            emit dataChanged(index(i), index(i));
            emit connectionChanged(connection.id);
            return connection.id;
        }
    }
    beginInsertRows({}, int(m_items.size()), int(m_items.size()));
    m_items.append(connection);
    endInsertRows();
    write();
    emit countChanged();
    emit connectionChanged(connection.id);
    return connection.id;
}

bool ConnectionList::remove(const QString& id)
{
    for (int i = 0; i < m_items.size(); ++i) {
        if (m_items[i].id != id)
            continue;
        beginRemoveRows({}, i, i);
        m_items.removeAt(i);
        endRemoveRows();
        const bool wasActive = m_activeId == id;
        if (wasActive)
            m_activeId.clear();
        write();
        emit countChanged();
        emit connectionChanged(id);
        if (wasActive)
            emit activeIdChanged();
        return true;
    }
    return false;
}

void ConnectionList::setActiveId(const QString& id)
{
    const QString next = find(id) ? id : QString();
    if (next == m_activeId)
        return;
    const QString before = m_activeId;
    m_activeId = next;
    write();
    for (int i = 0; i < m_items.size(); ++i)
        if (m_items[i].id == before || m_items[i].id == next)
            emit dataChanged(index(i), index(i), {ActiveRole});
    emit activeIdChanged();
}
