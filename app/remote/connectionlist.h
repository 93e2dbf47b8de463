// The user's remote connections (OpenAI-compatible servers: vLLM, SGLang, llama-server, another
// Hearth) and which one the chat uses, kept with QSettings in the settings file under [remote].
// Never the API key: ApiKeyStore keeps it in the keyring; here only whether one was given. QML
// sees the one shared instance as the singleton RemoteConnections, a list model of them.
// GUI thread.
#pragma once

#include <QAbstractListModel>
#include <QList>
#include <QQmlEngine>
#include <QUrl>

#include <memory>

class QSettings;

struct RemoteConnection {
    QString id;             // stable, made when the connection is added
    QString name;           // the user's name for it
    QUrl baseUrl;           // as remote::parseBaseUrl made it
    QString model;          // one of the server's /models
    int contextLength = 0;  // the model's context on the server (vLLM says it); 0: unknown
    bool hasKey = false;    // an API key was given (the keyring has it, or had it)
};

class ConnectionList : public QAbstractListModel
{
    Q_OBJECT
    QML_NAMED_ELEMENT(RemoteConnections)
    QML_SINGLETON
    Q_PROPERTY(int count READ count NOTIFY countChanged)
    // The connection the chat uses; empty: the local engine.
    Q_PROPERTY(QString activeId READ activeId NOTIFY activeIdChanged)

public:
    enum Role { IdRole = Qt::UserRole + 1, NameRole, BaseUrlRole, HostRole, ModelRole, HasKeyRole, ActiveRole };
    Q_ENUM(Role)

    // The user's settings file. No default argument: Qt 6.4 would make QML's singleton with it.
    explicit ConnectionList(QObject* parent);
    // An INI file of its own (tests).
    explicit ConnectionList(const QString& iniPath, QObject* parent = nullptr);
    ~ConnectionList() override;

    static ConnectionList* shared();
    static ConnectionList* create(QQmlEngine*, QJSEngine*);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;
    int count() const { return int(m_items.size()); }

    const QList<RemoteConnection>& items() const { return m_items; }
    // The connection `id`, or null.
    const RemoteConnection* find(const QString& id) const;
    // Adds `connection` (a new id when it has none) or replaces the one with its id; its id.
    QString put(RemoteConnection connection);
    // Removes `id` (and makes the local engine active if it was). QML removes through
    // ActiveConnection::removeConnection, which deletes the key too.
    bool remove(const QString& id);
    // The id of row `row`; empty past the end.
    Q_INVOKABLE QString idAt(int row) const { return row >= 0 && row < m_items.size() ? m_items[row].id : QString(); }

    QString activeId() const { return m_activeId; }
    void setActiveId(const QString& id);

signals:
    void countChanged();
    void activeIdChanged();
    // A connection's fields changed (or it was added or removed).
    void connectionChanged(const QString& id);

private:
    void read();
    void write();

    std::unique_ptr<QSettings> m_settings;
    QList<RemoteConnection> m_items;
    QString m_activeId;
};
