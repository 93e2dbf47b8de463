// The mechanics under the engine thread's delivery: ReplyCoalescer batches pieces by time and
// never loses or reorders text; EngineFlags never loses a stop that races with a reply's start.
#include <QTest>
#include <QThread>

#include "engineflags.h"
#include "replycoalescer.h"

class TestReplyCoalescer : public QObject
{
    Q_OBJECT

private slots:
    void fastPiecesAreBatched();
    void slowPiecesGoOutAtOnce();
    void flushSendsTheRestOnce();
    void stopBeforeStartIsKept();
    void stopCoversEarlierRepliesOnly();
    void memoryRequestsCountOnce();
};

namespace {

struct Sent {
    QStringList content, reasoning;
    QList<int> tokens;
};

ReplyCoalescer::Sink into(Sent& sent)
{
    return [&sent](const QString& c, const QString& r, const ReplyStats& s) {
        sent.content << c;
        sent.reasoning << r;
        sent.tokens << s.tokens;
    };
}

ReplyStats at(int tokens)
{
    ReplyStats s;
    s.tokens = tokens;
    return s;
}

} // namespace

void TestReplyCoalescer::fastPiecesAreBatched()
{
    Sent sent;
    ReplyCoalescer out(into(sent), 200);
    QThread::msleep(210); // the first piece after a quiet interval goes at once
    out.addContent("A", at(1));
    QCOMPARE(sent.content, QStringList{QStringLiteral("A")});
    for (int i = 2; i <= 50; ++i)
        out.addContent("b", at(i)); // well within 200 ms
    QCOMPARE(sent.content.size(), 1);
    out.addReasoning("r\xC3\xA9", at(51));
    out.flush();
    QCOMPARE(sent.content.size(), 2);
    QCOMPARE(sent.content.last(), QString(49, QLatin1Char('b')));
    QCOMPARE(sent.reasoning.last(), QStringLiteral("r\u00e9"));
    QCOMPARE(sent.tokens.last(), 51); // the latest statistics go with the batch
    QCOMPARE(out.content(), std::string("A") + std::string(49, 'b'));
}

void TestReplyCoalescer::slowPiecesGoOutAtOnce()
{
    Sent sent;
    ReplyCoalescer out(into(sent), 10);
    for (int i = 1; i <= 3; ++i) {
        QThread::msleep(15);
        out.addContent(std::to_string(i), at(i));
        QCOMPARE(sent.content.size(), i);
    }
    QCOMPARE(sent.content, (QStringList{QStringLiteral("1"), QStringLiteral("2"), QStringLiteral("3")}));
}

void TestReplyCoalescer::flushSendsTheRestOnce()
{
    Sent sent;
    ReplyCoalescer out(into(sent), 1000);
    out.flush();
    QVERIFY(sent.content.isEmpty()); // nothing pending: nothing sent
    out.addContent("x", at(1));
    out.flush();
    out.flush();
    QCOMPARE(sent.content, QStringList{QStringLiteral("x")});
}

void TestReplyCoalescer::stopBeforeStartIsKept()
{
    EngineFlags flags;
    flags.stopTurnsUpTo(7); // the GUI stops reply 7 before the worker takes it up
    QVERIFY(flags.beginTurn(7)->load());
    flags.cancelLoadsUpTo(3);
    QVERIFY(flags.beginLoad(3)->load());
}

void TestReplyCoalescer::stopCoversEarlierRepliesOnly()
{
    EngineFlags flags;
    flags.stopTurnsUpTo(4);
    QVERIFY(!flags.beginTurn(5)->load()); // asked for after the stop
    const std::atomic<bool>* flag = flags.beginTurn(6);
    QVERIFY(!flag->load());
    flags.stopTurnsUpTo(6);
    QVERIFY(flag->load()); // the running reply sees it at once
    QVERIFY(!flags.beginLoad(1)->load()); // loads have their own flag
}

void TestReplyCoalescer::memoryRequestsCountOnce()
{
    EngineFlags flags;
    QVERIFY(flags.requestMemoryReport());
    QVERIFY(!flags.requestMemoryReport()); // already pending: no second queued call
    QVERIFY(flags.takeMemoryRequest());
    QVERIFY(!flags.takeMemoryRequest());
    QVERIFY(flags.requestMemoryReport());
}

QTEST_GUILESS_MAIN(TestReplyCoalescer)
#include "tst_replycoalescer.moc"
