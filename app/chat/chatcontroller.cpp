#include "chatcontroller.h"

#include <QJsonArray>
#include <QUrl>

#include "chatformat.h"
#include "store/conversation_export.h"
#include "clipboard.h"

namespace {

constexpr int kSaveIntervalMs = 500; // a streaming reply reaches the disk at least this often

store::NewMessage streamingReply()
{
    store::NewMessage m;
    m.role = store::Role::Assistant;
    m.streaming = true;
    return m;
}

store::NewMessage userMessage(const QString& text)
{
    store::NewMessage m;
    m.role = store::Role::User;
    m.text = text;
    return m;
}

} // namespace

ChatController::ChatController(QObject* parent)
    : QObject(parent)
    , m_engine(new EngineHost(this))
    , m_connection(new ActiveConnection(m_engine, this))
    , m_liveStats(new LiveStats(this))
    , m_conversations(new ConversationListModel(this))
    , m_messages(new MessageListModel(this))
{
    m_settings = freshSettings();
    m_liveStats->setEngine(m_engine);
    m_conversations->setStore(&m_store);
    m_saveTimer.setInterval(kSaveIntervalMs);
    connect(&m_saveTimer, &QTimer::timeout, this, &ChatController::savePending);
    follow(m_engine);
    follow(m_connection->remoteBackend());
    // The engine's state and the remote connection's both say whether a message can go.
    connect(m_connection, &ActiveConnection::changed, this, &ChatController::updateCanSend);
    // The stats bar shows the replies of whichever writes them.
    connect(m_connection, &ActiveConnection::backendChanged, this,
            [this] { m_liveStats->setEngine(m_connection->backend()); });
    // Sampling this chat does not set follows the model's recommendation.
    connect(m_engine, &EngineHost::modelChanged, this, &ChatController::samplingChanged);
    // The next start opens the model used last, however it was opened.
    connect(m_engine, &EngineHost::modelLoaded, this, [this](quint64, const ModelSummary& model) {
        if (!model.facts.samplingProblems.isEmpty())
            qWarning("model: recommended sampling: %s", qPrintable(model.facts.samplingProblems));
        if (m_appSettings) {
            m_appSettings->setLastModelPath(model.request.path);
            m_appSettings->setLastModelQuant(model.preset);
        }
    });
}

ChatController::~ChatController()
{
    // What streamed so far is saved; the store marks the reply interrupted when it next opens.
    savePending();
    // The engine thread ends while the store is still open (children go after the members).
    delete m_engine;
}

hearth::Status ChatController::openStore(const QString& path, const store::StoreOptions& options)
{
    const hearth::Status status =
        m_store.open(path.isEmpty() ? store::ConversationStore::defaultPath() : path, options);
    m_storeError = status.isOk() ? QString() : QString::fromStdString(status.message());
    emit storeChanged();
    newChat();
    refreshConversations();
    updateCanSend();
    return status;
}

bool ChatController::startFreshStore()
{
    auto moved = m_store.startFresh();
    m_storeError = moved.isOk() ? QString() : QString::fromStdString(moved.status().message());
    emit storeChanged();
    newChat();
    refreshConversations();
    updateCanSend();
    return moved.isOk();
}

quint64 ChatController::loadModel(const QString& pathOrUrl, const QString& quant)
{
    const QUrl url(pathOrUrl);
    const QString path = url.isLocalFile() ? url.toLocalFile() : pathOrUrl;
    if (path.isEmpty())
        return 0;
    qInfo("load: %s%s", qPrintable(path), quant.isEmpty() ? "" : qPrintable(QStringLiteral(" as ") + quant));
    return m_engine->loadModel(m_appSettings ? m_appSettings->loadRequest(path, quant)
                                             : loadRequestFrom(path, quant, {}));
}

void ChatController::setAppSettings(AppSettings* settings)
{
    if (m_appSettings)
        disconnect(m_appSettings, nullptr, this, nullptr);
    m_appSettings = settings;
    if (settings)
        connect(settings, &AppSettings::samplingChanged, this, &ChatController::samplingChanged);
    if (m_conversationId == 0 && m_messages->count() == 0)
        newChat(); // the new chat on screen takes the settings' defaults
}

