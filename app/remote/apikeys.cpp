#include "apikeys.h"

#include <QCoreApplication>
#include <QPointer>
#include <QTimer>

#include "keyring.h"

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

void ApiKeyStore::read(const QString& id)
{
    if (m_known.contains(id)) {
        QTimer::singleShot(0, this, [this, id] { emit keyRead(id, m_known.value(id), {}); });
        return;
    }
    auto* job = keyring::makeJob<QKeychain::ReadPasswordJob>(m_service, entryOf(id), this);
    connect(job, &QKeychain::Job::finished, this, [this, job, id] {
        if (m_known.contains(id)) { // written meanwhile
            emit keyRead(id, m_known.value(id), {});
        } else if (job->error() == QKeychain::NoError) {
            const QByteArray key = job->textData().toUtf8();
            m_known.insert(id, key);
            emit keyRead(id, key, {});
        } else if (job->error() == QKeychain::EntryNotFound) {
            emit keyRead(id, {}, tr("The API key is no longer in the keyring: enter it again in the connection."));
        } else if (keyring::isUnavailable(job->error())) {
            emit keyRead(id, {}, tr("No keyring is available, so the API key was not kept: enter it again in the connection."));
        } else {
            emit keyRead(id, {}, job->errorString());
        }
        emit settled();
    });
    job->start();
}

void ApiKeyStore::write(const QString& id, const QByteArray& key)
{
    m_known.insert(id, key);
    auto* job = keyring::makeJob<QKeychain::WritePasswordJob>(m_service, entryOf(id), this);
    job->setTextData(QString::fromUtf8(key));
    connect(job, &QKeychain::Job::finished, this, [this, job, id] {
        if (job->error() == QKeychain::NoError) {
            emit keyWritten(id, true, {});
        } else {
            qWarning("remote: the API key is not stored (%s)", qPrintable(job->errorString()));
            emit keyWritten(id, false,
                            keyring::isUnavailable(job->error())
                                ? tr("No keyring is available, so the API key is not saved: it is used until Hearth quits.")
                                : job->errorString());
        }
        emit settled();
    });
    job->start();
}

void ApiKeyStore::forget(const QString& id)
{
    m_known.remove(id);
    auto* job = keyring::makeJob<QKeychain::DeletePasswordJob>(m_service, entryOf(id), this);
    connect(job, &QKeychain::Job::finished, this, [this] { emit settled(); });
    job->start();
}
