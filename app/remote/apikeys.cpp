#include "apikeys.h"

#include <QCoreApplication>
#include <QPointer>
#include <QTimer>

#include "keyringsecret.h"

namespace {

QString entryOf(const QString& id)
{
    return QStringLiteral("remote-api-key/") + id;
}

} // namespace

ApiKeyStore::ApiKeyStore(QObject* parent, const QString& service)
    : QObject(parent)
    , m_service(service)
{
}

ApiKeyStore* ApiKeyStore::shared()
{
    static QPointer<ApiKeyStore> instance;
    if (!instance)
        instance = new ApiKeyStore(QCoreApplication::instance());
    return instance;
}

KeyringSecret* ApiKeyStore::secretOf(const QString& id)
{
    if (KeyringSecret* known = m_secrets.value(id))
        return known;
    auto* secret = new KeyringSecret(m_service, entryOf(id), this);
    m_secrets.insert(id, secret);
    connect(secret, &KeyringSecret::answered, this,
            [this, id, secret](KeyringSecret::Job job, KeyringSecret::Outcome outcome, const QString& error) {
        using Outcome = KeyringSecret::Outcome;
        if (job == KeyringSecret::Job::Read) {
            // A key written meanwhile counts as found; an empty entry is found and empty.
            if (secret->holds() || outcome == Outcome::Done)
                emit keyRead(id, secret->value().toUtf8(), {});
            else if (outcome == Outcome::NotFound)
                emit keyRead(id, {}, tr("The API key is no longer in the keyring: enter it again in the connection."));
            else if (outcome == Outcome::NoKeyring)
                emit keyRead(id, {}, tr("No keyring is available, so the API key was not kept: enter it again in the connection."));
            else
                emit keyRead(id, {}, error);
        } else if (job == KeyringSecret::Job::Write) {
            if (outcome == Outcome::Done)
                emit keyWritten(id, true, {});
            else
                emit keyWritten(id, false,
                                outcome == Outcome::NoKeyring
                                    ? tr("No keyring is available, so the API key is not saved: it is used until Hearth quits.")
                                    : error);
        }
        emit settled();
    });
    return secret;
}

void ApiKeyStore::read(const QString& id)
{
    KeyringSecret* secret = secretOf(id);
    if (secret->holds()) {
        QTimer::singleShot(0, this, [this, id] { emit keyRead(id, secretOf(id)->value().toUtf8(), {}); });
        return;
    }
    secret->load();
}

void ApiKeyStore::write(const QString& id, const QByteArray& key)
{
    secretOf(id)->save(QString::fromUtf8(key));
}

void ApiKeyStore::forget(const QString& id)
{
    secretOf(id)->forget();
}
