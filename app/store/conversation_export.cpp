#include "store/conversation_export.h"

#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

#include "store/conversation_store.h"

#include <algorithm>
#include <climits>

namespace store {
namespace {

constexpr const char* kFormat = "hearth.conversation";
constexpr qint64 kMaxImportBytes = 256ll << 20; // far above any real conversation

QString isoTime(const QDateTime& t)
{
    return t.toUTC().toString(Qt::ISODateWithMs);
}

QString readableTime(const QDateTime& t)
{
    return t.toUTC().toString(QStringLiteral("yyyy-MM-dd HH:mm 'UTC'"));
}

QJsonValue optionalNumber(const std::optional<double>& v)
{
    return v ? QJsonValue(*v) : QJsonValue(QJsonValue::Null);
}

QString statsLine(const Message& m)
{
    const ReplyStats& s = m.stats;
    QStringList parts;
    if (s.generatedTokens > 0) parts << QStringLiteral("%1 tokens").arg(s.generatedTokens);
    if (s.prefillTokensPerSecond) parts << QStringLiteral("prefill %1 tok/s").arg(*s.prefillTokensPerSecond, 0, 'f', 1);
    if (s.decodeTokensPerSecond) parts << QStringLiteral("decode %1 tok/s").arg(*s.decodeTokensPerSecond, 0, 'f', 1);
    if (s.timeToFirstTokenMs) parts << QStringLiteral("first token %1 ms").arg(*s.timeToFirstTokenMs, 0, 'f', 0);
    for (const QString& word : {s.model, s.quant, s.device})
        if (!word.isEmpty()) parts << word;
    if (!s.stopReason.isEmpty()) parts << QStringLiteral("stopped: ") + s.stopReason;
    return parts.isEmpty() ? QString() : QLatin1Char('*') + parts.join(QStringLiteral(" · ")) + QLatin1Char('*');
}

QString roleHeading(Role role)
{
    switch (role) {
    case Role::User: return QStringLiteral("User");
    case Role::Assistant: return QStringLiteral("Assistant");
    case Role::System: return QStringLiteral("System");
    }
    return {};
}

QJsonObject messageToJson(const Message& m, qint64 fileId, qint64 fileParent)
{
    QJsonObject o;
    o[QStringLiteral("id")] = fileId;
    o[QStringLiteral("parent")] = fileParent ? QJsonValue(fileParent) : QJsonValue(QJsonValue::Null);
    o[QStringLiteral("current")] = m.current;
    o[QStringLiteral("role")] = roleName(m.role);
    o[QStringLiteral("text")] = m.text;
    o[QStringLiteral("thinking")] = m.thinking;
    o[QStringLiteral("created")] = isoTime(m.created);
    o[QStringLiteral("promptTokens")] = m.stats.promptTokens;
    o[QStringLiteral("generatedTokens")] = m.stats.generatedTokens;
    o[QStringLiteral("prefillTokensPerSecond")] = optionalNumber(m.stats.prefillTokensPerSecond);
    o[QStringLiteral("decodeTokensPerSecond")] = optionalNumber(m.stats.decodeTokensPerSecond);
    o[QStringLiteral("timeToFirstTokenMs")] = optionalNumber(m.stats.timeToFirstTokenMs);
    o[QStringLiteral("model")] = m.stats.model;
    o[QStringLiteral("quant")] = m.stats.quant;
    o[QStringLiteral("device")] = m.stats.device;
    o[QStringLiteral("stopReason")] = m.stats.stopReason;
    return o;
}

// Reads one typed field of a JSON object into `out`; a missing field keeps the default.
class Reader {
public:
    Reader(const QJsonObject& o, QString where) : m_o(o), m_where(std::move(where)) {}

