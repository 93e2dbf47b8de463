// EngineHost and EngineWorker, replies (stories260K on the CPU): the pieces are coalesced and add
// up to the reply; the GUI thread's event loop keeps turning while the worker generates; Stop
// takes effect before the next token and reaches replies still queued; regenerate rewinds the
// session while another history rebuilds it; an error arrives with the reply so far; thinking
// streams apart from the answer (Qwen3's template).
#include <QTest>
#include <QTimer>

#include "apptestdata.h"
#include "enginetestkit.h"
#include "runtime/session_testing.h" // the test-only decode delay
#include "scripted_model.h"

using namespace enginetest;

class TestEngineReply : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void piecesAreCoalescedAndAddUp();
    void eventLoopTurnsWhileGenerating();
    void stopEndsBeforeTheNextToken();
    void stopReachesQueuedReplies();
    void regenerateRewindsAndAnotherHistoryRestores();
    void errorKeepsTheReplySoFar();
    void thinkingStreamsApart();

private:
    // Loads stories260K into m_host (skips when the data is missing).
    void loadStories();

    std::unique_ptr<EngineHost> m_host;
    QElapsedTimer m_clock;
};

void TestEngineReply::init()
{
    m_host = std::make_unique<EngineHost>();
    m_clock.start();
}

void TestEngineReply::cleanup()
{
    m_host.reset();
    hearth::SessionTesting::setDecodeDelayMs(0);
}

void TestEngineReply::loadStories()
{
    APPTEST_DATA(path, "models/stories260K/stories260K-f32.gguf");
    const LoadLog log = loadAndWait(*m_host, cpuLoad(path), 30000);
    QVERIFY2(log.ok, qPrintable(log.error.message));
}

void TestEngineReply::piecesAreCoalescedAndAddUp()
{
    loadStories();
    if (QTest::currentTestFailed() || !m_host->isLoaded())
        return;
    ReplyLog log;
    followReply(*m_host, m_host->startTurn(greedyTurn(QStringLiteral("Once upon a time"), 300)), log, m_clock);
    QTRY_VERIFY_WITH_TIMEOUT(log.done, 60000);
    QVERIFY2(log.ok, qPrintable(log.failure.error.message));
    const ReplyResult& r = log.result;
    QVERIFY2(r.stats.tokens >= 100, qPrintable(QString::number(r.stats.tokens)));
    QCOMPARE(log.content, r.content); // nothing lost, nothing doubled, the last piece included
    QVERIFY(log.reasoning.isEmpty());
    // Thousands of tokens per second on this model: far fewer signals than tokens.
    QVERIFY2(log.pieces < r.stats.tokens / 2, qPrintable(QStringLiteral("%1 pieces for %2 tokens").arg(log.pieces).arg(r.stats.tokens)));
    for (int i = 1; i < log.stats.size(); ++i)
        QVERIFY(log.stats[i].tokens >= log.stats[i - 1].tokens);
    QCOMPARE(r.stopReason, QStringLiteral("length"));
    QCOMPARE(r.stats.tokens, 300);
    QVERIFY(r.stats.decodeTokPerS > 0 && r.stats.prefillTokPerS > 0 && r.stats.ttftMs >= 0);
    // The last token generated is not fed back into the context.
    QVERIFY(r.stats.contextUsed >= r.stats.promptTokens + r.stats.tokens - 1);
    QVERIFY(r.stats.contextUsed <= r.stats.promptTokens + r.stats.tokens);
    QVERIFY(qAbs(log.stats.last().contextUsed - r.stats.contextUsed) <= 1); // the live figure agrees
    QVERIFY(r.stats.contextSize >= r.stats.contextUsed);
    QCOMPARE(r.replyIds.size(), r.stats.tokens);
}

void TestEngineReply::eventLoopTurnsWhileGenerating()
{
    loadStories();
    if (QTest::currentTestFailed() || !m_host->isLoaded())
        return;
    hearth::SessionTesting::setDecodeDelayMs(25);
    QList<qint64> ticks;
    QTimer timer;
    timer.setInterval(10);
    connect(&timer, &QTimer::timeout, this, [&] { ticks << m_clock.elapsed(); });
    timer.start();
    ReplyLog log;
    const qint64 asked = m_clock.elapsed();
    followReply(*m_host, m_host->startTurn(greedyTurn(QStringLiteral("Once upon a time"), 30)), log, m_clock);
    QVERIFY(m_clock.elapsed() - asked < 50); // the request itself does not wait
    QTRY_VERIFY_WITH_TIMEOUT(log.done, 60000);
    QVERIFY(log.ok);
    const double seconds = double(log.doneMs - asked) / 1000;
    QVERIFY2(seconds >= 0.5, qPrintable(QString::number(seconds))); // 30 tokens x 25 ms
    int during = 0;
    for (qint64 t : ticks)
        during += t >= asked && t <= log.doneMs;
    QVERIFY2(during >= 20 * seconds, qPrintable(QStringLiteral("%1 ticks in %2 s").arg(during).arg(seconds)));
    // Streamed as it went, not all at the end.
    QVERIFY(log.pieces >= 10);
    QVERIFY(log.firstPieceMs < log.doneMs - 250);
}

