// The API keys of remote connections, in the system keyring (one KeyringSecret per connection,
// entry "remote-api-key/<id>"), never in the settings file. With no keyring a key is not
// stored: it is used until Hearth quits, and the answer says so. A key read or written this run
// is kept in memory. Keyring jobs answer on the GUI thread; every answer is a signal.
#pragma once

#include <QByteArray>
#include <QHash>
#include <QObject>

class KeyringSecret;

class ApiKeyStore : public QObject
{
    Q_OBJECT

public:
    // `service` names the keyring entries' owner ("Hearth"; tests use one of their own).
    explicit ApiKeyStore(QObject* parent, const QString& service = QStringLiteral("Hearth"));
    static ApiKeyStore* shared();

    // Reads the key of connection `id`; keyRead follows (never before this returns). `problem`
    // is empty when the key was found, else why it is not there, for the user.
    void read(const QString& id);
    // Stores `key` for connection `id` (usable at once); keyWritten follows with `stored` false
    // and a message for the user when the keyring cannot keep it.
    void write(const QString& id, const QByteArray& key);
    // Removes the key of connection `id` from the keyring and from memory.
    void forget(const QString& id);

signals:
    void keyRead(const QString& id, const QByteArray& key, const QString& problem);
    void keyWritten(const QString& id, bool stored, const QString& message);
    // A keyring job has finished (tests wait for it).
    void settled();

private:
    KeyringSecret* secretOf(const QString& id);

    QString m_service;
    QHash<QString, KeyringSecret*> m_secrets; // the connections asked about this run, children
};