    QJsonValue get(const char* key) const { return m_o.value(QLatin1String(key)); }
    void string(const char* key, QString& out) { if (has(key, get(key).isString())) out = get(key).toString(); }
    void boolean(const char* key, bool& out) { if (has(key, get(key).isBool())) out = get(key).toBool(); }
    void integer(const char* key, qint64& out)
    {
        const QJsonValue v = get(key);
        if (has(key, v.isDouble() && v.toDouble() == double(v.toInteger()))) out = v.toInteger();
    }
    void number(const char* key, std::optional<double>& out)
    {
        const QJsonValue v = get(key);
        if (v.isNull()) out.reset();
        else if (has(key, v.isDouble())) out = v.toDouble();
    }
    void time(const char* key, QDateTime& out)
    {
        QString s;
        string(key, s);
        if (s.isEmpty()) return;
        out = QDateTime::fromString(s, Qt::ISODateWithMs);
        if (!out.isValid()) fail(key, "is not an ISO 8601 time");
    }
    void fail(const char* key, const char* what)
    {
        if (m_error.isEmpty())
            m_error = QStringLiteral("%1: \"%2\" %3").arg(m_where, QLatin1String(key), QLatin1String(what));
    }
    const QString& error() const { return m_error; }

private:
    bool has(const char* key, bool rightType)
    {
        if (get(key).isUndefined() || get(key).isNull()) return false;
        if (!rightType) fail(key, "has the wrong type");
        return rightType;
    }