void TestEngineReply::stopEndsBeforeTheNextToken()
{
    loadStories();
    if (QTest::currentTestFailed() || !m_host->isLoaded())
        return;
    hearth::SessionTesting::setDecodeDelayMs(40);
    ReplyLog log;
    int seenAtStop = -1;
    qint64 stoppedAt = -1;
    connect(m_host.get(), &EngineHost::replyPieces, this, [&](quint64, const QString&, const QString&, const ReplyStats& s) {
        if (seenAtStop < 0 && s.tokens >= 3) {
            seenAtStop = s.tokens;
            stoppedAt = m_clock.elapsed();
            m_host->stop();
        }
    });
    followReply(*m_host, m_host->startTurn(greedyTurn(QStringLiteral("Once upon a time"), 200)), log, m_clock);
    QTRY_VERIFY_WITH_TIMEOUT(log.done, 60000);
    QVERIFY(log.ok);
    QCOMPARE(log.result.stopReason, QStringLiteral("cancel"));
    QVERIFY(seenAtStop >= 3);
    // The token being decoded when Stop came may finish (one more if this thread lagged a token
    // behind the worker); none after it.
    QVERIFY2(log.result.stats.tokens <= seenAtStop + 2,
             qPrintable(QStringLiteral("%1 tokens, %2 seen at stop").arg(log.result.stats.tokens).arg(seenAtStop)));
    QVERIFY2(log.doneMs - stoppedAt < 1000, qPrintable(QString::number(log.doneMs - stoppedAt)));
    QCOMPARE(log.content, log.result.content); // the text so far is kept
    QVERIFY(!m_host->isGenerating());
}

void TestEngineReply::stopReachesQueuedReplies()
{
    loadStories();
    if (QTest::currentTestFailed() || !m_host->isLoaded())
        return;
    hearth::SessionTesting::setDecodeDelayMs(40);
    ReplyLog first, queued;
    followReply(*m_host, m_host->startTurn(greedyTurn(QStringLiteral("Once upon a time"), 100)), first, m_clock);
    followReply(*m_host, m_host->startTurn(greedyTurn(QStringLiteral("Once upon a time"), 100)), queued, m_clock);
    m_host->stop();
    QTRY_VERIFY_WITH_TIMEOUT(first.done && queued.done, 60000);
    QCOMPARE(first.result.stopReason, QStringLiteral("cancel"));
    QCOMPARE(queued.result.stopReason, QStringLiteral("cancel"));
    QVERIFY(first.result.stats.tokens <= 1);
    QVERIFY(queued.result.stats.tokens <= 1);
}

