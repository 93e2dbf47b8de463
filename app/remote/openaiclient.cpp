#include "openaiclient.h"

#include <QCoreApplication>
#include <QNetworkReply>

#include "baseurl.h"
#include "remoteerror.h"

OpenAiClient::OpenAiClient(QObject* parent)
    : QObject(parent)
{
    m_network.setRedirectPolicy(QNetworkRequest::ManualRedirectPolicy);
}

void OpenAiClient::setServer(const QUrl& base, const QByteArray& apiKey)
{
    m_base = base;
    m_apiKey = apiKey;
}

QNetworkRequest OpenAiClient::request(const QString& path, int timeoutMs) const
{
    QNetworkRequest r(remote::endpointUrl(m_base, path));
    r.setHeader(QNetworkRequest::UserAgentHeader, QByteArray("Hearth/" HEARTH_VERSION));
    r.setTransferTimeout(timeoutMs);
    if (!m_apiKey.isEmpty())
        r.setRawHeader("Authorization", "Bearer " + m_apiKey);
    return r;
}

QNetworkReply* OpenAiClient::post(const QString& path, const QByteArray& body, int timeoutMs)
{
    QNetworkRequest r = request(path, timeoutMs);
    r.setHeader(QNetworkRequest::ContentTypeHeader, QByteArray("application/json"));
    r.setRawHeader("Accept", "text/event-stream");
    return m_network.post(r, body);
}

quint64 OpenAiClient::listModels(int timeoutMs)
{
    const quint64 id = ++m_lastId;
    QNetworkRequest r = request(QStringLiteral("models"), timeoutMs);
    r.setRawHeader("Accept", "application/json");
    QNetworkReply* reply = m_network.get(r);
    reply->setParent(this);
    const QUrl url = r.url();
    const bool hadKey = hasKey();
    connect(reply, &QNetworkReply::finished, this, [this, reply, id, url, hadKey, timeoutMs] {
        reply->deleteLater();
        if (id <= m_cancelledUpTo)
            return;
        const QByteArray body = reply->readAll();
        const remote::HttpOutcome outcome = remote::outcomeOf(reply, body, reply->error() == QNetworkReply::OperationCanceledError);
        if (outcome.error != QNetworkReply::NoError || outcome.status >= 300 || outcome.status == 0) {
            emit modelsFailed(id, remote::describeFailure(outcome, url, hadKey, timeoutMs / 1000));
            return;
        }
        if (remote::isHtml(outcome.contentType, body)) {
            emit modelsFailed(id, QCoreApplication::translate("RemoteError", "%1 answered with a web page, not an API: is this the API's address?")
                                      .arg(remote::hostLabel(url)));
            return;
        }
        const openai::ModelList list = openai::readModels(body);
        if (!list.error.isEmpty())
            emit modelsFailed(id, list.error);
        else
            emit modelsListed(id, list.models);
    });
    return id;
}

void OpenAiClient::cancelListing()
{
    m_cancelledUpTo = m_lastId;
}
