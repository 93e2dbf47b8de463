// ConversationStore: CRUD, the alternatives tree, streaming replies, FTS5 search (Chinese too),
// the v1 -> v2 upgrade with data, refusing a newer file without touching it, recovering from a
// corrupt or locked file, export/import round trip, and bad text (100 kB, invalid UTF-8).
// Raw SQL here only builds files an older or newer Hearth would have left, or reads one from
// outside the store.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include "store/conversation_export.h"
#include "store/conversation_store.h"
#include "store/store_schema.h"
#include "store/store_text.h"

using namespace store;

namespace {

// A connection from outside the store, removed again on destruction.
class RawDb {
public:
    explicit RawDb(const QString& path, const QString& options = {})
        : m_name(QStringLiteral("raw-%1").arg(++s_counter))
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_name);
        db.setDatabaseName(path);
        db.setConnectOptions(options);
        m_ok = db.open();
    }
    ~RawDb()
    {
        QSqlDatabase::database(m_name, false).close();
        QSqlDatabase::removeDatabase(m_name);
    }
    bool ok() const { return m_ok; }
    QSqlDatabase db() const { return QSqlDatabase::database(m_name, false); }
    bool exec(const QString& sql)
    {
        QSqlQuery q(db());
        const bool ok = q.exec(sql);
        if (!ok) qWarning() << sql << q.lastError().text();
        return ok;
    }
    QVariant value(const QString& sql)
    {
        QSqlQuery q(db());
        return q.exec(sql) && q.next() ? q.value(0) : QVariant();
    }

private:
    static inline int s_counter = 0;
    QString m_name;
    bool m_ok = false;
};

// The value of a Result; a failed one is a test failure naming its Status (and a default value,
// so that the test goes on to its next check instead of throwing).
template <typename T>
T valueOf(hearth::Result<T> result, const char* expr, const char* file, int line)
{
    if (result.isOk()) return std::move(result).value();
    const QByteArray message = QByteArray(expr) + " failed: " + result.status().message().c_str();
    QTest::qFail(message.constData(), file, line);
    return T{};
}
#define VALUE(expr) valueOf((expr), #expr, __FILE__, __LINE__)

QByteArray fileBytes(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QStringList texts(const QList<Message>& messages)
{
    QStringList out;
    for (const Message& m : messages) out << m.text;
    return out;
}

NewMessage user(const QString& text) { return {Role::User, text, {}, false}; }
NewMessage streamingReply() { return {Role::Assistant, {}, {}, true}; }

} // namespace

