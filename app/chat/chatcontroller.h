// The chat: owns the conversation history (ConversationStore), the engine (EngineHost) and the
// choice between it and a remote server (ActiveConnection: replies come from its backend), and
// keeps the sidebar's conversations and the shown conversation's messages as models for QML.
// Sending saves the user's message and an empty streaming reply, then asks the engine for the
// reply with the conversation as stored; the streamed text goes to the message model at once and
// to the store at least twice a second and when the reply ends (with its numbers), so a crash
// loses at most the last half second. Regenerate and edit add alternatives (the store keeps
// every one reachable by "<"/">"). An engine error keeps the reply so far, marked.
// Holds no widgets; every verb QML calls is one Q_INVOKABLE here. GUI thread.
#pragma once

#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QQmlEngine>
#include <QTimer>
#include <QVariantMap>

#include <memory>
#include <optional>

#include "activeconnection.h"
#include "appsettings.h"
#include "conversationlistmodel.h"
#include "enginehost.h"
#include "livestats.h"
#include "messagelistmodel.h"
#include "store/conversation_store.h"

class ChatController : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(EngineHost* engine READ engine CONSTANT)
    Q_PROPERTY(ActiveConnection* connection READ connection CONSTANT)
    Q_PROPERTY(LiveStats* liveStats READ liveStats CONSTANT)
    Q_PROPERTY(ConversationListModel* conversations READ conversations CONSTANT)
    Q_PROPERTY(MessageListModel* messages READ messages CONSTANT)
    // The shown conversation; 0: a new chat not saved yet (it is created by its first message).
    Q_PROPERTY(qint64 conversationId READ conversationId NOTIFY conversationChanged)
    Q_PROPERTY(QString title READ title NOTIFY conversationChanged)
    Q_PROPERTY(bool replying READ isReplying NOTIFY replyingChanged)
    // A message can be sent now (history open, a model loaded, no reply under way, the GPU not
    // lost); the text itself must also be sendable (isSendable).
    Q_PROPERTY(bool canSend READ canSend NOTIFY canSendChanged)
    // The shown conversation's settings (a new chat's until its first message saves them).
    Q_PROPERTY(QString systemPrompt READ systemPrompt WRITE setSystemPrompt NOTIFY settingsChanged)
    // Keys: see chat::samplingFromJson (temperature, top_k, top_p, min_p, repetition_penalty,
    // seed, max_tokens); only the values this chat sets itself. A missing key follows the loaded
    // model's recommendation (modelSampling) where it has one, else the settings' default.
    Q_PROPERTY(QVariantMap sampling READ sampling WRITE setSampling NOTIFY settingsChanged)
    // The loaded model's recommended sampling, under the same keys (only those its files state).
    Q_PROPERTY(QVariantMap modelSampling READ modelSampling NOTIFY samplingChanged)
    // Every key with the value the next reply uses (seed -1: a new one each reply), and where
    // each comes from: "chat" (this chat's own), "model" (modelSampling) or "settings".
    Q_PROPERTY(QVariantMap effectiveSampling READ effectiveSampling NOTIFY samplingChanged)
    Q_PROPERTY(QVariantMap samplingSources READ samplingSources NOTIFY samplingChanged)
    Q_PROPERTY(bool thinking READ thinking WRITE setThinking NOTIFY settingsChanged)
    // This chat's stop sequences, one a line ("\n" is a newline, "\\" a backslash); kept as
    // the sampling key "stop".
    Q_PROPERTY(QString stopText READ stopText WRITE setStopText NOTIFY settingsChanged)
    Q_PROPERTY(bool storeOpen READ storeOpen NOTIFY storeChanged)
    Q_PROPERTY(QString storeError READ storeError NOTIFY storeChanged) // why the history is not open