void TestEngineReply::regenerateRewindsAndAnotherHistoryRestores()
{
    loadStories();
    if (QTest::currentTestFailed() || !m_host->isLoaded())
        return;
    const QString story = QStringLiteral("Once upon a time");
    auto run = [&](const TurnRequest& request) {
        ReplyLog log;
        followReply(*m_host, m_host->startTurn(request), log, m_clock);
        if (!QTest::qWaitFor([&] { return log.done; }, 60000) || !log.ok)
            qWarning("reply failed: %s", qPrintable(log.failure.error.message));
        return log.result;
    };
    const ReplyResult first = run(greedyTurn(story, 20));
    QVERIFY(!first.content.isEmpty());
    QVERIFY(!first.restored); // the fresh session already held this (empty) conversation

    // Regenerate: the same request again; the session rewinds to the user's message.
    const ReplyResult again = run(greedyTurn(story, 20));
    QVERIFY(!again.restored);
    QCOMPARE(again.stats.promptTokens, first.stats.promptTokens);
    // All of the prompt's state is kept but its last token (run again for the next logits).
    QVERIFY2(again.reusedTokens >= again.stats.promptTokens - 1, qPrintable(QString::number(again.reusedTokens)));
    QCOMPARE(again.content, first.content); // greedy: the same reply

    // Edit: another text for that message.
    const ReplyResult edited = run(greedyTurn(QStringLiteral("The little dog"), 20));
    QVERIFY(!edited.restored);
    QVERIFY(edited.content != first.content);

    // The next turn of that conversation continues the session.
    const QList<TurnMessage> kept{{QStringLiteral("user"), QStringLiteral("The little dog"), {}, {}},
                                  {QStringLiteral("assistant"), edited.content, {}, {}}};
    const ReplyResult next = run(greedyTurn(QStringLiteral("Then"), 10, kept));
    QVERIFY(!next.restored);
    QVERIFY(next.reusedTokens >= edited.stats.promptTokens);

    // Another conversation rebuilds the session from its history.
    const QList<TurnMessage> other{{QStringLiteral("user"), QStringLiteral("A cat"), {}, {}},
                                   {QStringLiteral("assistant"), QStringLiteral("sat on the mat."), {}, {}}};
    const ReplyResult switched = run(greedyTurn(QStringLiteral("Then"), 10, other));
    QVERIFY(switched.restored);
    QCOMPARE(switched.reusedTokens, 0);
}

void TestEngineReply::errorKeepsTheReplySoFar()
{
    loadStories();
    if (QTest::currentTestFailed() || !m_host->isLoaded())
        return;
    // Longer than the context, and old turns may not be dropped: the request is refused.
    TurnRequest request = greedyTurn(QStringLiteral("Once upon a time there was a dog. ").repeated(200), 20);
    request.dropOldest = false;
    ReplyLog log;
    followReply(*m_host, m_host->startTurn(request), log, m_clock);
    QTRY_VERIFY_WITH_TIMEOUT(log.done, 60000);
    QVERIFY(!log.ok);
    QCOMPARE(log.failure.error.code, hearth::StatusCode::FailedPrecondition);
    QVERIFY2(log.failure.error.message.contains(QStringLiteral("context")), qPrintable(log.failure.error.message));
    QCOMPARE(log.failure.content, log.content);

    // The engine stays usable.
    ReplyLog after;
    followReply(*m_host, m_host->startTurn(greedyTurn(QStringLiteral("Once upon a time"), 5)), after, m_clock);
    QTRY_VERIFY_WITH_TIMEOUT(after.done, 60000);
    QVERIFY(after.ok);
}

void TestEngineReply::thinkingStreamsApart()
{
    APPTEST_DATA(tokenizer, "models/qwen3-tokenizer/tokenizer.json");
    const hearth::test::ThinkingReply scripted;
    const auto path = hearth::test::writeThinkingQwen3(apptest::scratchDir(QStringLiteral("enginereply")).toStdString(),
                                                       tokenizer.toStdString(), scripted);
    QVERIFY(!path.empty());
    const LoadLog load = loadAndWait(*m_host, cpuLoad(QString::fromStdString(path.string())));
    QVERIFY2(load.ok, qPrintable(load.error.message));
    QVERIFY(load.model.hasTemplate);

    ReplyLog thinking;
    followReply(*m_host, m_host->startTurn(greedyTurn(QStringLiteral("What is 2+2?"), 32)), thinking, m_clock);
    QTRY_VERIFY_WITH_TIMEOUT(thinking.done, 60000);
    QVERIFY2(thinking.ok, qPrintable(thinking.failure.error.message));
    QCOMPARE(thinking.reasoning, QString::fromStdString(scripted.reasoning));
    QCOMPARE(thinking.content, QString::fromStdString(scripted.answer));
    QCOMPARE(thinking.result.reasoning, thinking.reasoning);
    QCOMPARE(thinking.result.content, thinking.content);
    QCOMPARE(thinking.result.stopReason, QStringLiteral("eos"));

    TurnRequest off = greedyTurn(QStringLiteral("What is 2+2?"), 32);
    off.thinking = false;
    ReplyLog plain;
    followReply(*m_host, m_host->startTurn(off), plain, m_clock);
    QTRY_VERIFY_WITH_TIMEOUT(plain.done, 60000);
    QVERIFY(plain.ok);
    QVERIFY(plain.reasoning.isEmpty());
    QCOMPARE(plain.content, QString::fromStdString(scripted.answer));
    QVERIFY(plain.result.restored); // thinking off is another prompt: the session was rebuilt
}

APPTEST_MAIN(TestEngineReply)
#include "tst_enginereply.moc"
