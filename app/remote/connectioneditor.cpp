#include "connectioneditor.h"

#include <QUuid>

#include "baseurl.h"

ConnectionEditor::ConnectionEditor(QObject* parent)
    : QObject(parent)
{
    connect(&m_client, &OpenAiClient::modelsListed, this, [this](quint64 id, const QList<openai::RemoteModel>& list) {
        if (id != m_fetchId)
            return;
        QStringList names;
        m_contextLengths.clear();
        for (const openai::RemoteModel& m : list) {
            names << m.id;
            m_contextLengths.insert(m.id, m.contextLength);
        }
        if (names.isEmpty()) {
            setModels({}, tr("The server lists no models."));
            return;
        }
        setModels(names, {});
        if (!names.contains(m_model))
            setModel(names.constFirst());
    });
    connect(&m_client, &OpenAiClient::modelsFailed, this, [this](quint64 id, const QString& message) {
        if (id == m_fetchId)
            setModels(m_models, message);
    });
}

void ConnectionEditor::setStores(ConnectionList* connections, ApiKeyStore* keys)
{
    disconnect(m_keyReadConnection);
    disconnect(m_keyWrittenConnection);
    m_connections = connections;
    m_keys = keys;
}

ConnectionList* ConnectionEditor::connections() const
{
    return m_connections ? m_connections.data() : ConnectionList::shared();
}

ApiKeyStore* ConnectionEditor::keys() const
{
    return m_keys ? m_keys.data() : ApiKeyStore::shared();
}

void ConnectionEditor::reset()
{
    m_client.cancelListing();
    m_id.clear();
    m_name.clear();
    m_baseUrl.clear();
    m_apiKey.clear();
    m_model.clear();
    m_savedKey.clear();
    m_savedOrigin.clear();
    m_hasSavedKey = m_forgetKey = false;
    m_contextLengths.clear();
    m_keyNotice.clear();
    m_savingId.clear();
    setModels({}, {});
    emit loaded();
    emit changed();
    emit savingChanged();
}

bool ConnectionEditor::load(const QString& id)
{
    const RemoteConnection* c = connections()->find(id);
    if (!c)
        return false;
    const RemoteConnection copy = *c;
    reset();
    m_id = copy.id;
    m_name = copy.name;
    m_baseUrl = copy.baseUrl.toString();
    m_model = copy.model;
    m_hasSavedKey = copy.hasKey;
    m_savedOrigin = copy.baseUrl.adjusted(QUrl::RemovePath);
    if (copy.contextLength > 0)
        m_contextLengths.insert(copy.model, copy.contextLength);
    if (!copy.model.isEmpty())
        m_models = {copy.model};
    if (copy.hasKey) {
        // For "Fetch models" without typing the key again.
        ApiKeyStore* store = keys();
        disconnect(m_keyReadConnection);
        m_keyReadConnection = connect(store, &ApiKeyStore::keyRead, this, [this](const QString& id, const QByteArray& key) {
            if (id == m_id)
                m_savedKey = key;
        });
        store->read(copy.id);
    }
    emit loaded();
    emit changed();
    emit modelsChanged();
    return true;
}

void ConnectionEditor::edit(QString& field, const QString& value)
{
    if (field == value)
        return;
    field = value;
    emit changed();
}

void ConnectionEditor::setName(const QString& v) { edit(m_name, v); }
void ConnectionEditor::setApiKey(const QString& v) { edit(m_apiKey, v); }
void ConnectionEditor::setModel(const QString& v) { edit(m_model, v.trimmed()); }

void ConnectionEditor::setBaseUrl(const QString& v)
{
    if (v == m_baseUrl)
        return;
    m_baseUrl = v;
    // The list belongs to the address it was fetched from.
    m_client.cancelListing();
    m_fetchId = 0;
    emit changed();
    if (!m_fetchError.isEmpty())
        setModels(m_models, {});
}

void ConnectionEditor::setForgetKey(bool v)
{
    if (v == m_forgetKey)
        return;
    m_forgetKey = v;
    emit changed();
}

