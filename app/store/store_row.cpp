#include "store/store_row.h"

#include <QJsonDocument>

#include "store/store_text.h"

namespace store {

QDateTime timeFromMs(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC);
}

qint64 msFromTime(const QDateTime& time)
{
    return time.isValid() ? time.toMSecsSinceEpoch() : 0;
}

QVariant fromOptional(const std::optional<double>& value)
{
    return value ? QVariant(*value) : QVariant(QMetaType::fromType<double>());
}

std::optional<double> toOptional(const QVariant& value)
{
    if (value.isNull()) return std::nullopt;
    return value.toDouble();
}

void bindSettings(QSqlQuery& query, const ConversationSettings& settings)
{
    query.addBindValue(sanitizeText(settings.modelPath));
    query.addBindValue(sanitizeText(settings.quant));
    query.addBindValue(sanitizeText(settings.systemPrompt));
    query.addBindValue(QString::fromUtf8(QJsonDocument(settings.sampling).toJson(QJsonDocument::Compact)));
    query.addBindValue(settings.thinking ? 1 : 0);
}

// The position among siblings counts the siblings with a smaller or equal id: alternatives are
// numbered in the order they were made.
const QString kMessageColumns = QStringLiteral(
    "m.id, m.conversation_id, m.parent_id, m.role, m.text, m.thinking, m.created, m.prompt_tokens, "
    "m.generated_tokens, m.prefill_tps, m.decode_tps, m.ttft_ms, m.model, m.quant, m.device, m.stop_reason, "
    "m.streaming, m.is_current, "
    "(SELECT count(*) FROM messages s WHERE s.conversation_id = m.conversation_id AND s.parent_id IS m.parent_id "
    "AND s.id <= m.id), "
    "(SELECT count(*) FROM messages s WHERE s.conversation_id = m.conversation_id AND s.parent_id IS m.parent_id)");

Message messageFromRow(const QSqlQuery& q)
{
    Message m;
    m.id = q.value(0).toLongLong();
    m.conversationId = q.value(1).toLongLong();
    m.parentId = q.value(2).toLongLong(); // NULL reads as 0
    m.role = roleFromName(q.value(3).toString()).value_or(Role::User);
    m.text = q.value(4).toString();
    m.thinking = q.value(5).toString();
    m.created = timeFromMs(q.value(6).toLongLong());
    m.stats.promptTokens = q.value(7).toInt();
    m.stats.generatedTokens = q.value(8).toInt();
    m.stats.prefillTokensPerSecond = toOptional(q.value(9));
    m.stats.decodeTokensPerSecond = toOptional(q.value(10));
    m.stats.timeToFirstTokenMs = toOptional(q.value(11));
    m.stats.model = q.value(12).toString();
    m.stats.quant = q.value(13).toString();
    m.stats.device = q.value(14).toString();
    m.stats.stopReason = q.value(15).toString();
    m.streaming = q.value(16).toInt() != 0;
    m.current = q.value(17).toInt() != 0;
    m.alternativeIndex = q.value(18).toInt();
    m.alternativeCount = q.value(19).toInt();
    return m;
}

} // namespace store