store::ConversationSettings ChatController::freshSettings() const
{
    store::ConversationSettings s;
    s.thinking = m_appSettings ? m_appSettings->thinking() : true;
    return s;
}

bool ChatController::check(const hearth::Status& status)
{
    if (status.isOk())
        return true;
    const QString message = QString::fromStdString(status.message());
    qWarning("hearth: %s", qPrintable(message));
    emit errorOccurred(message);
    return false;
}

bool ChatController::canSend() const
{
    return m_store.isOpen() && !m_pending && m_connection->isReady();
}

void ChatController::updateCanSend()
{
    if (canSend() == m_canSend)
        return;
    m_canSend = !m_canSend;
    emit canSendChanged();
}

bool ChatController::isSendable(const QString& text)
{
    return chat::isSendable(text);
}

// --- settings ------------------------------------------------------------------------------

void ChatController::saveSettings()
{
    if (m_conversationId != 0)
        check(m_store.updateSettings(m_conversationId, m_settings));
    emit settingsChanged();
    emit samplingChanged();
}

void ChatController::setSystemPrompt(const QString& prompt)
{
    if (prompt == m_settings.systemPrompt)
        return;
    m_settings.systemPrompt = prompt;
    saveSettings();
}

void ChatController::setSampling(const QVariantMap& sampling)
{
    const QJsonObject json = QJsonObject::fromVariantMap(sampling);
    if (json == m_settings.sampling)
        return;
    m_settings.sampling = json;
    saveSettings();
}

void ChatController::setSamplingValue(const QString& key, const QVariant& value)
{
    bool ok = false;
    const double number = value.toDouble(&ok);
    if (!chat::samplingKeys().contains(key) || !ok)
        return;
    const bool count = key == QLatin1String("top_k") || key == QLatin1String("max_tokens") || key == QLatin1String("seed");
    QJsonObject sampling = m_settings.sampling;
    sampling.insert(key, count ? QJsonValue(qRound64(number)) : QJsonValue(number));
    setSampling(sampling.toVariantMap());
}

void ChatController::resetSampling()
{
    QJsonObject sampling = m_settings.sampling;
    for (const QString& key : chat::samplingKeys())
        sampling.remove(key);
    setSampling(sampling.toVariantMap());
}

QJsonObject ChatController::modelSamplingJson() const
{
    return m_engine->isLoaded() ? m_engine->model().facts.sampling : QJsonObject();
}

hearth::SamplingParams ChatController::replySampling() const
{
    const hearth::SamplingParams settings = m_appSettings ? m_appSettings->sampling() : chat::chatDefaultsWithSeed();
    // This chat's own keys over the model's recommendation over the settings' defaults.
    return chat::samplingFromJson(m_settings.sampling, chat::samplingFromJson(modelSamplingJson(), settings));
}

int ChatController::replyMaxTokens() const
{
    return chat::maxTokensFromJson(m_settings.sampling, m_appSettings ? m_appSettings->maxTokens() : TurnRequest{}.maxTokens);
}

QVariantMap ChatController::effectiveSampling() const
{
    auto decimal = [](float v) { return QString::number(double(v), 'g', 6).toDouble(); };
    const hearth::SamplingParams p = replySampling();
    const QJsonValue seed = m_settings.sampling.value(QLatin1String("seed"));
    return {{QStringLiteral("temperature"), decimal(p.temperature)},
            {QStringLiteral("top_k"), p.topK},
            {QStringLiteral("top_p"), decimal(p.topP)},
            {QStringLiteral("min_p"), decimal(p.minP)},
            {QStringLiteral("repetition_penalty"), decimal(p.repetitionPenalty)},
            {QStringLiteral("max_tokens"), replyMaxTokens()},
            // The seed the chat or the settings name (-1: a new one each reply), not the one drawn.
            {QStringLiteral("seed"), seed.isDouble() ? qMax(qint64(-1), qint64(seed.toDouble()))
                                                     : qint64(m_appSettings ? m_appSettings->seed() : -1)}};
}