void ConnectionEditor::setModels(const QStringList& models, const QString& error)
{
    m_models = models;
    m_fetchError = error;
    m_fetchId = 0;
    emit modelsChanged();
}

QString ConnectionEditor::urlError() const
{
    return m_baseUrl.trimmed().isEmpty() ? QString() : remote::parseBaseUrl(m_baseUrl).error;
}

bool ConnectionEditor::willSendKey() const
{
    return !m_apiKey.trimmed().isEmpty() || (m_hasSavedKey && !m_forgetKey);
}

QString ConnectionEditor::insecureWarning() const
{
    const remote::BaseUrl url = remote::parseBaseUrl(m_baseUrl);
    if (!url.error.isEmpty() || !willSendKey())
        return {};
    if (url.url.scheme() == QLatin1String("http") && !remote::isLoopback(url.url))
        return tr("This address is plain HTTP: the API key and your messages cross the network unencrypted. Use https:// if the server offers it.");
    // A saved key goes where the connection points: say so when that is another server now.
    if (m_apiKey.trimmed().isEmpty() && !url.url.adjusted(QUrl::RemovePath).matches(m_savedOrigin, QUrl::None))
        return tr("The saved API key will be sent to this new address.");
    return {};
}

QString ConnectionEditor::endpoint() const
{
    const remote::BaseUrl url = remote::parseBaseUrl(m_baseUrl);
    return url.error.isEmpty() ? remote::endpointUrl(url.url, QStringLiteral("chat/completions")).toString() : QString();
}

bool ConnectionEditor::canFetch() const
{
    return remote::parseBaseUrl(m_baseUrl).error.isEmpty();
}

bool ConnectionEditor::canSave() const
{
    return canFetch() && !m_model.isEmpty() && !isSaving();
}

void ConnectionEditor::fetchModels()
{
    const remote::BaseUrl url = remote::parseBaseUrl(m_baseUrl);
    if (!url.error.isEmpty()) {
        setModels(m_models, url.error);
        return;
    }
    const QByteArray typed = m_apiKey.trimmed().toUtf8();
    m_client.setServer(url.url, !typed.isEmpty() ? typed : m_forgetKey ? QByteArray() : m_savedKey);
    m_fetchError.clear();
    m_fetchId = m_client.listModels();
    emit modelsChanged();
}

bool ConnectionEditor::save()
{
    if (!canSave())
        return false;
    const remote::BaseUrl url = remote::parseBaseUrl(m_baseUrl);
    RemoteConnection c;
    c.id = m_id.isEmpty() ? QUuid::createUuid().toString(QUuid::WithoutBraces) : m_id;
    c.name = m_name.trimmed().isEmpty() ? remote::hostLabel(url.url) : m_name.trimmed();
    c.baseUrl = url.url;
    c.model = m_model;
    c.contextLength = m_contextLengths.value(m_model, 0);
    const QByteArray typed = m_apiKey.trimmed().toUtf8();
    c.hasKey = !typed.isEmpty() || (m_hasSavedKey && !m_forgetKey);
    m_keyNotice.clear();
    ApiKeyStore* store = keys();
    if (!typed.isEmpty()) {
        // Stored first (it is usable at once either way), so that a reconnect finds it.
        m_savingId = c.id;
        disconnect(m_keyWrittenConnection);
        m_keyWrittenConnection = connect(store, &ApiKeyStore::keyWritten, this,
                                         [this](const QString& id, bool stored, const QString& message) {
            if (id != m_savingId)
                return;
            disconnect(m_keyWrittenConnection);
            const QString done = m_savingId;
            m_savingId.clear();
            m_keyNotice = stored ? QString() : message;
            emit savingChanged();
            emit changed();
            emit saved(done);
        });
        store->write(c.id, typed);
    } else if (m_forgetKey && m_hasSavedKey) {
        store->forget(c.id);
    }
    m_id = connections()->put(c);
    m_apiKey.clear();
    m_hasSavedKey = c.hasKey;
    m_savedOrigin = c.baseUrl.adjusted(QUrl::RemovePath);
    m_forgetKey = false;
    emit loaded();
    emit changed();
    emit savingChanged();
    if (!isSaving())
        emit saved(m_id);
    return true;
}
