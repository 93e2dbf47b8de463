// The chat's ReplyBackend for an OpenAI-compatible server: one connection at a time (its base
// URL, model and API key). A turn is POST /chat/completions streamed as Server-Sent Events
// (ChatStream); stop aborts the request and keeps the text so far. Connecting checks the server
// with GET /models: `state` and `problem` say whether it answers and lists the model. GUI thread.
#pragma once

#include <QPointer>

#include "chatstream.h"
#include "connectionlist.h"
#include "openaiclient.h"
#include "replybackend.h"

class RemoteBackend : public ReplyBackend
{
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("RemoteBackend belongs to the chat: ChatController.connection.remote")
    Q_PROPERTY(bool active READ isActive NOTIFY connectionChanged)
    Q_PROPERTY(QString connectionId READ connectionId NOTIFY connectionChanged)
    Q_PROPERTY(QString connectionName READ connectionName NOTIFY connectionChanged)
    Q_PROPERTY(QString modelName READ modelName NOTIFY connectionChanged)
    Q_PROPERTY(QString host READ host NOTIFY connectionChanged) // "host:port"
    Q_PROPERTY(QString baseUrl READ baseUrl NOTIFY connectionChanged)
    Q_PROPERTY(State state READ state NOTIFY stateChanged)
    // Why the server cannot be used as it is (unreachable, the key refused or missing, the model
    // gone), for the user; empty when it answered.
    Q_PROPERTY(QString problem READ problem NOTIFY stateChanged)
    // The state in words for the picker ("Checking…", "Connected", or the problem), and whether
    // it is good news.
    Q_PROPERTY(QString statusText READ statusText NOTIFY stateChanged)
    Q_PROPERTY(bool healthy READ isHealthy NOTIFY stateChanged)

public:
    enum class State {
        Off,      // no connection
        Checking, // asking the server for its models
        Ready,    // it answered and lists the model
        Problem,  // see `problem`; sending is still allowed (the reply says what the server says)
    };
    Q_ENUM(State)

    explicit RemoteBackend(QObject* parent = nullptr);

    // Uses `connection` with `apiKey` (empty: none) and checks it. `keyProblem`: why a key the
    // connection has could not be read (it is shown until the server answers).
    void connectTo(const RemoteConnection& connection, const QByteArray& apiKey, const QString& keyProblem = {});
    // No connection any more; a reply under way is stopped.
    void disconnectFromServer();
    // Asks the server for its models again.
    Q_INVOKABLE void check();
    // No byte for this long gives a reply up (default 300 s: a long prompt may take a while).
    void setTimeoutSeconds(int seconds) { m_timeoutSeconds = qMax(1, seconds); }

    quint64 startTurn(const TurnRequest& request) override;
    void stop() override;
    bool isGenerating() const override { return m_stream != nullptr; }
    ReplyOrigin origin() const override;

    bool isActive() const { return !m_connection.id.isEmpty(); }
    // A reply can be asked for: a connection with a model.
    bool canReply() const { return isActive() && !m_connection.model.isEmpty(); }
    const RemoteConnection& connection() const { return m_connection; }
    QString connectionId() const { return m_connection.id; }
    QString connectionName() const { return m_connection.name; }
    QString modelName() const { return m_connection.model; }
    QString host() const;
    QString baseUrl() const { return m_connection.baseUrl.toString(); }
    State state() const { return m_state; }
    QString problem() const { return m_problem; }
    QString statusText() const;
    bool isHealthy() const { return m_state == State::Ready && m_problem.isEmpty(); }

signals:
    void connectionChanged();
    void stateChanged();

private:
    void setState(State state, const QString& problem);
    void endStream(ChatStream* stream);

    OpenAiClient m_client;
    RemoteConnection m_connection;
    QString m_keyProblem;
    State m_state = State::Off;
    QString m_problem;
    quint64 m_lastId = 0, m_checkId = 0;
    int m_timeoutSeconds = 300;
    QPointer<ChatStream> m_stream;
};