QVariantMap ChatController::samplingSources() const
{
    const QJsonObject model = modelSamplingJson();
    QVariantMap sources;
    for (const QString& key : chat::samplingKeys())
        sources.insert(key, m_settings.sampling.contains(key) ? QStringLiteral("chat")
                            : model.contains(key)             ? QStringLiteral("model")
                                                              : QStringLiteral("settings"));
    return sources;
}

void ChatController::setThinking(bool on)
{
    if (on == m_settings.thinking)
        return;
    m_settings.thinking = on;
    saveSettings();
}

QString ChatController::stopText() const
{
    return chat::stopText(chat::stopFromJson(m_settings.sampling));
}

void ChatController::setStopText(const QString& text)
{
    const QStringList stop = chat::parseStopText(text);
    if (stop == chat::stopFromJson(m_settings.sampling))
        return;
    if (stop.isEmpty())
        m_settings.sampling.remove(QLatin1String("stop"));
    else
        m_settings.sampling.insert(QLatin1String("stop"), QJsonArray::fromStringList(stop));
    saveSettings();
}

// --- conversations -------------------------------------------------------------------------

void ChatController::refreshConversations()
{
    check(m_conversations->refresh());
}

void ChatController::showConversation(qint64 id, const store::ConversationSettings& settings, const QString& title)
{
    m_conversationId = id;
    m_settings = settings;
    m_title = title;
    m_conversations->setCurrentId(id);
    reloadMessages();
    emit conversationChanged();
    emit settingsChanged();
    emit samplingChanged();
}

void ChatController::newChat()
{
    showConversation(0, freshSettings(), {});
}

bool ChatController::openConversation(qint64 id)
{
    auto conversation = m_store.conversation(id);
    if (!check(conversation.status()))
        return false;
    showConversation(id, conversation->settings, conversation->title);
    return true;
}

bool ChatController::renameConversation(qint64 id, const QString& title)
{
    if (!check(m_store.renameConversation(id, title)))
        return false;
    if (id == m_conversationId) {
        m_title = title.trimmed();
        emit conversationChanged();
    }
    refreshConversations();
    return true;
}

void ChatController::dropConversations(const QList<qint64>& ids)
{
    // A reply being written into a conversation that goes is stopped and forgotten.
    if (m_pending && ids.contains(m_pending->conversationId)) {
        m_pending->backend->stop();
        m_pending.reset();
        m_saveTimer.stop();
        emit replyingChanged();
        updateCanSend();
    }
}

bool ChatController::deleteConversation(qint64 id)
{
    dropConversations({id});
    if (!check(m_store.deleteConversation(id)))
        return false;
    if (id == m_conversationId)
        newChat();
    refreshConversations();
    return true;
}

namespace {

QString localPath(const QString& fileOrUrl)
{
    const QUrl url(fileOrUrl);
    return url.isLocalFile() ? url.toLocalFile() : fileOrUrl;
}

} // namespace

bool ChatController::exportConversation(qint64 id, const QString& fileOrUrl, const QString& format)
{
    QByteArray content;
    if (format == QLatin1String("markdown")) {
        auto text = store::exportMarkdown(m_store, id);
        if (!check(text.status()))
            return false;
        content = text.value().toUtf8();
    } else if (format == QLatin1String("json")) {
        auto json = store::exportJson(m_store, id);
        if (!check(json.status()))
            return false;
        content = json.value();
    } else {
        return check(hearth::invalidArgument("unknown export format " + format.toStdString()));
    }
    return check(store::writeExportFile(localPath(fileOrUrl), content));
}

qint64 ChatController::importConversation(const QString& fileOrUrl)
{
    auto id = store::importJsonFile(m_store, localPath(fileOrUrl));
    if (!check(id.status()))
        return 0;
    refreshConversations();
    openConversation(id.value());
    return id.value();
}

int ChatController::deleteSelectedConversations()
{
    const QList<qint64> ids = m_conversations->selectedIds();
    if (ids.isEmpty())
        return 0;
    dropConversations(ids);
    auto deleted = m_store.deleteConversations(ids);
    if (!check(deleted.status()))
        return 0;
    m_conversations->clearSelection();
    if (ids.contains(m_conversationId))
        newChat();
    refreshConversations();
    return *deleted;
}

