// ConversationStore: opening and recovery, conversations, search. Messages are in
// conversation_store_messages.cpp.
#include "store/conversation_store.h"

#include <QFileInfo>
#include <QJsonDocument>
#include <QSqlQuery>
#include <QStandardPaths>

#include <algorithm>
#include <atomic>

#include "store/store_file.h"
#include "store/store_row.h"
#include "store/store_schema.h"
#include "store/store_sql.h"
#include "store/store_text.h"

namespace store {
namespace {

const QString kConversationColumns =
    QStringLiteral("id, title, created, updated, model_path, quant, system_prompt, sampling, thinking");

Conversation conversationFromRow(const QSqlQuery& q)
{
    Conversation c;
    c.id = q.value(0).toLongLong();
    c.title = q.value(1).toString();
    c.created = timeFromMs(q.value(2).toLongLong());
    c.updated = timeFromMs(q.value(3).toLongLong());
    c.settings.modelPath = q.value(4).toString();
    c.settings.quant = q.value(5).toString();
    c.settings.systemPrompt = q.value(6).toString();
    c.settings.sampling = QJsonDocument::fromJson(q.value(7).toString().toUtf8()).object();
    c.settings.thinking = q.value(8).toInt() != 0;
    return c;
}

hearth::Status notFoundConversation(qint64 id)
{
    return hearth::notFound("conversation " + std::to_string(id) + " does not exist");
}

// FTS5 query syntax: each word a quoted phrase (quotes doubled), all required.
QString matchExpression(const QStringList& words)
{
    QStringList phrases;
    for (QString w : words)
        phrases << QLatin1Char('"') + w.replace(QLatin1Char('"'), QStringLiteral("\"\"")) + QLatin1Char('"');
    return phrases.join(QLatin1Char(' '));
}

QString likePattern(QString word)
{
    word.replace(QLatin1Char('\\'), QStringLiteral("\\\\"));
    word.replace(QLatin1Char('%'), QStringLiteral("\\%"));
    word.replace(QLatin1Char('_'), QStringLiteral("\\_"));
    return QLatin1Char('%') + word + QLatin1Char('%');
}

struct Found {
    SearchHit hit;
    qint64 updated = 0;
};

} // namespace

ConversationStore::ConversationStore() = default;

ConversationStore::~ConversationStore()
{
    close();
}

QString ConversationStore::defaultPath()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/history.sqlite");
}

hearth::Status ConversationStore::open(const QString& path, const StoreOptions& options)
{
    close();
    const StoreOptions copy = options; // `options` may be m_options itself (startFresh)
    m_options = copy;
    m_problem = OpenProblem::None;
    if (path.trimmed().isEmpty()) {
        m_problem = OpenProblem::NotWritable;
        return hearth::invalidArgument("no history file given");
    }
    m_path = QFileInfo(path).absoluteFilePath();
    hearth::Status s = openFile();
    if (!s.isOk()) {
        if (m_problem == OpenProblem::None) m_problem = OpenProblem::Failed;
        close();
    }
    return s;
}

hearth::Status ConversationStore::openFile()
{
    FileCheck check = checkFile(m_path, m_options.busyTimeoutMs, m_options.checkIntegrityOnOpen);
    if (!check.status.isOk()) {
        m_problem = check.problem;
        return check.status;
    }
    static std::atomic<int> counter{0};
    m_connectionName = QStringLiteral("hearth-store-%1").arg(++counter);
    m_db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_connectionName);
    check = openWritable(m_db, m_path, m_options.busyTimeoutMs);
    if (!check.status.isOk()) {
        m_problem = check.problem;
        return check.status;
    }
    if (hearth::Status s = migrate(m_db); !s.isOk()) {
        m_problem = problemOf(s);
        return s.withContext(m_path.toStdString());
    }
    // A reply still streaming here was cut off when the app last stopped: keep it, mark it.
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("UPDATE messages SET streaming = 0, stop_reason = ? WHERE streaming = 1"));
    q.addBindValue(QString::fromLatin1(kStopInterrupted));
    if (hearth::Status s = runQuery(q, QStringLiteral("marking interrupted replies")); !s.isOk()) {
        m_problem = problemOf(s);
        return s.withContext(m_path.toStdString());
    }
    return prepareConnection();
}

hearth::Status ConversationStore::prepareConnection()
{
    m_streamUpdate = std::make_unique<QSqlQuery>(m_db);
    if (!m_streamUpdate->prepare(
            QStringLiteral("UPDATE messages SET text = ?, thinking = ? WHERE id = ? AND streaming = 1")))
        return sqlStatus(m_streamUpdate->lastError(), QStringLiteral("preparing the reply update"));
    return hearth::Status::ok();
}

