// One Hearth per user, with real processes: a second start hands its model to the first and exits
// 0, a lock left by a killed Hearth is taken over, a model that is not there gives a notice
// instead of a load, and a restart comes back as the running Hearth on the same model and
// conversation. What each process did is read from the log file they share.
#include <QElapsedTimer>
#include <QFile>
#include <QRegularExpression>
#include <QSettings>
#include <QTest>


#include "appinstance.h"
#include "apprunner.h"
#include "apptestdata.h"

namespace {

constexpr int kStartMs = 20000; // a cold start of the app under offscreen on a loaded CI machine
const QStringList kStayUp = {QStringLiteral("--quit-after-ms"), QStringLiteral("120000")};

QString receivedLine(qint64 pid, const QString& model)
{
    return logLineOf(pid, QStringLiteral("info"),
                     QStringLiteral("instance: another start asked to open model \"%1\"").arg(model));
}

// Runs a start that must hand over and exit 0 by itself; empty, or what went wrong. `ms`: how
// long it took.
QString runSecond(const AppRunner& runner, const QStringList& args, qint64* ms = nullptr)
{
    QElapsedTimer clock;
    clock.start();
    auto second = runner.start(args);
    if (!second->waitForFinished(kStartMs)) {
        second->kill();
        return QStringLiteral("the second start did not exit");
    }
    if (ms)
        *ms = clock.elapsed();
    if (second->exitStatus() != QProcess::NormalExit || second->exitCode() != 0)
        return QStringLiteral("the second start exited with %1").arg(second->exitCode());
    return {};
}

} // namespace

class TestSingleInstance : public QObject
{
    Q_OBJECT

private slots:
    void secondStartHandsItsModelOver()
    {
        AppRunner runner;
        QVERIFY(runner.isValid());
        auto first = runner.start(kStayUp);
        QVERIFY(runner.waitForListener(kStartMs));

        // A relative path is the second start's own: the first gets it absolute.
        qint64 ms = 0;
        QString failure = runSecond(runner, {QStringLiteral("--model"), QStringLiteral("models/a.gguf")}, &ms);
        QVERIFY2(failure.isEmpty(), qPrintable(failure));
        QVERIFY2(ms < kStartMs / 2, qPrintable(QStringLiteral("the second start took %1 ms").arg(ms)));
        QVERIFY2(runner.waitForLog(receivedLine(first->processId(), runner.home() + QStringLiteral("/models/a.gguf")), 5000),
                 qPrintable(runner.log()));
        QCOMPARE(first->state(), QProcess::Running);

        // A start without arguments only raises the running window.
        failure = runSecond(runner, {});
        QVERIFY2(failure.isEmpty(), qPrintable(failure));
        QVERIFY(runner.waitForLog(receivedLine(first->processId(), QString()), 5000));
        QCOMPARE(first->state(), QProcess::Running);
        first->kill();
        first->waitForFinished();
    }

    void lockOfAKilledHearthIsTakenOver()
    {
        AppRunner runner;
        QVERIFY(runner.isValid());
        auto crashed = runner.start(kStayUp);
        QVERIFY(runner.waitForListener(kStartMs));
        crashed->kill(); // SIGKILL: the lock file and the socket file stay behind
        crashed->waitForFinished();
        QVERIFY(QFile::exists(runner.home() + QStringLiteral("/hearth.lock")));
        QVERIFY(QFile::exists(runner.socketPath()));

        auto next = runner.start(kStayUp);
        QVERIFY(runner.waitForLog(logLineOf(next->processId(), QStringLiteral("info"), QStringLiteral("start:")), kStartMs));
        QVERIFY(runner.waitForListener(kStartMs));
        QCOMPARE(next->state(), QProcess::Running); // it did not hand itself to the dead one

        const QString failure = runSecond(runner, {QStringLiteral("--model"), runner.home() + QStringLiteral("/b.gguf")});
        QVERIFY2(failure.isEmpty(), qPrintable(failure));
        QVERIFY2(runner.waitForLog(receivedLine(next->processId(), runner.home() + QStringLiteral("/b.gguf")), 5000),
                 qPrintable(runner.log()));
        next->kill();
        next->waitForFinished();
    }