void ChatController::reloadMessages()
{
    if (m_conversationId == 0 || !m_store.isOpen()) {
        m_messages->setMessages({});
        return;
    }
    auto path = m_store.currentPath(m_conversationId);
    if (!check(path.status()))
        return;
    QList<ChatMessageRow> rows;
    rows.reserve(path->size());
    for (const store::Message& m : *path) {
        ChatMessageRow row = ChatMessageRow::fromStore(m);
        if (m_pending && m.id == m_pending->messageId) { // newer than the store's copy
            row.text = m_pending->content;
            row.thinking = m_pending->reasoning;
        }
        if (m.stats.stopReason == QLatin1String(chat::kStopError))
            row.error = m_errors.value(m.id, tr("The engine failed during this reply."));
        rows << row;
    }
    m_messages->setMessages(rows);
    // The first message titles a new conversation.
    if (m_title.isEmpty() && !path->isEmpty()) {
        auto conversation = m_store.conversation(m_conversationId);
        if (conversation.isOk() && !conversation->title.isEmpty()) {
            m_title = conversation->title;
            emit conversationChanged();
        }
    }
}

const ChatMessageRow* ChatController::rowAt(int row) const
{
    return row >= 0 && row < m_messages->count() ? &m_messages->rows()[row] : nullptr;
}

// --- replies -------------------------------------------------------------------------------

bool ChatController::send(const QString& text)
{
    if (!isSendable(text) || !canSend())
        return false;
    const ReplyOrigin origin = m_connection->backend()->origin();
    if (m_conversationId == 0) {
        store::ConversationSettings settings = m_settings;
        settings.modelPath = origin.source;
        settings.quant = origin.quant;
        auto id = m_store.createConversation(settings);
        if (!check(id.status()))
            return false;
        showConversation(*id, settings, {});
    } else if (m_settings.modelPath != origin.source || m_settings.quant != origin.quant) {
        m_settings.modelPath = origin.source; // the model it last ran with
        m_settings.quant = origin.quant;
        saveSettings();
    }
    auto before = m_store.currentPath(m_conversationId);
    if (!check(before.status()) || !check(m_store.appendMessage(m_conversationId, userMessage(text)).status()))
        return false;
    auto reply = m_store.appendMessage(m_conversationId, streamingReply());
    if (!check(reply.status()))
        return false;
    return startReply(*before, text, *reply);
}

bool ChatController::regenerate(int row)
{
    const ChatMessageRow* reply = rowAt(row);
    const ChatMessageRow* prompt = rowAt(row - 1);
    if (!reply || !prompt || reply->role != store::Role::Assistant || prompt->role != store::Role::User || !canSend())
        return false;
    auto path = m_store.currentPath(m_conversationId);
    if (!check(path.status()) || path->size() <= row || path->at(row).id != reply->id)
        return false;
    const QString userText = prompt->text;
    auto id = m_store.addAlternative(reply->id, streamingReply());
    if (!check(id.status()))
        return false;
    return startReply(path->mid(0, row - 1), userText, *id);
}

bool ChatController::editAndResend(int row, const QString& text)
{
    const ChatMessageRow* prompt = rowAt(row);
    if (!prompt || prompt->role != store::Role::User || !isSendable(text) || !canSend())
        return false;
    auto path = m_store.currentPath(m_conversationId);
    if (!check(path.status()) || path->size() <= row || path->at(row).id != prompt->id)
        return false;
    if (!check(m_store.addAlternative(prompt->id, userMessage(text)).status()))
        return false;
    // The new prompt is the end of the shown path: the reply follows it.
    auto reply = m_store.appendMessage(m_conversationId, streamingReply());
    if (!check(reply.status()))
        return false;
    return startReply(path->mid(0, row), text, *reply);
}