    QJsonObject m_o;
    QString m_where;
    QString m_error;
};

hearth::Result<Message> messageFromJson(const QJsonValue& value, int index)
{
    const QString where = QStringLiteral("message %1").arg(index + 1);
    if (!value.isObject()) return hearth::invalidArgument((where + QStringLiteral(" is not an object")).toStdString());
    Message m;
    Reader r(value.toObject(), where);
    QString role;
    r.integer("id", m.id);
    r.integer("parent", m.parentId);
    r.boolean("current", m.current);
    r.string("role", role);
    r.string("text", m.text);
    r.string("thinking", m.thinking);
    r.time("created", m.created);
    qint64 prompt = 0, generated = 0;
    r.integer("promptTokens", prompt);
    r.integer("generatedTokens", generated);
    m.stats.promptTokens = int(std::clamp<qint64>(prompt, 0, INT_MAX));
    m.stats.generatedTokens = int(std::clamp<qint64>(generated, 0, INT_MAX));
    r.number("prefillTokensPerSecond", m.stats.prefillTokensPerSecond);
    r.number("decodeTokensPerSecond", m.stats.decodeTokensPerSecond);
    r.number("timeToFirstTokenMs", m.stats.timeToFirstTokenMs);
    r.string("model", m.stats.model);
    r.string("quant", m.stats.quant);
    r.string("device", m.stats.device);
    r.string("stopReason", m.stats.stopReason);
    if (!r.error().isEmpty()) return hearth::invalidArgument(r.error().toStdString());
    const std::optional<Role> parsed = roleFromName(role);
    if (!parsed)
        return hearth::invalidArgument((where + QStringLiteral(": unknown role \"%1\"").arg(role)).toStdString());
    m.role = *parsed;
    return m;
}

} // namespace

hearth::Result<QString> exportMarkdown(ConversationStore& store, qint64 conversationId)
{
    HEARTH_ASSIGN(const Conversation c, store.conversation(conversationId));
    HEARTH_ASSIGN(const QList<Message> path, store.currentPath(conversationId));
    QString md = QStringLiteral("# %1\n\n").arg(c.title.isEmpty() ? QStringLiteral("Untitled conversation") : c.title);
    QStringList about{QStringLiteral("Created %1").arg(readableTime(c.created))};
    if (!c.settings.modelPath.isEmpty()) {
        const QString quant = c.settings.quant.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(c.settings.quant);
        about.prepend(QStringLiteral("Model: `%1`%2").arg(c.settings.modelPath, quant));
    }
    md += about.join(QStringLiteral(" · ")) + QStringLiteral("\n\n");
    if (!c.settings.systemPrompt.isEmpty()) {
        const QString quoted = QString(c.settings.systemPrompt).replace(QLatin1Char('\n'), QStringLiteral("\n> "));
        md += QStringLiteral("> **System prompt:** %1\n\n").arg(quoted);
    }
    for (const Message& m : path) {
        md += QStringLiteral("---\n\n### %1").arg(roleHeading(m.role));
        if (m.alternativeCount > 1) md += QStringLiteral(" (%1 of %2)").arg(m.alternativeIndex).arg(m.alternativeCount);
        md += QStringLiteral(" · %1\n\n").arg(readableTime(m.created));
        if (!m.thinking.isEmpty())
            md += QStringLiteral("<details><summary>Thinking</summary>\n\n%1\n\n</details>\n\n").arg(m.thinking);
        md += m.text + QStringLiteral("\n\n");
        if (const QString stats = statsLine(m); !stats.isEmpty()) md += stats + QStringLiteral("\n\n");
    }
    return md;
}

hearth::Result<QByteArray> exportJson(ConversationStore& store, qint64 conversationId)
{
    HEARTH_ASSIGN(const Conversation c, store.conversation(conversationId));
    HEARTH_ASSIGN(const QList<Message> all, store.allMessages(conversationId));
    QJsonObject root;
    root[QStringLiteral("format")] = QLatin1String(kFormat);
    root[QStringLiteral("version")] = kExportFormatVersion;
    root[QStringLiteral("title")] = c.title;
    root[QStringLiteral("created")] = isoTime(c.created);
    root[QStringLiteral("updated")] = isoTime(c.updated);
    root[QStringLiteral("modelPath")] = c.settings.modelPath;
    root[QStringLiteral("quant")] = c.settings.quant;
    root[QStringLiteral("systemPrompt")] = c.settings.systemPrompt;
    root[QStringLiteral("sampling")] = c.settings.sampling;
    root[QStringLiteral("thinking")] = c.settings.thinking;
    // Row ids mean nothing outside this file: number the messages 1, 2, ... in order.
    QHash<qint64, qint64> fileId;
    QJsonArray messages;
    for (const Message& m : all) {
        fileId.insert(m.id, fileId.size() + 1);
        messages.append(messageToJson(m, fileId.value(m.id), m.parentId ? fileId.value(m.parentId) : 0));
    }
    root[QStringLiteral("messages")] = messages;
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

hearth::Result<qint64> importJson(ConversationStore& store, const QByteArray& json)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return hearth::invalidArgument(QStringLiteral("not valid JSON: %1 at byte %2")
                                           .arg(parseError.errorString()).arg(parseError.offset).toStdString());
    const QJsonObject root = doc.object();
    if (!doc.isObject() || root.value(QLatin1String("format")).toString() != QLatin1String(kFormat))
        return hearth::invalidArgument(std::string("not a Hearth conversation (\"format\" is not \"") + kFormat +
                                       "\")");
    const int version = root.value(QLatin1String("version")).toInt(0);
    if (version > kExportFormatVersion)
        return hearth::unsupported("the conversation was exported by a newer Hearth (format version " +
                                   std::to_string(version) + "); this one reads up to " +
                                   std::to_string(kExportFormatVersion));
    if (version < 1) return hearth::invalidArgument("the conversation file has no valid \"version\"");
    Conversation c;
    Reader r(root, QStringLiteral("conversation"));
    r.string("title", c.title);
    r.time("created", c.created);
    r.time("updated", c.updated);
    r.string("modelPath", c.settings.modelPath);
    r.string("quant", c.settings.quant);
    r.string("systemPrompt", c.settings.systemPrompt);
    r.boolean("thinking", c.settings.thinking);
    if (root.contains(QLatin1String("sampling")) && !root.value(QLatin1String("sampling")).isObject())
        r.fail("sampling", "is not an object");
    c.settings.sampling = root.value(QLatin1String("sampling")).toObject();
    if (!root.value(QLatin1String("messages")).isArray()) r.fail("messages", "is not a list");
    if (!r.error().isEmpty()) return hearth::invalidArgument(r.error().toStdString());
    const QJsonArray list = root.value(QLatin1String("messages")).toArray();
    QList<Message> messages;
    for (int i = 0; i < list.size(); ++i) {
        HEARTH_ASSIGN(Message m, messageFromJson(list.at(i), i));
        messages << m;
    }
    return store.importConversation(c, messages);
}

hearth::Status writeExportFile(const QString& path, const QByteArray& content)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(content) != content.size() || !file.commit())
        return hearth::failedPrecondition(
            QStringLiteral("cannot write %1: %2").arg(path, file.errorString()).toStdString());
    return hearth::Status::ok();
}

hearth::Result<qint64> importJsonFile(ConversationStore& store, const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return hearth::notFound(QStringLiteral("cannot read %1: %2").arg(path, file.errorString()).toStdString());
    if (file.size() > kMaxImportBytes)
        return hearth::invalidArgument(QStringLiteral("%1 is too large for a conversation (%2 MB)")
                                           .arg(path).arg(file.size() >> 20).toStdString());
    hearth::Result<qint64> id = importJson(store, file.readAll());
    if (!id.isOk()) return id.status().withContext(path.toStdString());
    return id;
}

} // namespace store
