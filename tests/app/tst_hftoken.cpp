// The Hugging Face token in the system keyring (QtKeychain). With HEARTH_TEST_KEYRING=1 the test
// runs inside with_keyring.sh (a private D-Bus session with gnome-keyring): the token is stored,
// read back by a new store, and forgotten. Without it (app.hftoken_nokeyring: no session bus at
// all) saving keeps the token for this run only. In both, nothing reaches the settings file.
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "hftoken.h"

namespace {

constexpr int kJobMs = 15000;
const QString kService = QStringLiteral("HearthTest");
const QByteArray kSecret = "hf_testTOKEN0123456789";

bool settle(HfTokenStore& store)
{
    QSignalSpy done(&store, &HfTokenStore::settled);
    return done.wait(kJobMs);
}

// Whether any file under `dir` contains the secret.
bool anyFileHolds(const QString& dir)
{
    for (QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories); it.hasNext();) {
        QFile f(it.next());
        if (f.open(QIODevice::ReadOnly) && f.readAll().contains(kSecret))
            return true;
    }
    return false;
}

} // namespace

class TestHfToken : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_config;
    bool m_keyring = qEnvironmentVariableIsSet("HEARTH_TEST_KEYRING");

private slots:
    void initTestCase()
    {
        QVERIFY(m_config.isValid());
        // QtKeychain's plain-text fallback would write here (QSettings): it must stay off.
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_config.path());
        qputenv("XDG_CONFIG_HOME", m_config.path().toUtf8());
        QCoreApplication::setOrganizationName(QStringLiteral("HearthTest"));
        QCoreApplication::setApplicationName(QStringLiteral("HearthTest"));
    }

    void storedInTheKeyring()
    {
        if (!m_keyring)
            QSKIP("runs under with_keyring.sh (app.hftoken)");
        {
            HfTokenStore store(nullptr, kService);
            store.forget(); // whatever an earlier run left
            QVERIFY(settle(store));
            store.save(QString::fromLatin1(kSecret) + QStringLiteral("  "));
            QVERIFY(settle(store));
            QCOMPARE(store.state(), HfTokenStore::State::Stored);
            QCOMPARE(store.token(), kSecret);
        }
        {
            HfTokenStore again(nullptr, kService); // as at the next start
            QSignalSpy token(&again, &HfTokenStore::tokenChanged);
            again.load();
            QVERIFY(settle(again));
            QCOMPARE(again.state(), HfTokenStore::State::Stored);
            QCOMPARE(again.token(), kSecret);
            QCOMPARE(token.size(), 1);
            again.forget();
            QVERIFY(settle(again));
            QCOMPARE(again.state(), HfTokenStore::State::Absent);
            QVERIFY(!again.hasToken());
        }
        HfTokenStore gone(nullptr, kService);
        gone.load();
        QVERIFY(settle(gone));
        QCOMPARE(gone.state(), HfTokenStore::State::Absent);
        QVERIFY(gone.token().isEmpty());
        QVERIFY(!anyFileHolds(m_config.path()));
    }

    void withoutAKeyringNothingIsStored()
    {
        if (m_keyring)
            QSKIP("runs without a session bus (app.hftoken_nokeyring)");
        HfTokenStore store(nullptr, kService);
        store.save(QString::fromLatin1(kSecret));
        QVERIFY(settle(store));
        QCOMPARE(store.state(), HfTokenStore::State::SessionOnly);
        QCOMPARE(store.token(), kSecret); // used for this run
        QVERIFY(!store.message().isEmpty());
        QVERIFY(!anyFileHolds(m_config.path()));
        HfTokenStore next(nullptr, kService); // the next start has none
        next.load();
        QVERIFY(settle(next));
        QVERIFY(next.token().isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestHfToken)
#include "tst_hftoken.moc"
