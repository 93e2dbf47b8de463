// ConversationStore: messages, the alternatives tree, streaming replies, import.
#include "store/conversation_store.h"

#include <QHash>
#include <QSet>
#include <QSqlQuery>

#include "store/store_row.h"
#include "store/store_sql.h"
#include "store/store_text.h"

namespace store {
namespace {

hearth::Status notFoundMessage(qint64 id)
{
    return hearth::notFound("message " + std::to_string(id) + " does not exist");
}

// The shown path: the current first message, then each current child in turn.
const QString kCurrentPath = QStringLiteral(
    "WITH RECURSIVE path(id, depth) AS ("
    " SELECT id, 0 FROM messages WHERE conversation_id = ? AND parent_id IS NULL AND is_current = 1"
    " UNION ALL SELECT c.id, p.depth + 1 FROM messages c JOIN path p ON c.parent_id = p.id WHERE c.is_current = 1) ");

// Makes ? (a message) and its ancestors current, and their siblings not: one statement.
const QString kMakeCurrent = QStringLiteral(
    "WITH RECURSIVE chain(id, parent_id) AS ("
    " SELECT id, parent_id FROM messages WHERE id = ?"
    " UNION ALL SELECT m.id, m.parent_id FROM messages m JOIN chain c ON m.id = c.parent_id) "
    "UPDATE messages SET is_current = (id IN (SELECT id FROM chain)) WHERE conversation_id = ? AND "
    "(parent_id IS NULL OR parent_id IN (SELECT parent_id FROM chain WHERE parent_id IS NOT NULL))");

hearth::Status checkNew(const NewMessage& message)
{
    if (message.streaming && message.role != Role::Assistant)
        return hearth::invalidArgument("only an assistant reply can stream");
    return hearth::Status::ok();
}

} // namespace

hearth::Result<qint64> ConversationStore::insertMessage(qint64 conversationId, qint64 parentId,
                                                       const NewMessage& message)
{
    // The new message becomes the current one among its siblings.
    QSqlQuery reset(m_db);
    reset.prepare(QStringLiteral("UPDATE messages SET is_current = 0 WHERE conversation_id = ? AND parent_id IS ?"));
    reset.addBindValue(conversationId);
    reset.addBindValue(nullableId(parentId));
    HEARTH_TRY(runQuery(reset, QStringLiteral("adding a message")));
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("INSERT INTO messages (conversation_id, parent_id, is_current, streaming, role, text, "
                             "thinking, created) VALUES (?, ?, 1, ?, ?, ?, ?, ?)"));
    q.addBindValue(conversationId);
    q.addBindValue(nullableId(parentId));
    q.addBindValue(message.streaming ? 1 : 0);
    q.addBindValue(roleName(message.role));
    q.addBindValue(sanitizeText(message.text));
    q.addBindValue(sanitizeText(message.thinking));
    q.addBindValue(now());
    HEARTH_TRY(runQuery(q, QStringLiteral("adding a message")));
    return q.lastInsertId().toLongLong();
}

hearth::Status ConversationStore::touchConversation(qint64 id)
{
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("UPDATE conversations SET updated = ? WHERE id = ?"));
    q.addBindValue(now());
    q.addBindValue(id);
    return runQuery(q, QStringLiteral("updating a conversation"));
}

hearth::Result<qint64> ConversationStore::appendMessage(qint64 conversationId, const NewMessage& message)
{
    HEARTH_TRY(requireOpen());
    HEARTH_TRY(checkNew(message));
    WriteTransaction tx(m_db);
    HEARTH_TRY(tx.status());
    QSqlQuery q(m_db);
    q.prepare(kCurrentPath +
              QStringLiteral("SELECT c.title, (SELECT max(id) FROM path) FROM conversations c WHERE c.id = ?"));
    q.addBindValue(conversationId);
    q.addBindValue(conversationId);
    HEARTH_TRY(runQuery(q, QStringLiteral("adding a message")));
    if (!q.next()) return hearth::notFound("conversation " + std::to_string(conversationId) + " does not exist");
    const bool untitled = q.value(0).toString().isEmpty();
    const qint64 leaf = q.value(1).toLongLong(); // ids grow along a path: the largest is the last
    q.finish();
    HEARTH_ASSIGN(const qint64 id, insertMessage(conversationId, leaf, message));
    if (untitled && message.role == Role::User) {
        QSqlQuery title(m_db);
        title.prepare(QStringLiteral("UPDATE conversations SET title = ? WHERE id = ?"));
        title.addBindValue(sanitizeText(titleFromText(message.text)));
        title.addBindValue(conversationId);
        HEARTH_TRY(runQuery(title, QStringLiteral("titling a conversation")));
    }
    HEARTH_TRY(touchConversation(conversationId));
    HEARTH_TRY(tx.commit());
    return id;
}