void ConversationStore::close()
{
    m_streamUpdate.reset(); // queries first: a connection is removed only when nothing uses it
    if (m_db.isValid()) m_db.close();
    m_db = QSqlDatabase();
    if (!m_connectionName.isEmpty()) QSqlDatabase::removeDatabase(m_connectionName);
    m_connectionName.clear();
}

bool ConversationStore::isOpen() const
{
    return m_db.isValid() && m_db.isOpen();
}

hearth::Result<QString> ConversationStore::startFresh()
{
    if (m_path.isEmpty()) return hearth::failedPrecondition("no history file to start over from");
    const QString label = problemLabel(m_problem);
    close();
    HEARTH_ASSIGN(QString aside, moveAside(m_path, label, QDateTime::fromMSecsSinceEpoch(now())));
    if (hearth::Status s = open(m_path, m_options); !s.isOk())
        return s.withContext("starting a new history file (the old one is at " + aside.toStdString() + ")");
    return aside;
}

hearth::Status ConversationStore::checkIntegrity()
{
    HEARTH_TRY(requireOpen());
    QSqlQuery q(m_db);
    if (!q.exec(QStringLiteral("PRAGMA integrity_check")))
        return sqlStatus(q.lastError(), QStringLiteral("integrity check"));
    QStringList problems;
    while (q.next())
        if (q.value(0).toString() != QLatin1String("ok")) problems << q.value(0).toString();
    if (!problems.isEmpty())
        return hearth::dataLoss((m_path + QStringLiteral(": ") + problems.join(QStringLiteral("; "))).toStdString());
    return execSql(m_db, QStringLiteral("INSERT INTO message_fts(message_fts) VALUES ('integrity-check')"));
}

qint64 ConversationStore::now() const
{
    return m_options.nowMs ? m_options.nowMs() : QDateTime::currentMSecsSinceEpoch();
}

hearth::Status ConversationStore::requireOpen() const
{
    if (!isOpen()) return hearth::failedPrecondition("the history is not open");
    return hearth::Status::ok();
}

hearth::Result<qint64> ConversationStore::createConversation(const ConversationSettings& settings, const QString& title)
{
    HEARTH_TRY(requireOpen());
    const qint64 t = now();
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("INSERT INTO conversations (title, created, updated, model_path, quant, system_prompt, "
                             "sampling, thinking) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"));
    q.addBindValue(sanitizeText(title.simplified()));
    q.addBindValue(t);
    q.addBindValue(t);
    bindSettings(q, settings);
    HEARTH_TRY(runQuery(q, QStringLiteral("creating a conversation")));
    return q.lastInsertId().toLongLong();
}

hearth::Result<Conversation> ConversationStore::conversation(qint64 id)
{
    HEARTH_TRY(requireOpen());
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("SELECT %1 FROM conversations WHERE id = ?").arg(kConversationColumns));
    q.addBindValue(id);
    HEARTH_TRY(runQuery(q, QStringLiteral("reading a conversation")));
    if (!q.next()) return notFoundConversation(id);
    return conversationFromRow(q);
}

hearth::Result<QList<Conversation>> ConversationStore::listConversations()
{
    HEARTH_TRY(requireOpen());
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("SELECT %1 FROM conversations ORDER BY updated DESC, id DESC").arg(kConversationColumns));
    HEARTH_TRY(runQuery(q, QStringLiteral("listing conversations")));
    QList<Conversation> list;
    while (q.next()) list << conversationFromRow(q);
    return list;
}

hearth::Status ConversationStore::renameConversation(qint64 id, const QString& title)
{
    HEARTH_TRY(requireOpen());
    const QString clean = sanitizeText(title.simplified());
    if (clean.isEmpty()) return hearth::invalidArgument("a conversation title cannot be blank");
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("UPDATE conversations SET title = ? WHERE id = ?"));
    q.addBindValue(clean);
    q.addBindValue(id);
    HEARTH_TRY(runQuery(q, QStringLiteral("renaming a conversation")));
    return q.numRowsAffected() == 1 ? hearth::Status::ok() : notFoundConversation(id);
}

