// The switch in Settings that serves the loaded model on http://127.0.0.1:PORT with OpenAI's API
// (server/'s ApiServer over EngineGenerator): on or off, the port and whether other machines may
// connect come from AppSettings; the API key from the keyring (ServerKey), required to serve
// beyond loopback and, once set, always. state and statusText say what happens (listening, the
// port in use, a key missing). The chat's Stop (EngineHost::stop) stops a request that runs on
// the engine too. QML sees the one instance main() makes as the singleton LocalServer. GUI thread.
#pragma once

#include <QObject>
#include <QQmlEngine>
#include <QString>

#include <memory>
#include <thread>

class AppSettings;
class EngineGenerator;
class EngineHost;
class ServerKey;
namespace hearth::server {
class ApiServer;
struct GenerationRecord;
}

class LocalServer : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    QML_SINGLETON
    Q_PROPERTY(State state READ state NOTIFY stateChanged)
    Q_PROPERTY(QString url READ url NOTIFY stateChanged)             // "http://127.0.0.1:8080" while listening
    Q_PROPERTY(QString statusText READ statusText NOTIFY stateChanged)
    Q_PROPERTY(bool hasApiKey READ hasApiKey NOTIFY apiKeyChanged)
    Q_PROPERTY(QString keyMessage READ keyMessage NOTIFY apiKeyChanged) // the keyring's trouble
    Q_PROPERTY(int answered READ answered NOTIFY answeredChanged)   // requests answered since it started

public:
    enum class State {
        Off,
        Waiting,   // for the keyring to say whether there is a key
        Listening,
        Failed,    // statusText says why
    };
    Q_ENUM(State)

    // `key` may be null: no key can be set (tests). Serves what `engine` has loaded.
    LocalServer(EngineHost* engine, AppSettings* settings, ServerKey* key, QObject* parent = nullptr);
    ~LocalServer() override; // stops the server

    static void setShared(LocalServer* server);
    static LocalServer* create(QQmlEngine*, QJSEngine*);

    State state() const { return m_state; }
    QString url() const { return m_state == State::Listening ? m_url : QString(); }
    QString statusText() const;
    bool hasApiKey() const;
    QString keyMessage() const;
    int answered() const { return m_answered; }

    // Stores the key (trimmed; empty forgets it) and restarts a running server with it.
    Q_INVOKABLE void saveApiKey(const QString& key);
    Q_INVOKABLE void forgetApiKey();
    // A fresh random key (32 characters) for the user to save and give to clients.
    Q_INVOKABLE QString randomApiKey() const;

signals:
    void stateChanged();
    void apiKeyChanged();
    void answeredChanged();

private:
    // Brings the server in line with the settings and the key: stopped, (re)started or left.
    void apply();
    void start();
    void stop();
    void setState(State state, const QString& reason = {});
    void recordAnswered(const hearth::server::GenerationRecord& record);

    EngineHost* m_engine;
    AppSettings* m_settings;
    ServerKey* m_key;
    std::shared_ptr<EngineGenerator> m_generator;
    std::unique_ptr<hearth::server::ApiServer> m_server;
    std::thread m_stopping;          // a stopped server winding down off the GUI thread
    QString m_config;                // port, host and key of the running server
    QString m_url, m_reason;
    State m_state = State::Off;
    int m_answered = 0;
};
