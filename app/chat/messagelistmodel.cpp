#include "messagelistmodel.h"

#include "chatformat.h"

namespace {

bool sameStats(const store::ReplyStats& a, const store::ReplyStats& b)
{
    return a.promptTokens == b.promptTokens && a.generatedTokens == b.generatedTokens &&
           a.prefillTokensPerSecond == b.prefillTokensPerSecond && a.decodeTokensPerSecond == b.decodeTokensPerSecond &&
           a.timeToFirstTokenMs == b.timeToFirstTokenMs && a.model == b.model && a.quant == b.quant &&
           a.device == b.device && a.stopReason == b.stopReason;
}

} // namespace

ChatMessageRow ChatMessageRow::fromStore(const store::Message& m)
{
    ChatMessageRow row;
    row.id = m.id;
    row.role = m.role;
    row.text = m.text;
    row.thinking = m.thinking;
    row.streaming = m.streaming;
    row.stats = m.stats;
    row.alternativeIndex = m.alternativeIndex;
    row.alternativeCount = m.alternativeCount;
    return row;
}

bool ChatMessageRow::operator==(const ChatMessageRow& o) const
{
    return id == o.id && role == o.role && text == o.text && thinking == o.thinking && streaming == o.streaming &&
           sameStats(stats, o.stats) && alternativeIndex == o.alternativeIndex &&
           alternativeCount == o.alternativeCount && error == o.error;
}

MessageListModel::MessageListModel(QObject* parent)
    : KeyedRows<ChatMessageRow>(parent)
{
}

QVariant MessageListModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const ChatMessageRow& m = m_rows[index.row()];
    auto rate = [](const std::optional<double>& v) { return v ? *v : -1.0; };
    switch (role) {
    case MessageIdRole: return m.id;
    case RoleRole: return store::roleName(m.role);
    case TextRole: return m.text;
    case ThinkingRole: return m.thinking;
    case StreamingRole: return m.streaming;
    case ThinkingActiveRole: return m.streaming && m.text.isEmpty() && !m.thinking.isEmpty();
    case StatsTextRole: return chat::statsLine(m.stats);
    case TokensRole: return m.stats.generatedTokens;
    case PromptTokensRole: return m.stats.promptTokens;
    case DecodeTokPerSRole: return rate(m.stats.decodeTokensPerSecond);
    case PrefillTokPerSRole: return rate(m.stats.prefillTokensPerSecond);
    case TtftMsRole: return rate(m.stats.timeToFirstTokenMs);
    case StopReasonRole: return m.stats.stopReason;
    case ModelNameRole: return m.stats.model;
    case AlternativeIndexRole: return m.alternativeIndex;
    case AlternativeCountRole: return m.alternativeCount;
    case ErrorRole: return m.error;
    }
    return {};
}

QHash<int, QByteArray> MessageListModel::roleNames() const
{
    return {{MessageIdRole, "messageId"},
            {RoleRole, "role"},
            {TextRole, "text"},
            {ThinkingRole, "thinking"},
            {StreamingRole, "streaming"},
            {ThinkingActiveRole, "thinkingActive"},
            {StatsTextRole, "statsText"},
            {TokensRole, "tokens"},
            {PromptTokensRole, "promptTokens"},
            {DecodeTokPerSRole, "decodeTokPerS"},
            {PrefillTokPerSRole, "prefillTokPerS"},
            {TtftMsRole, "ttftMs"},
            {StopReasonRole, "stopReason"},
            {ModelNameRole, "modelName"},
            {AlternativeIndexRole, "alternativeIndex"},
            {AlternativeCountRole, "alternativeCount"},
            {ErrorRole, "errorText"}};
}

void MessageListModel::updateStreaming(qint64 id, const QString& text, const QString& thinking)
{
    const int row = rowOf(id);
    if (row < 0)
        return;
    m_rows[row].text = text;
    m_rows[row].thinking = thinking;
    emit dataChanged(index(row), index(row), {TextRole, ThinkingRole, ThinkingActiveRole});
}
