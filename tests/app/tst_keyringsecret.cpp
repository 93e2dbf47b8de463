// KeyringSecret, the one keyring entry behind ServerKey, HfTokenStore and ApiKeyStore. With
// HEARTH_TEST_KEYRING=1 (app.keyringsecret, under with_keyring.sh: a private D-Bus session with
// gnome-keyring) a value is stored, read back by a new secret and erased, and the latest save or
// forget wins over a read that was already under way. Without it (app.keyringsecret_nokeyring: no
// session bus) a saved value is kept for this run only and the caller's sentence says so.
#include <QSignalSpy>
#include <QTest>

#include "keyringsecret.h"

namespace {

constexpr int kJobMs = 15000;
const QString kService = QStringLiteral("HearthTest-keyringsecret");
const QString kEntry = QStringLiteral("secret");
const QString kNotSaved = QStringLiteral("kept for this run only");

using State = KeyringSecret::State;
using Outcome = KeyringSecret::Outcome;
using Job = KeyringSecret::Job;

// Waits until `spy` (on answered) holds `count` answers, and no more.
bool answers(QSignalSpy& spy, int count)
{
    while (spy.size() < count) {
        if (!spy.wait(kJobMs))
            return false;
    }
    return spy.size() == count;
}

Outcome outcomeOf(const QSignalSpy& spy, int i)
{
    return spy.at(i).at(1).value<Outcome>();
}

// The outcome of the answer to `job` among `spy`'s (the keyring may answer in any order).
Outcome outcomeOf(const QSignalSpy& spy, Job job)
{
    for (const QList<QVariant>& answer : spy) {
        if (answer.at(0).value<Job>() == job)
            return answer.at(1).value<Outcome>();
    }
    return Outcome::Failed;
}

// A fresh secret reads the keyring and says what it found.
QString readBack()
{
    KeyringSecret again(kService, kEntry, nullptr);
    QSignalSpy done(&again, &KeyringSecret::answered);
    again.load();
    return answers(done, 1) ? again.value() : QStringLiteral("(no answer)");
}

} // namespace

class TestKeyringSecret : public QObject
{
    Q_OBJECT

private:
    bool m_keyring = qEnvironmentVariableIsSet("HEARTH_TEST_KEYRING");

private slots:
    void init()
    {
        if (!m_keyring)
            return;
        KeyringSecret clean(kService, kEntry, nullptr); // whatever an earlier run left
        QSignalSpy done(&clean, &KeyringSecret::answered);
        clean.forget();
        QVERIFY(answers(done, 1));
    }

    void storedReadBackAndErased()
    {
        if (!m_keyring)
            QSKIP("runs under with_keyring.sh (app.keyringsecret)");
        KeyringSecret secret(kService, kEntry, nullptr);
        QSignalSpy done(&secret, &KeyringSecret::answered);
        secret.load();
        QVERIFY(answers(done, 1));
        QCOMPARE(outcomeOf(done, 0), Outcome::NotFound);
        QCOMPARE(secret.state(), State::Absent);
        QVERIFY(secret.message(kNotSaved).isEmpty()); // no entry is no trouble

        secret.save(QStringLiteral("s3cret"));
        QCOMPARE(secret.state(), State::SessionOnly); // usable before the keyring answers
        QVERIFY(answers(done, 2));
        QCOMPARE(done.at(1).at(0).value<Job>(), Job::Write);
        QCOMPARE(outcomeOf(done, 1), Outcome::Done);
        QCOMPARE(secret.state(), State::Stored);
        QVERIFY(secret.message(kNotSaved).isEmpty());
        QCOMPARE(readBack(), QStringLiteral("s3cret"));

        secret.forget();
        QCOMPARE(secret.state(), State::Absent);
        QVERIFY(secret.value().isEmpty());
        QVERIFY(answers(done, 3));
        QCOMPARE(outcomeOf(done, 2), Outcome::Done);
        QCOMPARE(readBack(), QString());
    }

