// One secret of Hearth kept in the system keyring (Secret Service, KWallet) through QtKeychain:
// entry `entry` of `service`. Every secret is kept this way (the server's key, the Hugging Face
// token, the API keys of remote connections), never in the settings file, and never with a
// plain-text fallback: the value lives in memory too, so with no keyring a saved secret is still
// used until Hearth quits (SessionOnly), and the caller says so in its own words.
// The latest save or forget decides the value and the state: the answer of a job started before it
// is still reported (answered) but changes nothing, so a slow read cannot bring back an old value.
// GUI thread: QtKeychain's jobs answer through its event loop.
#pragma once

#include <QObject>
#include <QString>

class KeyringSecret : public QObject
{
    Q_OBJECT

public:
    enum class State {
        Unknown,     // not read yet
        Absent,      // no value
        Stored,      // in the keyring
        SessionOnly, // in memory only: not (yet) in the keyring, used until Hearth quits
    };
    Q_ENUM(State)
    enum class Job { Read, Write, Erase };
    Q_ENUM(Job)
    // How a keyring job ended.
    enum class Outcome {
        Done,      // no error (a read may still have found an empty entry)
        NotFound,  // no such entry
        NoKeyring, // none installed, locked away or refused
        Failed,    // anything else
    };
    Q_ENUM(Outcome)

    KeyringSecret(const QString& service, const QString& entry, QObject* parent);

    State state() const { return m_state; }
    QString value() const { return m_value; }
    // Whether a value is held (read from the keyring or saved this run).
    bool holds() const { return m_state == State::Stored || m_state == State::SessionOnly; }
    // The keyring's trouble with the latest job, for people: `notSaved` when a saved value is kept
    // for this run only for want of a keyring, else the keyring's own words; empty when none.
    QString message(const QString& notSaved) const;

    // Reads the entry: Stored with a non-empty value, else Absent (unless a value is held).
    void load();
    // Holds `value` at once (SessionOnly), Stored once the keyring has kept it.
    void save(const QString& value);
    // Drops the value at once (Absent) and erases the entry.
    void forget();

signals:
    // The state, the value or the message changed.
    void changed();
    // The value was set: saved, forgotten or read. changed() follows.
    void valueChanged();
    // A keyring job has finished (every job, the latest or not). `error` is the keyring's words.
    void answered(KeyringSecret::Job job, KeyringSecret::Outcome outcome, const QString& error);

private:
    void settle(State state, Outcome outcome, const QString& error);

    QString m_service;
    QString m_entry;
    QString m_value;
    State m_state = State::Unknown;
    Outcome m_outcome = Outcome::Done; // of the latest job that answered
    QString m_error;
    quint64 m_latest = 0; // the serial of the latest save or forget
};