hearth::Result<qint64> ConversationStore::addAlternative(qint64 messageId, const NewMessage& message)
{
    HEARTH_TRY(requireOpen());
    HEARTH_TRY(checkNew(message));
    HEARTH_ASSIGN(const Message sibling, readMessage(messageId));
    if (sibling.role != message.role)
        return hearth::invalidArgument("an alternative to a " + roleName(sibling.role).toStdString() +
                                       " message must have the same role, not " + roleName(message.role).toStdString());
    WriteTransaction tx(m_db);
    HEARTH_TRY(tx.status());
    HEARTH_ASSIGN(const qint64 id, insertMessage(sibling.conversationId, sibling.parentId, message));
    if (sibling.parentId != 0) { // the new branch is shown, so its ancestors are too
        QSqlQuery q(m_db);
        q.prepare(kMakeCurrent);
        q.addBindValue(id);
        q.addBindValue(sibling.conversationId);
        HEARTH_TRY(runQuery(q, QStringLiteral("showing the new alternative")));
    }
    HEARTH_TRY(touchConversation(sibling.conversationId));
    HEARTH_TRY(tx.commit());
    return id;
}

hearth::Status ConversationStore::updateStreamingReply(qint64 messageId, const QString& text, const QString& thinking)
{
    HEARTH_TRY(requireOpen());
    // One statement outside any transaction: SQLite commits it on its own, to the -wal file.
    m_streamUpdate->addBindValue(sanitizeText(text));
    m_streamUpdate->addBindValue(sanitizeText(thinking));
    m_streamUpdate->addBindValue(messageId);
    HEARTH_TRY(runQuery(*m_streamUpdate, QStringLiteral("saving the reply")));
    if (m_streamUpdate->numRowsAffected() != 1)
        return hearth::failedPrecondition("message " + std::to_string(messageId) + " is not a streaming reply");
    return hearth::Status::ok();
}

hearth::Status ConversationStore::finishReply(qint64 messageId, const QString& text, const QString& thinking,
                                              const ReplyStats& stats)
{
    HEARTH_TRY(requireOpen());
    WriteTransaction tx(m_db);
    HEARTH_TRY(tx.status());
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("UPDATE messages SET text = ?, thinking = ?, streaming = 0, prompt_tokens = ?, "
                             "generated_tokens = ?, prefill_tps = ?, decode_tps = ?, ttft_ms = ?, model = ?, "
                             "quant = ?, device = ?, stop_reason = ? WHERE id = ? AND streaming = 1"));
    q.addBindValue(sanitizeText(text));
    q.addBindValue(sanitizeText(thinking));
    q.addBindValue(stats.promptTokens);
    q.addBindValue(stats.generatedTokens);
    q.addBindValue(fromOptional(stats.prefillTokensPerSecond));
    q.addBindValue(fromOptional(stats.decodeTokensPerSecond));
    q.addBindValue(fromOptional(stats.timeToFirstTokenMs));
    q.addBindValue(sanitizeText(stats.model));
    q.addBindValue(sanitizeText(stats.quant));
    q.addBindValue(sanitizeText(stats.device));
    q.addBindValue(sanitizeText(stats.stopReason));
    q.addBindValue(messageId);
    HEARTH_TRY(runQuery(q, QStringLiteral("finishing the reply")));
    if (q.numRowsAffected() != 1)
        return hearth::failedPrecondition("message " + std::to_string(messageId) + " is not a streaming reply");
    QSqlQuery touch(m_db);
    touch.prepare(QStringLiteral("UPDATE conversations SET updated = ? "
                                 "WHERE id = (SELECT conversation_id FROM messages WHERE id = ?)"));
    touch.addBindValue(now());
    touch.addBindValue(messageId);
    HEARTH_TRY(runQuery(touch, QStringLiteral("finishing the reply")));
    return tx.commit();
}

hearth::Result<Message> ConversationStore::readMessage(qint64 id)
{
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("SELECT %1 FROM messages m WHERE m.id = ?").arg(kMessageColumns));
    q.addBindValue(id);
    HEARTH_TRY(runQuery(q, QStringLiteral("reading a message")));
    if (!q.next()) return notFoundMessage(id);
    return messageFromRow(q);
}

hearth::Result<QList<Message>> ConversationStore::readMessages(qint64 conversationId, bool currentOnly)
{
    HEARTH_TRY(requireOpen());
    HEARTH_TRY(conversation(conversationId).status()); // an unknown id is NotFound, not an empty list
    QSqlQuery q(m_db);
    if (currentOnly)
        q.prepare(kCurrentPath +
                  QStringLiteral("SELECT %1 FROM path JOIN messages m ON m.id = path.id ORDER BY path.depth")
                      .arg(kMessageColumns));
    else
        q.prepare(QStringLiteral("SELECT %1 FROM messages m WHERE m.conversation_id = ? ORDER BY m.id")
                      .arg(kMessageColumns));
    q.addBindValue(conversationId);
    HEARTH_TRY(runQuery(q, QStringLiteral("reading messages")));
    QList<Message> list;
    while (q.next()) list << messageFromRow(q);
    return list;
}

hearth::Result<QList<Message>> ConversationStore::currentPath(qint64 conversationId)
{
    return readMessages(conversationId, true);
}

hearth::Result<QList<Message>> ConversationStore::allMessages(qint64 conversationId)
{
    return readMessages(conversationId, false);
}