    void missingModelGivesANotice()
    {
        AppRunner runner;
        QVERIFY(runner.isValid());
        const QString gone = runner.home() + QStringLiteral("/gone.gguf");
        const QStringList quit = {QStringLiteral("--quit-after-ms"), QStringLiteral("1000")};
        auto asked = runner.start(QStringList{QStringLiteral("--model"), gone} + quit);
        QVERIFY(asked->waitForFinished(kStartMs));
        QCOMPARE(asked->exitCode(), 0);
        QVERIFY2(runner.log().contains(QStringLiteral("start: There is no model at ") + gone), qPrintable(runner.log()));

        // The model used last has vanished since: the app starts empty and says so.
        {
            QSettings settings(runner.settingsPath(), QSettings::IniFormat);
            settings.setValue(QStringLiteral("models/lastPath"), runner.home() + QStringLiteral("/last.gguf"));
        }
        auto remembered = runner.start(quit);
        QVERIFY(remembered->waitForFinished(kStartMs));
        QCOMPARE(remembered->exitCode(), 0);
        QVERIFY2(runner.log().contains(QStringLiteral("start: The model you used last is no longer at ") + runner.home() +
                                       QStringLiteral("/last.gguf")),
                 qPrintable(runner.log()));
    }

    void restartComesBackOnTheSameModelAndConversation()
    {
        APPTEST_DATA(model, QStringLiteral("models/stories260K/stories260K-f32.gguf"));
        AppRunner runner;
        QVERIFY(runner.isValid());
        const QString db = runner.home() + QStringLiteral("/history.sqlite");
        QProcessEnvironment restart; // what "Restart" after a GPU failure does, a moment after the send
        restart.insert(QStringLiteral("HEARTH_TEST_RESTART_AFTER_MS"), QStringLiteral("3000"));
        auto first = runner.start({QStringLiteral("--model"), model, QStringLiteral("--database"), db,
                                   QStringLiteral("--send"), QStringLiteral("Once upon a time")},
                                  restart);
        QVERIFY2(runner.waitForLog(logLineOf(first->processId(), QStringLiteral("info"), QStringLiteral("automation: sent")),
                                   kStartMs),
                 qPrintable(runner.log()));
        QVERIFY(first->waitForFinished(kStartMs));
        QCOMPARE(first->exitStatus(), QProcess::NormalExit);
        QCOMPARE(first->exitCode(), 0);

        // The next Hearth names the model, the conversation the first had open and the history.
        const QRegularExpression restarted(
            QStringLiteral("\\[(\\d+)\\] info start: Hearth \\S+ on Qt \\S+: \\S+ --model (\\S+) "
                           "--conversation (\\d+) --database (\\S+)$"),
            QRegularExpression::MultilineOption);
        QTRY_VERIFY_WITH_TIMEOUT(restarted.match(runner.log()).hasMatch(), kStartMs);
        const QRegularExpressionMatch m = restarted.match(runner.log());
        const qint64 pid = m.captured(1).toLongLong();
        QVERIFY(pid != first->processId());
        QCOMPARE(m.captured(2), model);
        QVERIFY(m.captured(3).toLongLong() > 0);
        QCOMPARE(m.captured(4), db);
        // It is the running Hearth of that history: the first gave up the lock before starting it.
        QVERIFY(runner.waitForLog(logLineOf(pid, QStringLiteral("info"),
                                            QStringLiteral("start: model \"%1\", conversation %2").arg(model, m.captured(3))),
                                  kStartMs));
        QVERIFY(runner.waitForListener(kStartMs, AppInstance::instanceKey(db)));
        // ~AppRunner ends the restarted Hearth (detached: not a child of this test).
    }
};

APPTEST_MAIN(TestSingleInstance)
#include "tst_singleinstance.moc"