    void latestSaveOrForgetWins()
    {
        if (!m_keyring)
            QSKIP("runs under with_keyring.sh (app.keyringsecret)");
        KeyringSecret old(kService, kEntry, nullptr);
        QSignalSpy oldDone(&old, &KeyringSecret::answered);
        old.save(QStringLiteral("old"));
        QVERIFY(answers(oldDone, 1));

        // A read under way finds "old", but the save that followed it decides.
        KeyringSecret secret(kService, kEntry, nullptr);
        QSignalSpy done(&secret, &KeyringSecret::answered);
        QSignalSpy values(&secret, &KeyringSecret::valueChanged);
        secret.load();
        secret.save(QStringLiteral("new"));
        QVERIFY(answers(done, 2));
        QCOMPARE(outcomeOf(done, Job::Read), Outcome::Done); // the read was answered, and ignored
        QCOMPARE(secret.value(), QStringLiteral("new"));
        QCOMPARE(secret.state(), State::Stored);
        QCOMPARE(values.size(), 1);
        QCOMPARE(readBack(), QStringLiteral("new"));

        // Two reads at once both count; a forget right after a save leaves nothing anywhere.
        KeyringSecret twice(kService, kEntry, nullptr);
        QSignalSpy twiceDone(&twice, &KeyringSecret::answered);
        twice.load();
        twice.load();
        QVERIFY(answers(twiceDone, 2));
        QCOMPARE(twice.state(), State::Stored);
        QCOMPARE(twice.value(), QStringLiteral("new"));
        twice.save(QStringLiteral("newer"));
        twice.forget();
        QVERIFY(answers(twiceDone, 4));
        QCOMPARE(twice.state(), State::Absent);
        QVERIFY(twice.value().isEmpty());
        QCOMPARE(readBack(), QString());
    }

    void withoutAKeyringKeptForTheRun()
    {
        if (m_keyring)
            QSKIP("runs without a session bus (app.keyringsecret_nokeyring)");
        KeyringSecret secret(kService, kEntry, nullptr);
        QSignalSpy done(&secret, &KeyringSecret::answered);
        QSignalSpy changed(&secret, &KeyringSecret::changed);
        secret.save(QStringLiteral("s3cret"));
        QCOMPARE(secret.state(), State::SessionOnly);
        QCOMPARE(changed.size(), 1);
        QVERIFY(answers(done, 1));
        QCOMPARE(outcomeOf(done, 0), Outcome::NoKeyring);
        QCOMPARE(secret.state(), State::SessionOnly);
        QCOMPARE(secret.value(), QStringLiteral("s3cret")); // used for this run
        QCOMPARE(secret.message(kNotSaved), kNotSaved);

        // A read that fails keeps the value held; a fresh secret finds nothing and says why.
        secret.load();
        QVERIFY(answers(done, 2));
        QCOMPARE(secret.value(), QStringLiteral("s3cret"));
        QCOMPARE(secret.message(kNotSaved), kNotSaved);
        KeyringSecret next(kService, kEntry, nullptr);
        QSignalSpy nextDone(&next, &KeyringSecret::answered);
        next.load();
        QVERIFY(answers(nextDone, 1));
        QCOMPARE(outcomeOf(nextDone, 0), Outcome::NoKeyring);
        QCOMPARE(next.state(), State::Absent);
        QVERIFY(next.value().isEmpty());
        // The keyring's own words: nothing was saved, so not the caller's sentence.
        QVERIFY(!next.message(kNotSaved).isEmpty());
        QVERIFY(next.message(kNotSaved) != kNotSaved);

        secret.forget();
        QCOMPARE(secret.state(), State::Absent);
        QVERIFY(secret.value().isEmpty());
        QVERIFY(answers(done, 3));
        QCOMPARE(secret.state(), State::Absent);
    }
};

QTEST_GUILESS_MAIN(TestKeyringSecret)
#include "tst_keyringsecret.moc"
