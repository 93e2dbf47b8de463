// The Hugging Face access token that gated models (Llama) need, kept in the system keyring
// (Secret Service, KWallet) through QtKeychain, never in the settings file or the database. With
// no keyring to be had the token is not stored: it is used until Hearth quits, and the page says
// so. QML sees the one instance as the singleton HfToken; the downloader reads token().
// Threads: the GUI thread (QtKeychain's jobs answer through its event loop).
#pragma once

#include <QObject>
#include <QQmlEngine>

#include "keyringsecret.h"

class HfTokenStore : public QObject
{
    Q_OBJECT
    QML_NAMED_ELEMENT(HfToken)
    QML_SINGLETON
    Q_PROPERTY(State state READ state NOTIFY stateChanged)
    Q_PROPERTY(bool hasToken READ hasToken NOTIFY stateChanged)
    Q_PROPERTY(QString message READ message NOTIFY stateChanged) // the keyring's last error, for people

public:
    enum class State {
        Unknown,     // not read yet
        Absent,      // no token
        Stored,      // in the keyring
        SessionOnly, // no keyring: kept in memory until Hearth quits
    };
    Q_ENUM(State)

    // `service` names the keyring entry's owner ("Hearth"; tests use one of their own).
    explicit HfTokenStore(QObject* parent, const QString& service = QStringLiteral("Hearth"));

    static HfTokenStore* shared();
    static HfTokenStore* create(QQmlEngine*, QJSEngine*);

    State state() const { return static_cast<State>(m_secret->state()); }
    bool hasToken() const { return !m_secret->value().isEmpty(); }
    QString message() const;
    QByteArray token() const { return m_secret->value().toUtf8(); }

    // Reads the keyring (once at start); tokenChanged follows.
    Q_INVOKABLE void load();
    // Stores `token` (trimmed) in the keyring; without one it is kept for this run only.
    Q_INVOKABLE void save(const QString& token);
    // Removes it from the keyring and from memory.
    Q_INVOKABLE void forget();

signals:
    void stateChanged();
    void tokenChanged(const QByteArray& token);
    // A keyring job has finished (tests wait for it).
    void settled();

private:
    KeyringSecret* m_secret;
};
