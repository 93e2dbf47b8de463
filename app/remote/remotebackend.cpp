#include "remotebackend.h"

#include <QTimer>

#include "baseurl.h"
#include "openaiwire.h"

RemoteBackend::RemoteBackend(QObject* parent)
    : ReplyBackend(parent)
{
    connect(&m_client, &OpenAiClient::modelsListed, this, [this](quint64 id, const QList<openai::RemoteModel>& models) {
        if (id != m_checkId)
            return;
        for (const openai::RemoteModel& m : models) {
            if (m.id == m_connection.model) {
                if (m.contextLength > 0)
                    m_connection.contextLength = m.contextLength;
                setState(State::Ready, m_keyProblem); // a key that was not kept is still worth saying
                return;
            }
        }
        setState(State::Problem, tr("%1 does not list the model %2 any more: choose another one in the connection.")
                                     .arg(host(), m_connection.model));
    });
    connect(&m_client, &OpenAiClient::modelsFailed, this, [this](quint64 id, const QString& message) {
        if (id == m_checkId)
            setState(State::Problem, message);
    });
}

void RemoteBackend::setState(State state, const QString& problem)
{
    if (state == m_state && problem == m_problem)
        return;
    m_state = state;
    m_problem = problem;
    emit stateChanged();
}

QString RemoteBackend::host() const
{
    return isActive() ? remote::hostLabel(m_connection.baseUrl) : QString();
}

QString RemoteBackend::statusText() const
{
    switch (m_state) {
    case State::Off: return {};
    case State::Checking: return tr("Checking %1…").arg(host());
    case State::Ready:
        return m_problem.isEmpty() ? tr("Connected: %1 serves %2.").arg(host(), m_connection.model) : m_problem;
    case State::Problem: return m_problem;
    }
    return {};
}

ReplyOrigin RemoteBackend::origin() const
{
    return {m_connection.model, {}, m_connection.name,
            m_connection.model + QStringLiteral(" @ ") + m_connection.baseUrl.toString()};
}

void RemoteBackend::connectTo(const RemoteConnection& connection, const QByteArray& apiKey, const QString& keyProblem)
{
    stop();
    m_connection = connection;
    m_keyProblem = keyProblem;
    m_client.setServer(connection.baseUrl, apiKey);
    emit connectionChanged();
    check();
}

void RemoteBackend::disconnectFromServer()
{
    stop();
    m_client.cancelListing();
    m_connection = {};
    m_client.setServer({}, {});
    emit connectionChanged();
    setState(State::Off, {});
}

void RemoteBackend::check()
{
    if (!isActive())
        return;
    m_checkId = m_client.listModels();
    setState(State::Checking, m_keyProblem);
}

quint64 RemoteBackend::startTurn(const TurnRequest& request)
{
    const quint64 id = ++m_lastId;
    stop(); // one reply at a time: the chat never asks for two
    if (!canReply()) {
        QTimer::singleShot(0, this, [this, id] {
            emit replyFailed(id, {{}, {}, {}, {hearth::StatusCode::FailedPrecondition, tr("No server is connected.")}});
        });
        return id;
    }
    ChatStream::Setup setup;
    setup.url = remote::endpointUrl(m_connection.baseUrl, QStringLiteral("chat/completions"));
    setup.hadKey = m_client.hasKey();
    setup.timeoutSeconds = m_timeoutSeconds;
    setup.contextSize = m_connection.contextLength;
    QNetworkReply* reply = m_client.post(QStringLiteral("chat/completions"),
                                         openai::chatRequestBody(m_connection.model, request), m_timeoutSeconds * 1000);
    auto* stream = new ChatStream(reply, setup, this);
    m_stream = stream;
    connect(stream, &ChatStream::pieces, this, [this, id](const QString& content, const QString& reasoning, const ReplyStats& stats) {
        emit replyPieces(id, content, reasoning, stats);
    });
    // Queued: a stop's end arrives after stop() has returned, as the engine's does.
    connect(stream, &ChatStream::finished, this, [this, id, stream](const ReplyResult& result) {
        endStream(stream);
        emit replyFinished(id, result);
    }, Qt::QueuedConnection);
    connect(stream, &ChatStream::failed, this, [this, id, stream](const ReplyFailure& failure) {
        endStream(stream);
        emit replyFailed(id, failure);
    }, Qt::QueuedConnection);
    emit generatingChanged();
    return id;
}

void RemoteBackend::endStream(ChatStream* stream)
{
    stream->deleteLater();
    if (m_stream == stream) {
        m_stream = nullptr;
        emit generatingChanged();
    }
}

void RemoteBackend::stop()
{
    if (m_stream)
        m_stream->stop();
}