hearth::Status ConversationStore::makeCurrent(qint64 messageId)
{
    HEARTH_TRY(requireOpen());
    HEARTH_ASSIGN(const Message m, readMessage(messageId));
    QSqlQuery q(m_db);
    q.prepare(kMakeCurrent);
    q.addBindValue(messageId);
    q.addBindValue(m.conversationId);
    return runQuery(q, QStringLiteral("switching alternatives"));
}

hearth::Result<qint64> ConversationStore::switchAlternative(qint64 messageId, int step)
{
    HEARTH_TRY(requireOpen());
    HEARTH_ASSIGN(const Message m, readMessage(messageId));
    const int target = m.alternativeIndex + step; // 1-based
    if (target < 1 || target > m.alternativeCount)
        return hearth::invalidArgument("no alternative " + std::to_string(target) + " of " +
                                       std::to_string(m.alternativeCount));
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("SELECT id FROM messages WHERE conversation_id = ? AND parent_id IS ? ORDER BY id "
                             "LIMIT 1 OFFSET ?"));
    q.addBindValue(m.conversationId);
    q.addBindValue(nullableId(m.parentId));
    q.addBindValue(target - 1);
    HEARTH_TRY(runQuery(q, QStringLiteral("switching alternatives")));
    if (!q.next()) return hearth::internalError("alternative " + std::to_string(target) + " vanished");
    const qint64 id = q.value(0).toLongLong();
    q.finish();
    HEARTH_TRY(makeCurrent(id));
    return id;
}

hearth::Result<qint64> ConversationStore::importConversation(const Conversation& conversation,
                                                             const QList<Message>& messages)
{
    HEARTH_TRY(requireOpen());
    // Check the tree before writing: known parents listed first, one current child per parent.
    QHash<qint64, qint64> shown;  // parent (0 = none) -> the child shown
    QSet<qint64> marked;          // parents whose shown child was marked current
    QHash<qint64, qint64> newId;  // the caller's id -> the row id
    for (const Message& m : messages) {
        if (m.id <= 0 || newId.contains(m.id))
            return hearth::invalidArgument("message id " + std::to_string(m.id) + " is not a new positive id");
        if (m.parentId != 0 && !newId.contains(m.parentId))
            return hearth::invalidArgument("message " + std::to_string(m.id) + " follows message " +
                                           std::to_string(m.parentId) + ", which does not come before it");
        newId.insert(m.id, 0);
        // The last sibling marked current wins; a group with none marked shows its newest.
        if (m.current) {
            shown.insert(m.parentId, m.id);
            marked.insert(m.parentId);
        } else if (!marked.contains(m.parentId)) {
            shown.insert(m.parentId, m.id);
        }
    }
    WriteTransaction tx(m_db);
    HEARTH_TRY(tx.status());
    QSqlQuery c(m_db);
    c.prepare(QStringLiteral("INSERT INTO conversations (title, created, updated, model_path, quant, system_prompt, "
                             "sampling, thinking) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"));
    c.addBindValue(sanitizeText(conversation.title.simplified()));
    c.addBindValue(conversation.created.isValid() ? msFromTime(conversation.created) : now());
    c.addBindValue(conversation.updated.isValid() ? msFromTime(conversation.updated) : now());
    bindSettings(c, conversation.settings);
    HEARTH_TRY(runQuery(c, QStringLiteral("importing a conversation")));
    const qint64 conversationId = c.lastInsertId().toLongLong();
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("INSERT INTO messages (conversation_id, parent_id, is_current, streaming, role, text, "
                             "thinking, created, prompt_tokens, generated_tokens, prefill_tps, decode_tps, "
                             "ttft_ms, model, quant, device, stop_reason) "
                             "VALUES (?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    for (const Message& m : messages) {
        q.addBindValue(conversationId);
        q.addBindValue(nullableId(m.parentId ? newId.value(m.parentId) : 0));
        q.addBindValue(shown.value(m.parentId) == m.id ? 1 : 0);
        q.addBindValue(roleName(m.role));
        q.addBindValue(sanitizeText(m.text));
        q.addBindValue(sanitizeText(m.thinking));
        q.addBindValue(m.created.isValid() ? msFromTime(m.created) : now());
        q.addBindValue(m.stats.promptTokens);
        q.addBindValue(m.stats.generatedTokens);
        q.addBindValue(fromOptional(m.stats.prefillTokensPerSecond));
        q.addBindValue(fromOptional(m.stats.decodeTokensPerSecond));
        q.addBindValue(fromOptional(m.stats.timeToFirstTokenMs));
        q.addBindValue(sanitizeText(m.stats.model));
        q.addBindValue(sanitizeText(m.stats.quant));
        q.addBindValue(sanitizeText(m.stats.device));
        q.addBindValue(sanitizeText(m.stats.stopReason));
        HEARTH_TRY(runQuery(q, QStringLiteral("importing messages")));
        newId[m.id] = q.lastInsertId().toLongLong();
    }
    HEARTH_TRY(tx.commit());
    return conversationId;
}

} // namespace store