hearth::Status ConversationStore::updateSettings(qint64 id, const ConversationSettings& settings)
{
    HEARTH_TRY(requireOpen());
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("UPDATE conversations SET model_path = ?, quant = ?, system_prompt = ?, sampling = ?, "
                             "thinking = ? WHERE id = ?"));
    bindSettings(q, settings);
    q.addBindValue(id);
    HEARTH_TRY(runQuery(q, QStringLiteral("saving conversation settings")));
    return q.numRowsAffected() == 1 ? hearth::Status::ok() : notFoundConversation(id);
}

hearth::Status ConversationStore::deleteConversation(qint64 id)
{
    HEARTH_TRY(requireOpen());
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("DELETE FROM conversations WHERE id = ?")); // messages go by cascade
    q.addBindValue(id);
    HEARTH_TRY(runQuery(q, QStringLiteral("deleting a conversation")));
    return q.numRowsAffected() == 1 ? hearth::Status::ok() : notFoundConversation(id);
}

hearth::Result<int> ConversationStore::deleteConversations(const QList<qint64>& ids)
{
    HEARTH_TRY(requireOpen());
    WriteTransaction tx(m_db);
    HEARTH_TRY(tx.status());
    int deleted = 0;
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("DELETE FROM conversations WHERE id = ?"));
    for (qint64 id : ids) {
        q.addBindValue(id);
        HEARTH_TRY(runQuery(q, QStringLiteral("deleting conversations")));
        deleted += q.numRowsAffected();
    }
    HEARTH_TRY(tx.commit());
    return deleted;
}

hearth::Result<QList<SearchHit>> ConversationStore::search(const QString& query, int limit)
{
    HEARTH_TRY(requireOpen());
    const QStringList words = searchTerms(query);
    if (words.isEmpty() || limit <= 0) return QList<SearchHit>{};
    // The trigram index finds words of 3 characters or more; shorter ones ("AI", "你好") are
    // matched with LIKE, over the index's hits when there are any, else over all messages.
    QStringList indexed, scanned;
    for (const QString& w : words) (codePointCount(w) >= 3 ? indexed : scanned) << w;
    QString where = indexed.isEmpty() ? QStringLiteral("m.streaming = 0") : QStringLiteral("message_fts MATCH ?");
    for (qsizetype i = 0; i < scanned.size(); ++i) where += QStringLiteral(" AND m.text LIKE ? ESCAPE '\\'");
    const QString from = indexed.isEmpty() ? QStringLiteral("messages m")
                                           : QStringLiteral("message_fts JOIN messages m ON m.id = message_fts.rowid");
    // With max(), SQLite takes the other columns from the row holding the maximum: the newest hit.
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("SELECT h.cid, h.mid, h.text, c.updated FROM (SELECT m.conversation_id AS cid, "
                             "max(m.id) AS mid, m.text AS text FROM %1 WHERE %2 GROUP BY m.conversation_id) h "
                             "JOIN conversations c ON c.id = h.cid ORDER BY c.updated DESC, c.id DESC LIMIT ?")
                  .arg(from, where));
    if (!indexed.isEmpty()) q.addBindValue(matchExpression(indexed));
    for (const QString& w : scanned) q.addBindValue(likePattern(w));
    q.addBindValue(limit);
    HEARTH_TRY(runQuery(q, QStringLiteral("searching messages")));
    QList<Found> found;
    while (q.next())
        found.append({{q.value(0).toLongLong(), q.value(1).toLongLong(), makeSnippet(q.value(2).toString(), words)},
                      q.value(3).toLongLong()});
    q.finish();

    // Titles: few and short, so a plain scan.
    QString titleWhere = QStringLiteral("1");
    for (qsizetype i = 0; i < words.size(); ++i) titleWhere += QStringLiteral(" AND title LIKE ? ESCAPE '\\'");
    QSqlQuery t(m_db);
    t.prepare(QStringLiteral("SELECT id, title, updated FROM conversations WHERE %1 ORDER BY updated DESC LIMIT ?")
                  .arg(titleWhere));
    for (const QString& w : words) t.addBindValue(likePattern(w));
    t.addBindValue(limit);
    HEARTH_TRY(runQuery(t, QStringLiteral("searching titles")));
    while (t.next()) {
        const qint64 id = t.value(0).toLongLong();
        if (std::none_of(found.begin(), found.end(), [id](const Found& f) { return f.hit.conversationId == id; }))
            found.append({{id, 0, t.value(1).toString()}, t.value(2).toLongLong()});
    }
    std::stable_sort(found.begin(), found.end(), [](const Found& a, const Found& b) { return a.updated > b.updated; });
    QList<SearchHit> hits;
    for (const Found& f : found)
        if (hits.size() < limit) hits << f.hit;
    return hits;
}

} // namespace store
