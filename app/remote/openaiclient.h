// Requests to one OpenAI-compatible server (vLLM, SGLang, llama-server, Hearth's own): the base
// URL and the API key (sent as "Authorization: Bearer", only to that server), HTTPS verified as
// Qt does by default, redirects not followed (a redirect may lead elsewhere with the key; the
// error names the new address instead). listModels() reads GET /models; post() starts any other
// request for ChatStream. GUI thread; owns its QNetworkAccessManager.
#pragma once

#include <QByteArray>
#include <QList>
#include <QNetworkAccessManager>
#include <QObject>
#include <QUrl>

#include "openaiwire.h"

class QNetworkReply;

class OpenAiClient : public QObject
{
    Q_OBJECT

public:
    explicit OpenAiClient(QObject* parent = nullptr);

    // `base` as remote::parseBaseUrl made it; an empty key sends no Authorization header.
    void setServer(const QUrl& base, const QByteArray& apiKey);
    QUrl baseUrl() const { return m_base; }
    bool hasKey() const { return !m_apiKey.isEmpty(); }

    // POST `body` (JSON) to base/`path`, asking for Server-Sent Events; the caller owns the
    // reply. No byte for `timeoutMs` aborts it.
    QNetworkReply* post(const QString& path, const QByteArray& body, int timeoutMs);

    // GET base/models; answers once, with modelsListed or modelsFailed carrying the id returned.
    quint64 listModels(int timeoutMs = 15000);
    // Forgets the model lists under way (their answers never come).
    void cancelListing();

signals:
    void modelsListed(quint64 id, const QList<openai::RemoteModel>& models);
    void modelsFailed(quint64 id, const QString& message);

private:
    QNetworkRequest request(const QString& path, int timeoutMs) const;

    QNetworkAccessManager m_network;
    QUrl m_base;
    QByteArray m_apiKey;
    quint64 m_lastId = 0, m_cancelledUpTo = 0;
};
