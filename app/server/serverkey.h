// The API key of Hearth's own server (LocalServer), kept in the system keyring like every secret
// of Hearth (KeyringSecret), never in the settings file. With no keyring it is kept for this run
// only, and message() says so. GUI thread (QtKeychain answers through the event loop).
#pragma once

#include <QObject>
#include <QString>

#include "keyringsecret.h"

class ServerKey : public QObject
{
    Q_OBJECT

public:
    using State = KeyringSecret::State;

    // `service` names the keyring entry's owner ("Hearth"; tests use one of their own).
    explicit ServerKey(QObject* parent, const QString& service = QStringLiteral("Hearth"));

    State state() const { return m_secret->state(); }
    QString key() const { return m_secret->value(); }
    QString message() const; // the keyring's trouble, for people

    // Reads the keyring; changed() follows once it answered.
    void load();
    // Stores `key` (trimmed); usable at once, changed() follows when the keyring has answered.
    void save(const QString& key);
    // Removes it from the keyring and from memory.
    void forget();

signals:
    void changed();

private:
    KeyringSecret* m_secret;
};
