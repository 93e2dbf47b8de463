#include "serverkey.h"

#include "keyring.h"

namespace {

const QString kEntry = QStringLiteral("api-server-key");

} // namespace

ServerKey::ServerKey(QObject* parent, const QString& service)
    : QObject(parent)
    , m_service(service)
{
}

void ServerKey::settle(State state, const QString& message)
{
    m_state = state;
    m_message = message;
    emit changed();
}

void ServerKey::load()
{
    auto* job = keyring::makeJob<QKeychain::ReadPasswordJob>(m_service, kEntry, this);
    connect(job, &QKeychain::Job::finished, this, [this, job] {
        if (job->error() == QKeychain::NoError && !job->textData().isEmpty()) {
            m_key = job->textData();
            settle(State::Stored, {});
        } else if (m_key.isEmpty()) {
            settle(State::Absent, job->error() == QKeychain::EntryNotFound ? QString() : job->errorString());
        }
    });
    job->start();
}

void ServerKey::save(const QString& key)
{
    m_key = key.trimmed();
    if (m_key.isEmpty())
        return forget();
    auto* job = keyring::makeJob<QKeychain::WritePasswordJob>(m_service, kEntry, this);
    job->setTextData(m_key);
    connect(job, &QKeychain::Job::finished, this, [this, job] {
        if (job->error() == QKeychain::NoError)
            settle(State::Stored, {});
        else
            settle(State::SessionOnly,
                   keyring::isUnavailable(job->error())
                       ? tr("No keyring is available, so the key is not saved: it is used until Hearth quits.")
                       : job->errorString());
    });
    // The key counts from now: the server must not go on without it while the keyring answers.
    settle(State::SessionOnly, {});
    job->start();
}

void ServerKey::forget()
{
    m_key.clear();
    auto* job = keyring::makeJob<QKeychain::DeletePasswordJob>(m_service, kEntry, this);
    connect(job, &QKeychain::Job::finished, this, [this, job] {
        settle(State::Absent, job->error() == QKeychain::NoError || job->error() == QKeychain::EntryNotFound
                                  ? QString()
                                  : job->errorString());
    });
    settle(State::Absent, {});
    job->start();
}
