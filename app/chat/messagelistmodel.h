// The shown conversation for the chat view: the messages along the current alternatives, with
// each reply's numbers, its place among its alternatives ("2/3") and an error marker. Filled by
// ChatController; a streaming reply changes only its own row. GUI thread.
#pragma once

#include <QQmlEngine>

#include "keyedrows.h"
#include "store/store_types.h"

struct ChatMessageRow {
    qint64 id = 0;
    store::Role role = store::Role::User;
    QString text, thinking;
    bool streaming = false;
    store::ReplyStats stats;
    int alternativeIndex = 1, alternativeCount = 1;
    QString error; // non-empty: the engine failed in this reply; the text is what came before

    static ChatMessageRow fromStore(const store::Message& message);
    bool operator==(const ChatMessageRow& other) const;
};

class MessageListModel : public KeyedRows<ChatMessageRow>
{
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("ChatController makes it: ChatController.messages")
    Q_PROPERTY(int count READ count NOTIFY countChanged)

public:
    enum Role {
        MessageIdRole = Qt::UserRole + 1,
        RoleRole,            // "user", "assistant", "system"
        TextRole,
        ThinkingRole,
        StreamingRole,
        ThinkingActiveRole,  // the reply is still thinking: its thinking is shown as it grows
        StatsTextRole,       // one line of numbers, see chat::statsLine
        TokensRole,
        PromptTokensRole,
        DecodeTokPerSRole,   // -1: nothing to time
        PrefillTokPerSRole,
        TtftMsRole,
        StopReasonRole,
        ModelNameRole,
        AlternativeIndexRole,
        AlternativeCountRole,
        ErrorRole,
    };
    Q_ENUM(Role)

    explicit MessageListModel(QObject* parent = nullptr);

    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;
    int count() const { return int(m_rows.size()); }

    void setMessages(const QList<ChatMessageRow>& rows) { syncRows(rows); }
    // The streaming reply `id` has grown: only its text roles change.
    void updateStreaming(qint64 id, const QString& text, const QString& thinking);

signals:
    void countChanged();

private:
    void rowCountChanged() override { emit countChanged(); }
};