class TestConversationStore : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    qint64 m_clock = 1'780'000'000'000; // a fixed start, one ms per call: ordering is exact

    StoreOptions options()
    {
        StoreOptions o;
        o.nowMs = [this] { return ++m_clock; };
        return o;
    }
    QString path(const QString& name) const { return m_dir.filePath(name); }

    // A finished assistant reply after the current path.
    qint64 reply(ConversationStore& s, qint64 conversation, const QString& text, const ReplyStats& stats = {})
    {
        auto id = s.appendMessage(conversation, streamingReply());
        if (!id.isOk() || !s.finishReply(*id, text, {}, stats).isOk()) return 0;
        return *id;
    }

    QList<qint64> hitIds(ConversationStore& s, const QString& query)
    {
        auto hits = s.search(query);
        if (!hits.isOk()) return {-1};
        QList<qint64> ids;
        for (const SearchHit& h : *hits) ids << h.conversationId;
        return ids;
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void textRules()
    {
        QCOMPARE(titleFromText(QStringLiteral("  How do I\n\nsort a list   in Python?  ")),
                 QStringLiteral("How do I sort a list in Python?"));
        const QString longText = QStringLiteral("Please explain how the attention mechanism in transformers works, "
                                                "step by step, with an example");
        const QString title = titleFromText(longText);
        QVERIFY(title.size() <= 60);
        QVERIFY(title.endsWith(QChar(0x2026)));
        QVERIFY2(longText.startsWith(title.chopped(1) + QLatin1Char(' ')), qPrintable(title)); // cut at a word
        // No spaces (Chinese): cut mid-text, never between the halves of a surrogate pair.
        const QString chinese = QString(80, QChar(0x4F60));
        QCOMPARE(titleFromText(chinese).size(), 60);
        QString emoji;
        for (int i = 0; i < 40; ++i) emoji += QString::fromUtf8("\xF0\x9F\x94\xA5"); // U+1F525, two UTF-16 units
        const QString t = titleFromText(emoji);
        QVERIFY(!t.chopped(1).back().isHighSurrogate());
        QCOMPARE(titleFromText(QStringLiteral(" \n\t ")), QString());

        QString bad = QStringLiteral("ab");
        bad.insert(1, QChar(0xD800)); // a lone high surrogate
        bad.append(QChar(0));
        QCOMPARE(sanitizeText(bad), QStringLiteral("a\uFFFDb\uFFFD"));
        QCOMPARE(sanitizeText(emoji), emoji);
    }

    void notOpen()
    {
        ConversationStore s;
        QCOMPARE(s.listConversations().status().code(), hearth::StatusCode::FailedPrecondition);
        QCOMPARE(s.updateStreamingReply(1, QStringLiteral("x")).code(), hearth::StatusCode::FailedPrecondition);
    }

    void missingFolderIsCreated()
    {
        ConversationStore s;
        const QString p = path(QStringLiteral("a/b/c/history.sqlite"));
        QVERIFY2(s.open(p, options()).isOk(), "open");
        QVERIFY(QFileInfo::exists(p));
        RawDb raw(p, QStringLiteral("QSQLITE_OPEN_READONLY"));
        QCOMPARE(raw.value(QStringLiteral("PRAGMA journal_mode")).toString(), QStringLiteral("wal"));
        QCOMPARE(raw.value(QStringLiteral("PRAGMA user_version")).toInt(), kSchemaVersion);
    }

    void crud()
    {
        ConversationStore s;
        QVERIFY(s.open(path(QStringLiteral("crud.sqlite")), options()).isOk());
        ConversationSettings settings;
        settings.modelPath = QStringLiteral("/models/qwen3-8b-q4_k_m.gguf");
        settings.quant = QStringLiteral("Q4_K_M");
        settings.systemPrompt = QStringLiteral("You are terse.");
        settings.sampling = QJsonObject{{QStringLiteral("temperature"), 0.7}, {QStringLiteral("top_k"), 40}};
        settings.thinking = true;
        auto a = s.createConversation(settings);
        auto b = s.createConversation({});
        QVERIFY(a.isOk() && b.isOk());
        QCOMPARE(VALUE(s.conversation(*a)).title, QString()); // untitled until the first message
        QVERIFY(s.appendMessage(*a, user(QStringLiteral("What is a   monad?\nExplain briefly."))).isOk());
        QCOMPARE(VALUE(s.conversation(*a)).title, QStringLiteral("What is a monad? Explain briefly."));

        const Conversation read = VALUE(s.conversation(*a));
        QCOMPARE(read.settings.modelPath, settings.modelPath);
        QCOMPARE(read.settings.quant, settings.quant);
        QCOMPARE(read.settings.systemPrompt, settings.systemPrompt);
        QCOMPARE(read.settings.sampling, settings.sampling);
        QVERIFY(read.settings.thinking);
        QVERIFY(read.created < read.updated); // the message moved `updated` on

        // Most recently updated first; a new message moves a conversation to the top.
        QCOMPARE(VALUE(s.listConversations()).first().id, *a);
        QVERIFY(s.appendMessage(*b, user(QStringLiteral("hello"))).isOk());
        QCOMPARE(VALUE(s.listConversations()).first().id, *b);

        QVERIFY(s.renameConversation(*a, QStringLiteral("  Monads  ")).isOk());
        QCOMPARE(VALUE(s.conversation(*a)).title, QStringLiteral("Monads"));
        QCOMPARE(s.renameConversation(*a, QStringLiteral(" \n")).code(), hearth::StatusCode::InvalidArgument);
        QCOMPARE(s.renameConversation(999, QStringLiteral("x")).code(), hearth::StatusCode::NotFound);
        // A later user message does not retitle.
        QVERIFY(s.appendMessage(*a, user(QStringLiteral("And a functor?"))).isOk());
        QCOMPARE(VALUE(s.conversation(*a)).title, QStringLiteral("Monads"));

        settings.quant = QStringLiteral("Q8_0");
        settings.thinking = false;
        QVERIFY(s.updateSettings(*a, settings).isOk());
        QCOMPARE(VALUE(s.conversation(*a)).settings.quant, QStringLiteral("Q8_0"));
        QVERIFY(!VALUE(s.conversation(*a)).settings.thinking);

        QVERIFY(s.deleteConversation(*a).isOk());
        QCOMPARE(s.deleteConversation(*a).code(), hearth::StatusCode::NotFound);
        QCOMPARE(s.currentPath(*a).status().code(), hearth::StatusCode::NotFound);
        const qint64 c = VALUE(s.createConversation({}));
        const qint64 d = VALUE(s.createConversation({}));
        QCOMPARE(VALUE(s.deleteConversations({*b, c, 12345})), 2);
        QCOMPARE(VALUE(s.listConversations()).size(), 1);
        QCOMPARE(VALUE(s.listConversations()).first().id, d);
        // The cascade took the messages (and their index entries) too.
        RawDb raw(s.path(), QStringLiteral("QSQLITE_OPEN_READONLY"));
        QCOMPARE(raw.value(QStringLiteral("SELECT count(*) FROM messages")).toInt(), 0);
        QVERIFY(s.checkIntegrity().isOk());
    }

    void alternatives()
    {
        ConversationStore s;
        QVERIFY(s.open(path(QStringLiteral("alt.sqlite")), options()).isOk());
        const qint64 c = VALUE(s.createConversation({}));
        const qint64 u1 = VALUE(s.appendMessage(c, user(QStringLiteral("Tell me a joke"))));
        const qint64 a1 = reply(s, c, QStringLiteral("first joke"));
        QVERIFY(a1 > 0);

        // Regenerate: a second reply to the same prompt, shown as 2/2.
        auto a2 = s.addAlternative(a1, streamingReply());
        QVERIFY(a2.isOk());
        QVERIFY(s.finishReply(*a2, QStringLiteral("second joke"), {}, {}).isOk());
        QList<Message> path = VALUE(s.currentPath(c));
        QCOMPARE(texts(path), (QStringList{QStringLiteral("Tell me a joke"), QStringLiteral("second joke")}));
        QCOMPARE(path[1].alternativeIndex, 2);
        QCOMPARE(path[1].alternativeCount, 2);
        QCOMPARE(path[1].parentId, u1);
        QCOMPARE(path[0].alternativeCount, 1);

        // The conversation goes on from the second reply.
        const qint64 u2 = VALUE(s.appendMessage(c, user(QStringLiteral("another"))));
        QCOMPARE(VALUE(s.currentPath(c)).size(), 3);

        // "<": the first reply, whose branch has nothing after it.
        QCOMPARE(VALUE(s.switchAlternative(*a2, -1)), a1);
        path = VALUE(s.currentPath(c));
        QCOMPARE(texts(path), (QStringList{QStringLiteral("Tell me a joke"), QStringLiteral("first joke")}));
        QCOMPARE(path[1].alternativeIndex, 1);
        QCOMPARE(s.switchAlternative(a1, -1).status().code(), hearth::StatusCode::InvalidArgument);
        QCOMPARE(s.switchAlternative(a1, 2).status().code(), hearth::StatusCode::InvalidArgument);
        // ">": back to the second, and its branch comes back with it.
        QCOMPARE(VALUE(s.switchAlternative(a1, +1)), *a2);
        QCOMPARE(VALUE(s.currentPath(c)).last().id, u2);

        // Edit and resend the first prompt: a new branch from the start.
        auto u1b = s.addAlternative(u1, user(QStringLiteral("Tell me a pun")));
        QVERIFY(u1b.isOk());
        path = VALUE(s.currentPath(c));
        QCOMPARE(texts(path), QStringList{QStringLiteral("Tell me a pun")});
        QCOMPARE(path[0].alternativeIndex, 2);
        QCOMPARE(path[0].alternativeCount, 2);
        reply(s, c, QStringLiteral("a pun"));
        QCOMPARE(texts(VALUE(s.currentPath(c))),
                 (QStringList{QStringLiteral("Tell me a pun"), QStringLiteral("a pun")}));
        QCOMPARE(VALUE(s.switchAlternative(*u1b, -1)), u1);
        QCOMPARE(VALUE(s.currentPath(c)).last().id, u2);

        // makeCurrent on a message deep in a hidden branch shows that branch.
        QVERIFY(s.makeCurrent(a1).isOk());
        QCOMPARE(VALUE(s.currentPath(c)).last().id, a1);
        QCOMPARE(VALUE(s.allMessages(c)).size(), 6);

        QCOMPARE(s.addAlternative(a1, user(QStringLiteral("x"))).status().code(), hearth::StatusCode::InvalidArgument);
        QCOMPARE(s.appendMessage(c, {Role::User, QStringLiteral("x"), {}, true}).status().code(),
                 hearth::StatusCode::InvalidArgument);
        QCOMPARE(s.addAlternative(424242, streamingReply()).status().code(), hearth::StatusCode::NotFound);
        QVERIFY(s.checkIntegrity().isOk());
    }

    void streamingReplies()
    {
        ConversationStore s;
        const QString p = path(QStringLiteral("stream.sqlite"));
        QVERIFY(s.open(p, options()).isOk());
        const qint64 c = VALUE(s.createConversation({}));
        QVERIFY(s.appendMessage(c, user(QStringLiteral("Write a long story"))).isOk());
        const qint64 r = VALUE(s.appendMessage(c, streamingReply()));
        QString text;
        for (int i = 0; i < 400; ++i) {
            text += QStringLiteral("word%1 ").arg(i);
            QVERIFY(s.updateStreamingReply(r, text, QStringLiteral("thinking %1").arg(i)).isOk());
        }
        // Each update is committed: a second connection (as after a crash) sees the latest text.
        {
            RawDb raw(p, QStringLiteral("QSQLITE_OPEN_READONLY"));
            QVERIFY(raw.ok());
            QCOMPARE(raw.value(QStringLiteral("SELECT text FROM messages WHERE id = %1").arg(r)).toString(), text);
            QCOMPARE(raw.value(QStringLiteral("PRAGMA integrity_check")).toString(), QStringLiteral("ok"));
        }
        QVERIFY(s.checkIntegrity().isOk());
        Message m = VALUE(s.currentPath(c)).last();
        QVERIFY(m.streaming);
        QCOMPARE(m.thinking, QStringLiteral("thinking 399"));
        QVERIFY(hitIds(s, QStringLiteral("word399")).isEmpty()); // not searchable while it streams

        ReplyStats stats;
        stats.promptTokens = 12;
        stats.generatedTokens = 400;
        stats.prefillTokensPerSecond = 812.5;
        stats.decodeTokensPerSecond = 41.25;
        stats.model = QStringLiteral("qwen3-8b");
        stats.quant = QStringLiteral("Q4_K_M");
        stats.device = QStringLiteral("NVIDIA GeForce RTX 4090");
        stats.stopReason = QStringLiteral("length");
        QVERIFY(s.finishReply(r, text + QStringLiteral("The end."), QStringLiteral("done"), stats).isOk());
        m = VALUE(s.currentPath(c)).last();
        QVERIFY(!m.streaming);
        QCOMPARE(m.text, text + QStringLiteral("The end."));
        QCOMPARE(m.stats.promptTokens, 12);
        QCOMPARE(m.stats.generatedTokens, 400);
        QCOMPARE(m.stats.prefillTokensPerSecond, std::optional<double>(812.5));
        QCOMPARE(m.stats.decodeTokensPerSecond, std::optional<double>(41.25));
        QVERIFY(!m.stats.timeToFirstTokenMs); // not measured stays "n/a"
        QCOMPARE(m.stats.device, stats.device);
        QCOMPARE(m.stats.stopReason, QStringLiteral("length"));
        QCOMPARE(hitIds(s, QStringLiteral("word399")), QList<qint64>{c});
        QCOMPARE(s.updateStreamingReply(r, QStringLiteral("late")).code(), hearth::StatusCode::FailedPrecondition);
        QCOMPARE(s.finishReply(r, {}, {}, {}).code(), hearth::StatusCode::FailedPrecondition);

        // A reply cut off by the app stopping is kept, marked, and searchable after reopening.
        const qint64 cut = VALUE(s.appendMessage(c, streamingReply()));
        QVERIFY(s.updateStreamingReply(cut, QStringLiteral("partial answer zebra")).isOk());
        s.close();
        QVERIFY(s.open(p, options()).isOk());
        m = VALUE(s.currentPath(c)).last();
        QCOMPARE(m.id, cut);
        QVERIFY(!m.streaming);
        QCOMPARE(m.text, QStringLiteral("partial answer zebra"));
        QCOMPARE(m.stats.stopReason, QString::fromLatin1(kStopInterrupted));
        QCOMPARE(hitIds(s, QStringLiteral("zebra")), QList<qint64>{c});
        QVERIFY(s.checkIntegrity().isOk());
    }

    void search()
    {
        ConversationStore s;
        QVERIFY(s.open(path(QStringLiteral("search.sqlite")), options()).isOk());
        const qint64 py = VALUE(s.createConversation({}));
        QVERIFY(s.appendMessage(py, user(QStringLiteral("How do I sort a list in Python?"))).isOk());
        reply(s, py, QStringLiteral("Use sorted(items) or items.sort(); both take a key function."));
        const qint64 zh = VALUE(s.createConversation({}));
        QVERIFY(s.appendMessage(zh, user(QStringLiteral("请解释量子计算的基本原理"))).isOk());
        reply(s, zh, QStringLiteral("量子计算利用叠加和纠缠来处理信息。"));
        const qint64 titled = VALUE(s.createConversation({}, QStringLiteral("Holiday plans")));
        QVERIFY(s.appendMessage(titled, user(QStringLiteral("Where should we go in spring?"))).isOk());

        QCOMPARE(hitIds(s, QStringLiteral("python")), QList<qint64>{py});       // any case
        QCOMPARE(hitIds(s, QStringLiteral("sorted key")), QList<qint64>{py});   // every word, anywhere
        QCOMPARE(hitIds(s, QStringLiteral("sorted zebra")), QList<qint64>{});
        QCOMPARE(hitIds(s, QStringLiteral("量子计算")), QList<qint64>{zh});     // inside a run of Chinese
        QCOMPARE(hitIds(s, QStringLiteral("纠缠")), QList<qint64>{zh});         // two characters: LIKE
        QCOMPARE(hitIds(s, QStringLiteral("in")), (QList<qint64>{titled, py})); // short words too, newest first
        QCOMPARE(hitIds(s, QStringLiteral("holiday")), QList<qint64>{titled});  // the title
        QCOMPARE(hitIds(s, QStringLiteral("   ")), QList<qint64>{});
        // Query syntax is taken literally, never as FTS5 or LIKE operators.
        for (const char* q : {"\"", "sort\"", "NEAR(", "a*", "%", "_", "items.sort();", "-- ;"})
            QVERIFY2(s.search(QString::fromLatin1(q)).isOk(), q);
        QCOMPARE(hitIds(s, QStringLiteral("%")), QList<qint64>{});
        QCOMPARE(hitIds(s, QStringLiteral("items.sort();")), QList<qint64>{py});

        // One hit per conversation: the newest matching message, with a snippet around the match.
        const QList<SearchHit> hits = VALUE(s.search(QStringLiteral("量子")));
        QCOMPARE(hits.size(), 1);
        QVERIFY2(hits[0].snippet.contains(QStringLiteral("量子计算利用")), qPrintable(hits[0].snippet));
        QVERIFY(hits[0].messageId > 0);
        QCOMPARE(VALUE(s.search(QStringLiteral("holiday"))).first().messageId, 0);

        QVERIFY(s.deleteConversation(zh).isOk());
        QCOMPARE(hitIds(s, QStringLiteral("量子计算")), QList<qint64>{});
        QVERIFY(s.checkIntegrity().isOk());
    }

    void migrationFromVersion1WithData()
    {
        const QString p = path(QStringLiteral("v1.sqlite"));
        {
            // What the first Hearth wrote: schema v1, linear conversations.
            RawDb raw(p);
            QVERIFY(raw.ok());
            QSqlDatabase db = raw.db();
            QVERIFY(migrate(db, 1).isOk());
            QCOMPARE(raw.value(QStringLiteral("PRAGMA user_version")).toInt(), 1);
            QVERIFY(raw.exec(
                QStringLiteral("INSERT INTO conversations VALUES (1, 'Old chat', 1000, 5000, '/m/a.gguf')")));
            QVERIFY(raw.exec(QStringLiteral("INSERT INTO conversations VALUES (2, 'Other', 2000, 3000, '')")));
            QVERIFY(raw.exec(QStringLiteral("INSERT INTO messages VALUES (1, 1, 'user', 'first question', 1001)")));
            QVERIFY(raw.exec(QStringLiteral("INSERT INTO messages VALUES (2, 2, 'user', '你好，世界', 2001)")));
            QVERIFY(raw.exec(QStringLiteral("INSERT INTO messages VALUES (3, 1, 'assistant', 'first answer', 1002)")));
            QVERIFY(raw.exec(QStringLiteral("INSERT INTO messages VALUES (4, 1, 'user', 'second question', 1003)")));
            QVERIFY(raw.exec(QStringLiteral("INSERT INTO messages VALUES (5, 2, 'assistant', 'hello world', 2002)")));
        }
        ConversationStore s;
        QVERIFY(s.open(p, options()).isOk());
        {
            RawDb raw(p, QStringLiteral("QSQLITE_OPEN_READONLY"));
            QCOMPARE(raw.value(QStringLiteral("PRAGMA user_version")).toInt(), kSchemaVersion);
        }
        const QList<Conversation> list = VALUE(s.listConversations());
        QCOMPARE(list.size(), 2);
        QCOMPARE(list[0].title, QStringLiteral("Old chat"));
        QCOMPARE(list[0].updated.toMSecsSinceEpoch(), 5000);
        QCOMPARE(list[0].settings.modelPath, QStringLiteral("/m/a.gguf"));
        QCOMPARE(list[0].settings.sampling, QJsonObject());
        const QList<Message> path = VALUE(s.currentPath(1));
        QCOMPARE(texts(path), (QStringList{QStringLiteral("first question"), QStringLiteral("first answer"),
                                           QStringLiteral("second question")}));
        QCOMPARE(path[1].parentId, 1);
        QCOMPARE(path[2].parentId, 3);
        QCOMPARE(path[1].role, Role::Assistant);
        QCOMPARE(path[1].created.toMSecsSinceEpoch(), 1002);
        QCOMPARE(texts(VALUE(s.currentPath(2))),
                 (QStringList{QStringLiteral("你好，世界"), QStringLiteral("hello world")}));
        // The old messages are in the new search index and take part in the new features.
        QCOMPARE(hitIds(s, QStringLiteral("answer")), QList<qint64>{1});
        QCOMPARE(hitIds(s, QStringLiteral("世界")), QList<qint64>{2});
        auto alt = s.addAlternative(3, streamingReply());
        QVERIFY(alt.isOk());
        QVERIFY(s.finishReply(*alt, QStringLiteral("better answer"), {}, {}).isOk());
        QCOMPARE(VALUE(s.currentPath(1)).last().alternativeIndex, 2);
        QVERIFY(s.checkIntegrity().isOk());
    }

    void newerVersionIsRefusedUntouched()
    {
        const QString p = path(QStringLiteral("newer.sqlite"));
        {
            ConversationStore s;
            QVERIFY(s.open(p, options()).isOk());
            QVERIFY(s.appendMessage(VALUE(s.createConversation({})), user(QStringLiteral("from the future"))).isOk());
        }
        {
            RawDb raw(p);
            QVERIFY(raw.exec(QStringLiteral("PRAGMA user_version = %1").arg(kSchemaVersion + 1)));
        }
        const QByteArray before = fileBytes(p);
        const QStringList filesBefore = QDir(m_dir.path()).entryList({QStringLiteral("newer.sqlite*")}, QDir::Files);
        QVERIFY(!before.isEmpty());

        ConversationStore s;
        const hearth::Status status = s.open(p, options());
        QCOMPARE(status.code(), hearth::StatusCode::Unsupported);
        QCOMPARE(s.openProblem(), OpenProblem::NewerVersion);
        QVERIFY2(QString::fromStdString(status.message()).contains(QStringLiteral("newer version of Hearth")),
                 status.message().c_str());
        QVERIFY(!s.isOpen());
        QCOMPARE(fileBytes(p), before);
        QCOMPARE(QDir(m_dir.path()).entryList({QStringLiteral("newer.sqlite*")}, QDir::Files), filesBefore);

        // The way on: the file is kept aside, byte for byte, and a new history starts.
        auto aside = s.startFresh();
        QVERIFY2(aside.isOk(), aside.status().message().c_str());
        QVERIFY(aside->contains(QStringLiteral("newer.sqlite.newer-")));
        QCOMPARE(fileBytes(*aside), before);
        QVERIFY(s.isOpen());
        QCOMPARE(VALUE(s.listConversations()).size(), 0);
    }

    void corruptFileIsMovedAside()
    {
        const QString p = path(QStringLiteral("corrupt.sqlite"));
        QByteArray garbage(16384, Qt::Uninitialized);
        for (char& b : garbage) b = char(QRandomGenerator::global()->bounded(256));
        {
            QFile f(p);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(garbage);
        }
        ConversationStore s;
        const hearth::Status status = s.open(p, options());
        QCOMPARE(status.code(), hearth::StatusCode::DataLoss);
        QCOMPARE(s.openProblem(), OpenProblem::Corrupt);
        QVERIFY2(QString::fromStdString(status.message()).contains(p), status.message().c_str());
        QCOMPARE(fileBytes(p), garbage);

        auto aside = s.startFresh();
        QVERIFY2(aside.isOk(), aside.status().message().c_str());
        QVERIFY(aside->contains(QStringLiteral("corrupt.sqlite.corrupt-")));
        QCOMPARE(fileBytes(*aside), garbage);
        QVERIFY(s.createConversation({}).isOk());
        QVERIFY(s.checkIntegrity().isOk());
    }

    void damagedFileIsCorrupt()
    {
        // A real history file whose second half is gone: the header is fine, the pages are not.
        const QString p = path(QStringLiteral("damaged.sqlite"));
        {
            ConversationStore s;
            QVERIFY(s.open(p, options()).isOk());
            for (int i = 0; i < 40; ++i) {
                const qint64 c = VALUE(s.createConversation({}));
                QVERIFY(s.appendMessage(c, user(QString(2000, QLatin1Char('a' + i % 26)))).isOk());
            }
        }
        QFile f(p);
        QVERIFY(f.size() > 65536);
        QVERIFY(f.resize(f.size() / 2));
        ConversationStore s;
        QCOMPARE(s.open(p, options()).code(), hearth::StatusCode::DataLoss);
        QCOMPARE(s.openProblem(), OpenProblem::Corrupt);
        QVERIFY(s.startFresh().isOk());
    }

    void lockedFile()
    {
        const QString p = path(QStringLiteral("locked.sqlite"));
        {
            ConversationStore s;
            QVERIFY(s.open(p, options()).isOk());
        }
        StoreOptions o = options();
        o.busyTimeoutMs = 50;
        {
            RawDb other(p);
            QVERIFY(other.exec(QStringLiteral("PRAGMA locking_mode = EXCLUSIVE")));
            QVERIFY(other.exec(QStringLiteral("BEGIN EXCLUSIVE")));
            QVERIFY(other.exec(QStringLiteral("CREATE TABLE held (x)")));
            ConversationStore s;
            const hearth::Status status = s.open(p, o);
            QCOMPARE(status.code(), hearth::StatusCode::FailedPrecondition);
            QCOMPARE(s.openProblem(), OpenProblem::Locked);
            QVERIFY2(QString::fromStdString(status.message()).contains(QStringLiteral("another program")),
                     status.message().c_str());
            other.exec(QStringLiteral("ROLLBACK"));
        }
        ConversationStore s; // once the other program lets go, the file opens
        QVERIFY(s.open(p, o).isOk());
    }

    void exportImportRoundTrip()
    {
        ConversationStore s;
        QVERIFY(s.open(path(QStringLiteral("export.sqlite")), options()).isOk());
        ConversationSettings settings;
        settings.modelPath = QStringLiteral("/models/qwen3.gguf");
        settings.quant = QStringLiteral("Q8_0");
        settings.systemPrompt = QStringLiteral("Answer in English.\nBe brief.");
        settings.sampling = QJsonObject{{QStringLiteral("temperature"), 0.6}, {QStringLiteral("seed"), 7}};
        settings.thinking = true;
        const qint64 c = VALUE(s.createConversation(settings));
        QVERIFY(s.appendMessage(c, user(QStringLiteral("Show a loop in C and say 你好"))).isOk());
        const qint64 r1 = VALUE(s.appendMessage(c, {Role::Assistant, {}, {}, true}));
        ReplyStats stats;
        stats.generatedTokens = 20;
        stats.decodeTokensPerSecond = 12.5;
        stats.timeToFirstTokenMs = 230;
        stats.stopReason = QStringLiteral("eos");
        QVERIFY(s.finishReply(r1, QStringLiteral("```c\nfor (int i = 0; i < 3; ++i) {}\n```\n你好"),
                              QStringLiteral("The user wants C."), stats).isOk());
        auto r2 = s.addAlternative(r1, streamingReply());
        QVERIFY(r2.isOk());
        QVERIFY(s.finishReply(*r2, QStringLiteral("second try"), {}, {}).isOk());
        QVERIFY(s.switchAlternative(*r2, -1).isOk()); // the first reply is the one shown

        auto json = exportJson(s, c);
        QVERIFY(json.isOk());
        const QJsonObject root = QJsonDocument::fromJson(*json).object();
        QCOMPARE(root.value(QStringLiteral("format")).toString(), QStringLiteral("hearth.conversation"));
        QCOMPARE(root.value(QStringLiteral("messages")).toArray().size(), 3);

        auto imported = importJson(s, *json);
        QVERIFY2(imported.isOk(), imported.status().message().c_str());
        QVERIFY(*imported != c);
        QCOMPARE(VALUE(exportJson(s, *imported)), *json); // every field, branch and number survived
        const QList<Message> a = VALUE(s.currentPath(c)), b = VALUE(s.currentPath(*imported));
        QCOMPARE(texts(b), texts(a));
        QCOMPARE(b[1].alternativeIndex, 1);
        QCOMPARE(b[1].alternativeCount, 2);
        QCOMPARE(b[1].stats.timeToFirstTokenMs, std::optional<double>(230));
        QVERIFY(!b[1].stats.prefillTokensPerSecond);
        QCOMPARE(VALUE(s.conversation(*imported)).settings.sampling, settings.sampling);

        // Through a file, as the UI does it.
        const QString file = path(QStringLiteral("chat.json"));
        QVERIFY(writeExportFile(file, *json).isOk());
        QVERIFY(importJsonFile(s, file).isOk());

        const QString md = VALUE(exportMarkdown(s, c));
        QVERIFY2(md.startsWith(QStringLiteral("# Show a loop in C and say 你好\n")), qPrintable(md));
        for (const QString& part : {QStringLiteral("### User"), QStringLiteral("### Assistant (1 of 2)"),
                                    QStringLiteral("```c\nfor (int i = 0;"),
                                    QStringLiteral("<details><summary>Thinking</summary>\n\nThe user wants C."),
                                    QStringLiteral("decode 12.5 tok/s"), QStringLiteral("first token 230 ms"),
                                    QStringLiteral("> **System prompt:** Answer in English.\n> Be brief."),
                                    QStringLiteral("`/models/qwen3.gguf` (Q8_0)")})
            QVERIFY2(md.contains(part), qPrintable(part));
        QVERIFY(!md.contains(QStringLiteral("second try"))); // Markdown shows the current path only
    }

    void importRejectsBadFiles()
    {
        ConversationStore s;
        QVERIFY(s.open(path(QStringLiteral("import.sqlite")), options()).isOk());
        const auto good = [](QJsonArray messages, int version = 1) {
            QJsonObject o{{QStringLiteral("format"), QStringLiteral("hearth.conversation")},
                          {QStringLiteral("version"), version},
                          {QStringLiteral("title"), QStringLiteral("t")},
                          {QStringLiteral("messages"), messages}};
            return QJsonDocument(o).toJson();
        };
        const QJsonObject first{{QStringLiteral("id"), 1}, {QStringLiteral("role"), QStringLiteral("user")},
                                {QStringLiteral("text"), QStringLiteral("hi")}};
        QVERIFY(importJson(s, good({first})).isOk()); // optional fields may be left out
        const int before = VALUE(s.listConversations()).size();

        struct Case { QByteArray json; hearth::StatusCode code; const char* says; };
        const QList<Case> cases{
            {"{not json", hearth::StatusCode::InvalidArgument, "not valid JSON"},
            {"{\"format\": \"hearth.conversation\", \"title\": \"\xff\xfe\"}", hearth::StatusCode::InvalidArgument,
             "not valid JSON"},
            {"[]", hearth::StatusCode::InvalidArgument, "not a Hearth conversation"},
            {good({first}, 2), hearth::StatusCode::Unsupported, "newer Hearth"},
            {good({first, QJsonObject{{QStringLiteral("id"), 2}, {QStringLiteral("role"), QStringLiteral("robot")}}}),
             hearth::StatusCode::InvalidArgument, "message 2: unknown role"},
            {good({first, QJsonObject{{QStringLiteral("id"), 2}, {QStringLiteral("parent"), 3},
                                      {QStringLiteral("role"), QStringLiteral("user")}}}),
             hearth::StatusCode::InvalidArgument, "does not come before it"},
            {good({first, first}), hearth::StatusCode::InvalidArgument, "not a new positive id"},
            {good({QJsonObject{{QStringLiteral("id"), 1}, {QStringLiteral("role"), QStringLiteral("user")},
                               {QStringLiteral("text"), 5}}}),
             hearth::StatusCode::InvalidArgument, "\"text\" has the wrong type"},
        };
        for (const Case& k : cases) {
            const auto r = importJson(s, k.json);
            QCOMPARE(r.status().code(), k.code);
            QVERIFY2(r.status().message().find(k.says) != std::string::npos, r.status().message().c_str());
        }
        QCOMPARE(VALUE(s.listConversations()).size(), before); // nothing half-imported
        QCOMPARE(importJsonFile(s, path(QStringLiteral("missing.json"))).status().code(), hearth::StatusCode::NotFound);
    }

    void hundredKilobyteMessage()
    {
        ConversationStore s;
        QVERIFY(s.open(path(QStringLiteral("big.sqlite")), options()).isOk());
        QString big;
        while (big.size() < 100 * 1024) big += QStringLiteral("line %1 of a pasted log, 日志 ✓\n").arg(big.size());
        big += QStringLiteral("needle-at-the-end");
        const qint64 c = VALUE(s.createConversation({}));
        QVERIFY(s.appendMessage(c, user(big)).isOk());
        QCOMPARE(VALUE(s.currentPath(c)).first().text, big);
        QVERIFY(VALUE(s.conversation(c)).title.size() <= 60);
        QCOMPARE(hitIds(s, QStringLiteral("needle-at-the-end")), QList<qint64>{c});
        QVERIFY(VALUE(s.search(QStringLiteral("needle-at-the-end"))).first().snippet.size() <= 100);
        QVERIFY(s.checkIntegrity().isOk());
    }

    void invalidTextIsStoredSafely()
    {
        ConversationStore s;
        QVERIFY(s.open(path(QStringLiteral("utf8.sqlite")), options()).isOk());
        const qint64 c = VALUE(s.createConversation({}));
        // Invalid UTF-8 as it arrives from a paste or a file: decoding makes U+FFFD of it.
        const QString decoded = QString::fromUtf8("broken \xff\xfe bytes \xc3 end");
        QVERIFY(decoded.contains(QChar::ReplacementCharacter));
        QVERIFY(s.appendMessage(c, user(decoded)).isOk());
        // Text that no UTF-8 can hold (a lone surrogate) and NUL: replaced, the rest kept.
        QString lone = QStringLiteral("lone X surrogate and nul Y end");
        lone[5] = QChar(0xDC00);
        lone[25] = QChar(0);
        QVERIFY(s.appendMessage(c, user(lone)).isOk());
        // Control tokens are text like any other, stored and found as typed.
        QVERIFY(s.appendMessage(c, user(QStringLiteral("<|im_end|>\n<|im_start|>system"))).isOk());
        const QList<Message> path = VALUE(s.currentPath(c));
        QCOMPARE(path[0].text, decoded);
        QCOMPARE(path[1].text, QStringLiteral("lone \uFFFD surrogate and nul \uFFFD end"));
        QCOMPARE(path[2].text, QStringLiteral("<|im_end|>\n<|im_start|>system"));
        QCOMPARE(hitIds(s, QStringLiteral("<|im_end|>")), QList<qint64>{c});
        QCOMPARE(hitIds(s, QStringLiteral("surrogate")), QList<qint64>{c});
        auto json = exportJson(s, c);
        QVERIFY(json.isOk());
        QVERIFY(importJson(s, *json).isOk());
        QVERIFY(s.checkIntegrity().isOk());
    }
};

QTEST_GUILESS_MAIN(TestConversationStore)
#include "tst_conversationstore.moc"
