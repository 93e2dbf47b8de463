// What the connection dialog edits: a remote connection's name, base URL, API key and model,
// with the checks the dialog shows as the user types (an address that cannot work, plain HTTP
// carrying a key off this computer) and "Fetch models" (GET /models with the typed address and
// key, or the saved key when none is typed). save() writes the connection (ConnectionList) and
// the key (ApiKeyStore: the keyring, or this run only, which keyNotice then says). QML makes one
// per dialog. GUI thread.
#pragma once

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QQmlEngine>
#include <QStringList>

#include "apikeys.h"
#include "connectionlist.h"
#include "openaiclient.h"

class ConnectionEditor : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(QString connectionId READ connectionId NOTIFY loaded) // empty: a new connection
    Q_PROPERTY(QString name READ name WRITE setName NOTIFY changed)
    Q_PROPERTY(QString baseUrl READ baseUrl WRITE setBaseUrl NOTIFY changed) // as typed
    // A key typed now; empty keeps the saved one (hasSavedKey) unless forgetKey.
    Q_PROPERTY(QString apiKey READ apiKey WRITE setApiKey NOTIFY changed)
    Q_PROPERTY(bool hasSavedKey READ hasSavedKey NOTIFY loaded)
    Q_PROPERTY(bool forgetKey READ forgetKey WRITE setForgetKey NOTIFY changed)
    Q_PROPERTY(QString model READ model WRITE setModel NOTIFY changed)
    Q_PROPERTY(QStringList models READ models NOTIFY modelsChanged) // from the last fetch
    Q_PROPERTY(bool fetching READ isFetching NOTIFY modelsChanged)
    Q_PROPERTY(QString fetchError READ fetchError NOTIFY modelsChanged)
    // Checks of what is typed, for the user; empty when fine. insecureWarning: a key over plain
    // HTTP off this computer, or a saved key about to go to another server.
    Q_PROPERTY(QString urlError READ urlError NOTIFY changed)
    Q_PROPERTY(QString insecureWarning READ insecureWarning NOTIFY changed)
    // "http://host:8000/v1/chat/completions": where replies will be asked for.
    Q_PROPERTY(QString endpoint READ endpoint NOTIFY changed)
    Q_PROPERTY(bool canFetch READ canFetch NOTIFY changed)
    Q_PROPERTY(bool canSave READ canSave NOTIFY changed)
    Q_PROPERTY(bool saving READ isSaving NOTIFY savingChanged)
    // After a save whose key the keyring could not keep: what that means, for the user.
    Q_PROPERTY(QString keyNotice READ keyNotice NOTIFY savingChanged)

public:
    explicit ConnectionEditor(QObject* parent = nullptr);

    // Where connections and keys are kept (default: the shared ones).
    void setStores(ConnectionList* connections, ApiKeyStore* keys);

    // Starts editing the connection `id` (false: none such), or a new one.
    Q_INVOKABLE bool load(const QString& id);
    Q_INVOKABLE void reset();
    Q_INVOKABLE void fetchModels();
    // Saves (saved(id) follows once the key is stored or refused); false when canSave is not.
    Q_INVOKABLE bool save();

    QString connectionId() const { return m_id; }
    QString name() const { return m_name; }
    void setName(const QString& v);
    QString baseUrl() const { return m_baseUrl; }
    void setBaseUrl(const QString& v);
    QString apiKey() const { return m_apiKey; }
    void setApiKey(const QString& v);
    bool hasSavedKey() const { return m_hasSavedKey; }
    bool forgetKey() const { return m_forgetKey; }
    void setForgetKey(bool v);
    QString model() const { return m_model; }
    void setModel(const QString& v);
    QStringList models() const { return m_models; }
    bool isFetching() const { return m_fetchId != 0; }
    QString fetchError() const { return m_fetchError; }
    QString urlError() const;
    QString insecureWarning() const;
    QString endpoint() const;
    bool canFetch() const;
    bool canSave() const;
    bool isSaving() const { return !m_savingId.isEmpty(); }
    QString keyNotice() const { return m_keyNotice; }

signals:
    void loaded();
    void changed();
    void modelsChanged();
    void savingChanged();
    void saved(const QString& id);

private:
    ConnectionList* connections() const;
    ApiKeyStore* keys() const;
    bool willSendKey() const;
    void setModels(const QStringList& models, const QString& error);
    void edit(QString& field, const QString& value);

    QPointer<ConnectionList> m_connections;
    QPointer<ApiKeyStore> m_keys;
    OpenAiClient m_client;
    QString m_id, m_name, m_baseUrl, m_apiKey, m_model;
    QByteArray m_savedKey; // read from the keyring for "Fetch models"
    QUrl m_savedOrigin;    // where the saved key has been going (scheme, host, port)
    bool m_hasSavedKey = false, m_forgetKey = false;
    QStringList m_models;
    QHash<QString, int> m_contextLengths;
    quint64 m_fetchId = 0;
    QString m_fetchError;
    QString m_savingId, m_keyNotice;
    QMetaObject::Connection m_keyReadConnection, m_keyWrittenConnection;
};
