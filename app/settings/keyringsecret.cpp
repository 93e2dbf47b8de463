#include "keyringsecret.h"

#include <qt6keychain/keychain.h>

namespace {

// A job for `entry` of `service`, owned by `parent` until it finishes and then deleted.
template <typename Job>
Job* makeJob(const QString& service, const QString& entry, QObject* parent)
{
    auto* job = new Job(service, parent);
    job->setAutoDelete(true);
    job->setInsecureFallback(false);
    job->setKey(entry);
    return job;
}

KeyringSecret::Outcome outcomeOf(QKeychain::Error error)
{
    switch (error) {
    case QKeychain::NoError:
        return KeyringSecret::Outcome::Done;
    case QKeychain::EntryNotFound:
        return KeyringSecret::Outcome::NotFound;
    // No keyring to use, as opposed to trouble with this one entry.
    case QKeychain::NoBackendAvailable:
    case QKeychain::NotImplemented:
    case QKeychain::AccessDeniedByUser:
    case QKeychain::AccessDenied:
    case QKeychain::OtherError:
        return KeyringSecret::Outcome::NoKeyring;
    default:
        return KeyringSecret::Outcome::Failed;
    }
}

} // namespace

KeyringSecret::KeyringSecret(const QString& service, const QString& entry, QObject* parent)
    : QObject(parent)
    , m_service(service)
    , m_entry(entry)
{
}

QString KeyringSecret::message(const QString& notSaved) const
{
    if (m_outcome == Outcome::Done)
        return {};
    if (m_state == State::SessionOnly) // a save the keyring did not keep
        return m_outcome == Outcome::NoKeyring ? notSaved : m_error;
    return m_outcome == Outcome::NotFound ? QString() : m_error;
}

void KeyringSecret::settle(State state, Outcome outcome, const QString& error)
{
    m_state = state;
    m_outcome = outcome;
    m_error = error;
    emit changed();
}

void KeyringSecret::load()
{
    const quint64 serial = m_latest; // reads change nothing that a later read would undo
    auto* job = makeJob<QKeychain::ReadPasswordJob>(m_service, m_entry, this);
    connect(job, &QKeychain::Job::finished, this, [this, job, serial] {
        const Outcome outcome = outcomeOf(job->error());
        if (serial == m_latest) {
            if (outcome == Outcome::Done && !job->textData().isEmpty()) {
                m_value = job->textData();
                emit valueChanged();
                settle(State::Stored, outcome, {});
            } else if (!holds()) {
                settle(State::Absent, outcome, job->errorString());
            }
        }
        emit answered(Job::Read, outcome, job->errorString());
    });
    job->start();
}

void KeyringSecret::save(const QString& value)
{
    const quint64 serial = ++m_latest;
    m_value = value;
    auto* job = makeJob<QKeychain::WritePasswordJob>(m_service, m_entry, this);
    job->setTextData(value);
    connect(job, &QKeychain::Job::finished, this, [this, job, serial] {
        const Outcome outcome = outcomeOf(job->error());
        if (outcome != Outcome::Done)
            qWarning("keyring: %s is not stored (%s)", qPrintable(m_entry), qPrintable(job->errorString()));
        if (serial == m_latest)
            settle(outcome == Outcome::Done ? State::Stored : State::SessionOnly, outcome, job->errorString());
        emit answered(Job::Write, outcome, job->errorString());
    });
    // The value counts from now: its users must not go on without it while the keyring answers.
    emit valueChanged();
    settle(State::SessionOnly, Outcome::Done, {});
    job->start();
}

void KeyringSecret::forget()
{
    const quint64 serial = ++m_latest;
    m_value.clear();
    auto* job = makeJob<QKeychain::DeletePasswordJob>(m_service, m_entry, this);
    connect(job, &QKeychain::Job::finished, this, [this, job, serial] {
        const Outcome outcome = outcomeOf(job->error());
        if (serial == m_latest)
            settle(State::Absent, outcome, job->errorString());
        emit answered(Job::Erase, outcome, job->errorString());
    });
    emit valueChanged();
    settle(State::Absent, Outcome::Done, {});
    job->start();
}
