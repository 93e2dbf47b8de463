#include "localserver.h"

#include <QPointer>
#include <QRandomGenerator>

#include "appsettings.h"
#include "enginegenerator.h"
#include "enginehost.h"
#include "server/api_server.h"
#include "serverkey.h"

namespace {

QPointer<LocalServer> s_shared;

const char* kLoopback = "127.0.0.1";
const char* kEveryInterface = "0.0.0.0";

} // namespace

LocalServer::LocalServer(EngineHost* engine, AppSettings* settings, ServerKey* key, QObject* parent)
    : QObject(parent)
    , m_engine(engine)
    , m_settings(settings)
    , m_key(key)
    , m_generator(std::make_shared<EngineGenerator>(engine ? engine->worker() : nullptr))
{
    if (m_engine) {
        auto follow = [this] {
            m_generator->setModel(m_engine->isLoaded() ? m_engine->modelPath() : QString());
            emit stateChanged(); // the status names the model
        };
        connect(m_engine, &EngineHost::modelLoaded, this, follow);
        connect(m_engine, &EngineHost::modelUnloaded, this, follow);
        follow();
        // The user's Stop stops a served request as well as the chat's own reply.
        connect(m_engine, &EngineHost::stopRequested, this, [this] {
            if (m_server)
                m_generator->stopRunning([server = m_server.get()] { server->cancelRunning(); });
        });
    }
    m_generator->setChatTemplate(m_settings->chatTemplateOverride());
    connect(m_settings, &AppSettings::chatTemplateOverrideChanged, this,
            [this] { m_generator->setChatTemplate(m_settings->chatTemplateOverride()); });
    connect(m_settings, &AppSettings::serverSettingsChanged, this, &LocalServer::apply);
    if (m_key) {
        connect(m_key, &ServerKey::changed, this, [this] {
            emit apiKeyChanged();
            apply();
        });
        if (m_key->state() == ServerKey::State::Unknown)
            m_key->load();
    }
    apply();
}

LocalServer::~LocalServer()
{
    stop();
    if (m_stopping.joinable())
        m_stopping.join();
}

void LocalServer::setShared(LocalServer* server)
{
    s_shared = server;
}

LocalServer* LocalServer::create(QQmlEngine*, QJSEngine*)
{
    // main() makes the real one; a QML test without it gets one that serves nothing.
    if (!s_shared)
        s_shared = new LocalServer(nullptr, AppSettings::shared(), nullptr, AppSettings::shared());
    QJSEngine::setObjectOwnership(s_shared, QJSEngine::CppOwnership);
    return s_shared;
}

bool LocalServer::hasApiKey() const
{
    return m_key && !m_key->key().isEmpty();
}

QString LocalServer::keyMessage() const
{
    return m_key ? m_key->message() : QString();
}

void LocalServer::saveApiKey(const QString& key)
{
    if (m_key)
        m_key->save(key);
}

void LocalServer::forgetApiKey()
{
    if (m_key)
        m_key->forget();
}

QString LocalServer::randomApiKey() const
{
    static const QString alphabet = QStringLiteral("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789");
    QString key;
    for (int i = 0; i < 32; ++i)
        key += alphabet.at(int(QRandomGenerator::system()->bounded(quint32(alphabet.size()))));
    return key;
}

QString LocalServer::statusText() const
{
    switch (m_state) {
    case State::Off: return tr("Off");
    case State::Waiting: return tr("Reading the API key from the keyring…");
    case State::Failed: return m_reason;
    case State::Listening: break;
    }
    const QString where = m_settings->serverOnNetwork()
                              ? tr("%1 and from other machines (API key required)").arg(m_url)
                              : m_url;
    if (!m_engine || !m_engine->isLoaded())
        return tr("Listening on %1: load a model to answer requests.").arg(where);
    return tr("Serving %1 on %2").arg(m_engine->modelName(), where);
}

void LocalServer::setState(State state, const QString& reason)
{
    m_state = state;
    m_reason = reason;
    emit stateChanged();
}

void LocalServer::apply()
{
    if (!m_settings->serverEnabled()) {
        stop();
        return setState(State::Off);
    }
    if (m_key && m_key->state() == ServerKey::State::Unknown) {
        stop(); // never serve without the key the user set
        return setState(State::Waiting);
    }
    const QString key = m_key ? m_key->key() : QString();
    const bool network = m_settings->serverOnNetwork();
    if (network && key.isEmpty()) {
        stop();
        return setState(State::Failed, tr("Serving other machines needs an API key: save one first."));
    }
    const QString config = QString::number(m_settings->serverPort()) + (network ? QLatin1String(kEveryInterface)
                                                                                : QLatin1String(kLoopback)) + key;
    if (m_server && config == m_config)
        return;
    stop();
    m_config = config;
    start();
}

void LocalServer::start()
{
    if (m_stopping.joinable())
        m_stopping.join(); // the port is free again
    hearth::server::ServerOptions options;
    options.host = m_settings->serverOnNetwork() ? kEveryInterface : kLoopback;
    options.port = m_settings->serverPort();
    options.apiKey = m_key ? m_key->key().toStdString() : std::string();
    options.onGeneration = [this](const hearth::server::GenerationRecord& record) {
        QMetaObject::invokeMethod(this, [this, record] { recordAnswered(record); }, Qt::QueuedConnection);
    };
    m_server = std::make_unique<hearth::server::ApiServer>(*m_generator, options);
    const hearth::Status started = m_server->start();
    if (!started.isOk()) {
        qWarning("server: %s", started.message().c_str());
        m_server.reset();
        m_config.clear();
        const bool inUse = started.message().find("in use") != std::string::npos;
        return setState(State::Failed, inUse ? tr("Port %1 is in use by another program: choose another port.")
                                                   .arg(options.port)
                                             : QString::fromStdString(started.message()));
    }
    m_url = QStringLiteral("http://127.0.0.1:%1").arg(m_server->port());
    m_answered = 0;
    emit answeredChanged();
    qInfo("server: listening on %s:%d", options.host.c_str(), m_server->port());
    setState(State::Listening);
}

void LocalServer::stop()
{
    m_config.clear();
    if (!m_server)
        return;
    if (m_stopping.joinable())
        m_stopping.join();
    // Off the GUI thread: the running request is cancelled and idle connections close within a
    // second; the generator stays alive until then.
    m_stopping = std::thread([server = std::move(m_server), generator = m_generator] { server->stop(); });
    qInfo("server: stopped");
}

void LocalServer::recordAnswered(const hearth::server::GenerationRecord& record)
{
    if (record.status != 200)
        qInfo("server: %s failed: %d %s", record.id.c_str(), record.status, record.error.c_str());
    ++m_answered;
    emit answeredChanged();
}