public:
    explicit ChatController(QObject* parent = nullptr);
    ~ChatController() override;

    // Where loads, new chats and replies take their defaults from (load options, sampling,
    // thinking, a chat-template override); none (tests): the engine's chat defaults.
    void setAppSettings(AppSettings* settings);

    // Opens the history (empty path: ConversationStore::defaultPath()) and shows a new chat.
    hearth::Status openStore(const QString& path = {}, const store::StoreOptions& options = {});
    store::ConversationStore& store() { return m_store; }

    EngineHost* engine() const { return m_engine; }
    ActiveConnection* connection() const { return m_connection; }
    LiveStats* liveStats() const { return m_liveStats; }
    ConversationListModel* conversations() const { return m_conversations; }
    MessageListModel* messages() const { return m_messages; }
    qint64 conversationId() const { return m_conversationId; }
    QString title() const { return m_title; }
    bool isReplying() const { return m_pending.has_value(); }
    bool canSend() const;
    QString systemPrompt() const { return m_settings.systemPrompt; }
    void setSystemPrompt(const QString& prompt);
    QVariantMap sampling() const { return m_settings.sampling.toVariantMap(); }
    void setSampling(const QVariantMap& sampling);
    QVariantMap modelSampling() const { return modelSamplingJson().toVariantMap(); }
    QVariantMap effectiveSampling() const;
    QVariantMap samplingSources() const;
    // What the next reply samples with, and its length limit (effectiveSampling as the engine
    // takes it).
    hearth::SamplingParams replySampling() const;
    int replyMaxTokens() const;
    bool thinking() const { return m_settings.thinking; }
    void setThinking(bool on);
    QString stopText() const;
    void setStopText(const QString& text);
    bool storeOpen() const { return m_store.isOpen(); }
    QString storeError() const { return m_storeError; }

    // The history could not be opened: keep the old file aside and start a new one.
    Q_INVOKABLE bool startFreshStore();
    // Loads a .gguf file or a Hugging Face folder (a path or a file: URL) with the settings' load
    // options; `quant` a preset to apply (empty: as stored). Returns the load's id (0: refused).
    // Progress and failure: engine.loading, loadFraction, loadError.
    Q_INVOKABLE quint64 loadModel(const QString& pathOrUrl, const QString& quant = {});

    // Sets one sampling key (see `sampling`) for this chat alone; an unknown key is ignored.
    Q_INVOKABLE void setSamplingValue(const QString& key, const QVariant& value);
    // Forgets this chat's own sampling: it follows the model's recommendation and the settings
    // again, as a new chat does.
    Q_INVOKABLE void resetSampling();

    Q_INVOKABLE void newChat();
    Q_INVOKABLE bool openConversation(qint64 id);
    Q_INVOKABLE bool renameConversation(qint64 id, const QString& title);
    Q_INVOKABLE bool deleteConversation(qint64 id);
    // Deletes conversations.selectedIds() in one step; returns how many went.
    Q_INVOKABLE int deleteSelectedConversations();
    // Writes conversation `id` to a file (a path or a file: URL) as "markdown" (to read) or "json"
    // (to import again, every branch and number kept); the file is replaced atomically. False,
    // with errorOccurred, when it cannot be written.
    Q_INVOKABLE bool exportConversation(qint64 id, const QString& fileOrUrl, const QString& format);
    // Adds the conversation in a JSON export as a new conversation and opens it; returns its id
    // (0, with errorOccurred, for a file that is not a good export: nothing is added then).
    Q_INVOKABLE qint64 importConversation(const QString& fileOrUrl);

    Q_INVOKABLE static bool isSendable(const QString& text);
    // Sends `text` (exactly as typed) and starts the reply. False, with nothing saved, when the
    // text is blank or canSend is false.
    Q_INVOKABLE bool send(const QString& text);
    // Stops the reply: it ends before the engine's next token, kept as far as it got.
    Q_INVOKABLE void stop();
    // A new reply to the user message before the assistant message at `row`; the old reply
    // stays reachable as an alternative.
    Q_INVOKABLE bool regenerate(int row);
    // Sends `text` in place of the user message at `row`: a new branch from there.
    Q_INVOKABLE bool editAndResend(int row, const QString& text);
    // Shows the alternative `step` places away (-1 "<", +1 ">") of the message at `row`.
    Q_INVOKABLE bool switchAlternative(int row, int step);
    // Copies the message at `row` (its markdown as written) to the clipboard.
    Q_INVOKABLE bool copyMessage(int row);

signals:
    void conversationChanged();
    void replyingChanged();
    void canSendChanged();
    void settingsChanged();
    void samplingChanged();
    void storeChanged();
    // Something the user asked for failed (a store or engine error), in words for a message.
    void errorOccurred(const QString& message);

private:
    struct Pending {
        ReplyBackend* backend = nullptr; // the engine or the remote connection writing it
        quint64 turnId = 0;
        qint64 conversationId = 0, messageId = 0;
        QString content, reasoning;
        bool dirty = false; // pieces arrived since the last save
    };

    bool check(const hearth::Status& status);
    void reloadMessages();
    void refreshConversations();
    void showConversation(qint64 id, const store::ConversationSettings& settings, const QString& title);
    void saveSettings();
    store::ConversationSettings freshSettings() const;
    QJsonObject modelSamplingJson() const;
    bool startReply(const QList<store::Message>& before, const QString& userText, qint64 replyId);
    void savePending();
    void follow(ReplyBackend* backend);
    bool isPending(const ReplyBackend* backend, quint64 id) const;
    void onPieces(const QString& content, const QString& reasoning);
    void onFinished(const ReplyResult& result);
    void onFailed(const ReplyFailure& failure);
    void endPending(const QString& content, const QString& reasoning, const store::ReplyStats& stats);
    void updateCanSend();
    void dropConversations(const QList<qint64>& ids);
    const ChatMessageRow* rowAt(int row) const;

    store::ConversationStore m_store;
    QString m_storeError;
    EngineHost* m_engine;
    ActiveConnection* m_connection;
    LiveStats* m_liveStats;
    ConversationListModel* m_conversations;
    MessageListModel* m_messages;

    qint64 m_conversationId = 0;
    QString m_title;
    store::ConversationSettings m_settings;
    QPointer<AppSettings> m_appSettings;

    std::optional<Pending> m_pending;
    QTimer m_saveTimer;
    QHash<qint64, QString> m_errors; // message id → the engine's error, for this session
    bool m_canSend = false;
};