bool ChatController::startReply(const QList<store::Message>& before, const QString& userText, qint64 replyId)
{
    TurnRequest request;
    for (const store::Message& m : before)
        request.history << TurnMessage{store::roleName(m.role), m.text, m.thinking, {}};
    request.userText = userText;
    request.systemPrompt = m_settings.systemPrompt;
    request.thinking = m_settings.thinking;
    request.sampling = replySampling();
    request.maxTokens = replyMaxTokens();
    request.stop = chat::stopFromJson(m_settings.sampling);
    request.seedFixed = effectiveSampling().value(QStringLiteral("seed")).toLongLong() >= 0;
    if (m_appSettings)
        request.chatTemplate = m_appSettings->chatTemplateOverride();
    m_pending = Pending{};
    m_pending->conversationId = m_conversationId;
    m_pending->messageId = replyId;
    m_pending->backend = m_connection->backend();
    m_pending->turnId = m_pending->backend->startTurn(request);
    m_saveTimer.start();
    reloadMessages();
    refreshConversations();
    emit replyingChanged();
    updateCanSend();
    return true;
}

void ChatController::stop()
{
    (m_pending ? m_pending->backend : m_connection->backend())->stop();
}

void ChatController::follow(ReplyBackend* backend)
{
    connect(backend, &ReplyBackend::replyPieces, this,
            [this, backend](quint64 id, const QString& content, const QString& reasoning, const ReplyStats&) {
                if (isPending(backend, id))
                    onPieces(content, reasoning);
            });
    connect(backend, &ReplyBackend::replyFinished, this, [this, backend](quint64 id, const ReplyResult& result) {
        if (isPending(backend, id))
            onFinished(result);
    });
    connect(backend, &ReplyBackend::replyFailed, this, [this, backend](quint64 id, const ReplyFailure& failure) {
        if (isPending(backend, id))
            onFailed(failure);
    });
}

bool ChatController::isPending(const ReplyBackend* backend, quint64 id) const
{
    return m_pending && m_pending->backend == backend && m_pending->turnId == id;
}

void ChatController::onPieces(const QString& content, const QString& reasoning)
{
    m_pending->content += content;
    m_pending->reasoning += reasoning;
    m_pending->dirty = true;
    if (m_pending->conversationId == m_conversationId)
        m_messages->updateStreaming(m_pending->messageId, m_pending->content, m_pending->reasoning);
}

void ChatController::savePending()
{
    if (!m_pending || !m_pending->dirty)
        return;
    m_pending->dirty = false;
    check(m_store.updateStreamingReply(m_pending->messageId, m_pending->content, m_pending->reasoning));
}

void ChatController::onFinished(const ReplyResult& result)
{
    store::ReplyStats stats = chat::storeStats(result.stats, result.stopReason);
    endPending(result.content, result.reasoning, stats);
}

void ChatController::onFailed(const ReplyFailure& failure)
{
    m_errors.insert(m_pending->messageId, failure.error.message);
    // The engine's text so far, or what had streamed when it has none.
    const QString content = failure.content.isEmpty() ? m_pending->content : failure.content;
    const QString reasoning = failure.reasoning.isEmpty() ? m_pending->reasoning : failure.reasoning;
    endPending(content, reasoning, chat::storeStats(failure.stats, QLatin1String(chat::kStopError)));
}

void ChatController::endPending(const QString& content, const QString& reasoning, const store::ReplyStats& engineStats)
{
    const Pending done = *m_pending;
    m_pending.reset();
    m_saveTimer.stop();
    store::ReplyStats stats = engineStats;
    const ReplyOrigin origin = done.backend->origin();
    stats.model = origin.model;
    stats.quant = origin.quant;
    stats.device = origin.device;
    check(m_store.finishReply(done.messageId, content, reasoning, stats));
    if (done.conversationId == m_conversationId)
        reloadMessages();
    refreshConversations();
    emit replyingChanged();
    updateCanSend();
}

bool ChatController::switchAlternative(int row, int step)
{
    const ChatMessageRow* m = rowAt(row);
    // The reply being written stays in view until it ends.
    if (!m || (m_pending && m_pending->conversationId == m_conversationId))
        return false;
    if (!check(m_store.switchAlternative(m->id, step).status()))
        return false;
    reloadMessages();
    return true;
}

bool ChatController::copyMessage(int row)
{
    const ChatMessageRow* m = rowAt(row);
    if (!m)
        return false;
    Clipboard().setText(m->text);
    return true;
}
