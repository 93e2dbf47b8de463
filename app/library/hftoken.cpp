#include "hftoken.h"

#include <QCoreApplication>
#include <QPointer>

namespace {

const QString kKey = QStringLiteral("huggingface-token");

// QML sees HfTokenStore's own State (Q_ENUM), the same values as the secret's.
static_assert(int(HfTokenStore::State::Unknown) == int(KeyringSecret::State::Unknown) &&
              int(HfTokenStore::State::Absent) == int(KeyringSecret::State::Absent) &&
              int(HfTokenStore::State::Stored) == int(KeyringSecret::State::Stored) &&
              int(HfTokenStore::State::SessionOnly) == int(KeyringSecret::State::SessionOnly));

} // namespace

HfTokenStore::HfTokenStore(QObject* parent, const QString& service)
    : QObject(parent)
    , m_secret(new KeyringSecret(service, kKey, this))
{
    connect(m_secret, &KeyringSecret::changed, this, &HfTokenStore::stateChanged);
    connect(m_secret, &KeyringSecret::valueChanged, this, [this] { emit tokenChanged(token()); });
    connect(m_secret, &KeyringSecret::answered, this, &HfTokenStore::settled);
}

HfTokenStore* HfTokenStore::shared()
{
    static QPointer<HfTokenStore> instance;
    if (!instance) {
        instance = new HfTokenStore(QCoreApplication::instance());
        QJSEngine::setObjectOwnership(instance, QJSEngine::CppOwnership);
    }
    return instance;
}

HfTokenStore* HfTokenStore::create(QQmlEngine*, QJSEngine*)
{
    return shared();
}

QString HfTokenStore::message() const
{
    return m_secret->message(
        tr("No keyring is available, so the token is not saved: it is used until Hearth quits."));
}

void HfTokenStore::load()
{
    m_secret->load();
}

void HfTokenStore::save(const QString& token)
{
    const QString value = token.trimmed();
    if (value.isEmpty()) {
        forget();
        return;
    }
    m_secret->save(value);
}

void HfTokenStore::forget()
{
    m_secret->forget();
}
