// A reply survives the app being killed: the real `hearth` (offscreen, stories260K on the CPU,
// every decode step slowed by the test-only HEARTH_TEST_DECODE_DELAY_MS) sends a prompt with
// --send, is killed with SIGKILL mid-reply, and the history file then passes PRAGMA
// integrity_check and holds the reply as far as it was streamed a second before the kill, marked
// interrupted.
#include <QDateTime>
#include <QRegularExpression>
#include <QTest>

#include "apprunner.h"
#include "apptestdata.h"
#include "store/conversation_store.h"

namespace {

constexpr int kStartMs = 30000;

// The reply's length the app had logged (automation: reply so far N characters) by `before`;
// -1 when none. `last` receives the last one logged at all.
qsizetype streamedBy(const QString& log, qint64 pid, const QDateTime& before, qsizetype& last)
{
    static const QRegularExpression line(
        QStringLiteral("^(\\S+ \\S+) \\[(\\d+)\\] info automation: reply so far (\\d+) characters$"),
        QRegularExpression::MultilineOption);
    qsizetype by = -1;
    last = -1;
    for (auto it = line.globalMatch(log); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        if (m.captured(2).toLongLong() != pid)
            continue;
        const qsizetype length = m.captured(3).toLongLong();
        last = length;
        if (QDateTime::fromString(m.captured(1), QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz")) <= before)
            by = length;
    }
    return by;
}

} // namespace

class TestSigkill : public QObject
{
    Q_OBJECT

private slots:
    void killedMidReplyKeepsThePartialReply()
    {
        APPTEST_DATA(model, QStringLiteral("models/stories260K/stories260K-f32.gguf"));
        AppRunner runner;
        QVERIFY(runner.isValid());
        const QString db = runner.home() + QStringLiteral("/history.sqlite");
        const QString prompt = QStringLiteral("Once upon a time");
        QProcessEnvironment slow;
        slow.insert(QStringLiteral("HEARTH_TEST_DECODE_DELAY_MS"), QStringLiteral("100"));
        auto app = runner.start({QStringLiteral("--model"), model, QStringLiteral("--database"), db,
                                 QStringLiteral("--send"), prompt},
                                slow);
        const qint64 pid = app->processId();
        QVERIFY2(runner.waitForLog(logLineOf(pid, QStringLiteral("info"), QStringLiteral("automation: sent")), kStartMs),
                 qPrintable(QStringLiteral("state %1, exit %2, error %3; log:\n%4")
                                .arg(app->state())
                                .arg(app->exitCode())
                                .arg(app->errorString(), runner.log())));
        QVERIFY(runner.waitForLog(logLineOf(pid, QStringLiteral("info"), QStringLiteral("automation: reply so far")), kStartMs));
        QTest::qWait(2500); // ~25 tokens stream; the app saves the reply at least every second

        const QDateTime killed = QDateTime::currentDateTime();
        app->kill(); // SIGKILL: no handler, no destructor, no last save
        QVERIFY(app->waitForFinished(10000));
        QCOMPARE(app->exitStatus(), QProcess::CrashExit);
        qsizetype lastStreamed = -1;
        const qsizetype savedBySecond = streamedBy(runner.log(), pid, killed.addMSecs(-1000), lastStreamed);
        QVERIFY2(savedBySecond > 0, qPrintable(runner.log()));

        store::ConversationStore store;
        const hearth::Status opened = store.open(db);
        QVERIFY2(opened.isOk(), opened.message().c_str());
        const hearth::Status integrity = store.checkIntegrity();
        QVERIFY2(integrity.isOk(), integrity.message().c_str());
        auto conversations = store.listConversations();
        QVERIFY(conversations.isOk());
        QCOMPARE(conversations->size(), 1);
        auto messages = store.currentPath(conversations->first().id);
        QVERIFY(messages.isOk());
        QCOMPARE(messages->size(), 2);
        QCOMPARE(messages->at(0).role, store::Role::User);
        QCOMPARE(messages->at(0).text, prompt);
        const store::Message& reply = messages->at(1);
        QCOMPARE(reply.role, store::Role::Assistant);
        // Still streaming when killed: the store marks it interrupted at the next open.
        QCOMPARE(reply.stats.stopReason, QString::fromLatin1(store::kStopInterrupted));
        QVERIFY(!reply.streaming);
        QVERIFY2(reply.text.size() >= savedBySecond,
                 qPrintable(QStringLiteral("saved %1 characters, %2 had streamed a second before the kill")
                                .arg(reply.text.size())
                                .arg(savedBySecond)));
        QVERIFY(reply.text.size() <= lastStreamed);
    }
};

APPTEST_MAIN(TestSigkill)
#include "tst_sigkill.moc"
