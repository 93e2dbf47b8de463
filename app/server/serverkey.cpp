#include "serverkey.h"

namespace {

const QString kEntry = QStringLiteral("api-server-key");

} // namespace

ServerKey::ServerKey(QObject* parent, const QString& service)
    : QObject(parent)
    , m_secret(new KeyringSecret(service, kEntry, this))
{
    connect(m_secret, &KeyringSecret::changed, this, &ServerKey::changed);
}

QString ServerKey::message() const
{
    return m_secret->message(
        tr("No keyring is available, so the key is not saved: it is used until Hearth quits."));
}

void ServerKey::load()
{
    m_secret->load();
}

void ServerKey::save(const QString& key)
{
    const QString value = key.trimmed();
    if (value.isEmpty())
        return forget();
    m_secret->save(value);
}

void ServerKey::forget()
{
    m_secret->forget();
}
