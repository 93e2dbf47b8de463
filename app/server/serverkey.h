// The API key of Hearth's own server (LocalServer), kept in the system keyring like every secret
// of Hearth (settings/keyring.h), never in the settings file. With no keyring it is kept for this
// run only, and message() says so. GUI thread (QtKeychain answers through the event loop).
#pragma once

#include <QObject>
#include <QString>

class ServerKey : public QObject
{
    Q_OBJECT

public:
    enum class State {
        Unknown,     // not read yet
        Absent,      // no key
        Stored,      // in the keyring
        SessionOnly, // no keyring: kept in memory until Hearth quits
    };

    // `service` names the keyring entry's owner ("Hearth"; tests use one of their own).
    explicit ServerKey(QObject* parent, const QString& service = QStringLiteral("Hearth"));

    State state() const { return m_state; }
    QString key() const { return m_key; }
    QString message() const { return m_message; } // the keyring's trouble, for people

    // Reads the keyring; changed() follows once it answered.
    void load();
    // Stores `key` (trimmed); usable at once, changed() follows when the keyring has answered.
    void save(const QString& key);
    // Removes it from the keyring and from memory.
    void forget();

signals:
    void changed();

private:
    void settle(State state, const QString& message);

    QString m_service;
    QString m_key;
    State m_state = State::Unknown;
    QString m_message;
};
