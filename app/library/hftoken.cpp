#include "hftoken.h"

#include <QCoreApplication>
#include <QPointer>

#include "keyring.h"

namespace {

const QString kKey = QStringLiteral("huggingface-token");

template <typename Job>
Job* makeJob(const QString& service, QObject* parent)
{
    return keyring::makeJob<Job>(service, kKey, parent);
}

} // namespace

HfTokenStore::HfTokenStore(QObject* parent, const QString& service)
    : QObject(parent)
    , m_service(service)
{
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

void HfTokenStore::setState(State state, const QString& message)
{
    m_state = state;
    m_message = message;
    emit stateChanged();
}

void HfTokenStore::load()
{
    auto* job = makeJob<QKeychain::ReadPasswordJob>(m_service, this);
    connect(job, &QKeychain::Job::finished, this, [this, job] {
        if (job->error() == QKeychain::NoError && !job->textData().isEmpty()) {
            m_token = job->textData().toUtf8();
            setState(State::Stored, {});
            emit tokenChanged(m_token);
        } else if (m_token.isEmpty()) {
            // Not there, or no keyring: either way there is no token until the user gives one.
            setState(State::Absent, job->error() == QKeychain::EntryNotFound ? QString() : job->errorString());
        }
        emit settled();
    });
    job->start();
}

void HfTokenStore::save(const QString& token)
{
    const QByteArray value = token.trimmed().toUtf8();
    if (value.isEmpty()) {
        forget();
        return;
    }
    m_token = value;
    emit tokenChanged(m_token);
    auto* job = makeJob<QKeychain::WritePasswordJob>(m_service, this);
    job->setTextData(QString::fromUtf8(value));
    connect(job, &QKeychain::Job::finished, this, [this, job] {
        if (job->error() == QKeychain::NoError) {
            setState(State::Stored, {});
        } else {
            qWarning("token: not stored (%s)", qPrintable(job->errorString()));
            setState(State::SessionOnly,
                     keyring::isUnavailable(job->error())
                         ? tr("No keyring is available, so the token is not saved: it is used until Hearth quits.")
                         : job->errorString());
        }
        emit settled();
    });
    job->start();
}

void HfTokenStore::forget()
{
    m_token.clear();
    emit tokenChanged(m_token);
    auto* job = makeJob<QKeychain::DeletePasswordJob>(m_service, this);
    connect(job, &QKeychain::Job::finished, this, [this, job] {
        setState(State::Absent, job->error() == QKeychain::NoError || job->error() == QKeychain::EntryNotFound
                                    ? QString()
                                    : job->errorString());
        emit settled();
    });
    job->start();
}
