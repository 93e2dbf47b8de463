// The start of Hearth without a window: the command line, which model to open (and the notice when
// it is gone), the arguments of a restart, and AppInstance's lock in this process.
#include <QCommandLineParser>
#include <QDir>
#include <QFile>
#include <QQmlComponent>
#include <QQmlEngine>
#include <QQmlExtensionPlugin>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include "appinstance.h"
#include "startoptions.h"

Q_IMPORT_QML_PLUGIN(HearthAppPlugin)

namespace {

bool parse(const QStringList& args, StartOptions& options, QString& error)
{
    QCommandLineParser parser;
    addStartOptions(parser);
    if (!parser.parse(QStringList{QStringLiteral("hearth")} + args)) {
        error = parser.errorText();
        return false;
    }
    return readStartOptions(parser, options, error);
}

} // namespace

class TestStartOptions : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        // AppInstance's lock and socket go to a scratch runtime folder.
        QVERIFY(m_runtime.isValid());
        qputenv("XDG_RUNTIME_DIR", QFile::encodeName(m_runtime.path()));
    }

    void readsTheCommandLine()
    {
        StartOptions o;
        QString error;
        QVERIFY(parse({QStringLiteral("--model"), QStringLiteral("m/x.gguf"), QStringLiteral("--conversation"),
                       QStringLiteral("12"), QStringLiteral("--database"), QStringLiteral("/tmp/h.sqlite"),
                       QStringLiteral("--send"), QStringLiteral("Hello")},
                      o, error));
        QCOMPARE(o.modelPath, QDir::current().absoluteFilePath(QStringLiteral("m/x.gguf")));
        QCOMPARE(o.conversationId, 12);
        QCOMPARE(o.databasePath, QStringLiteral("/tmp/h.sqlite"));
        QCOMPARE(o.sendText, QStringLiteral("Hello"));
        QCOMPARE(o.quitAfterMs, -1);

        StartOptions opened; // a file opened from the desktop entry (Exec=hearth %F)
        QVERIFY(parse({QStringLiteral("/m/y.gguf")}, opened, error));
        QCOMPARE(opened.modelPath, QStringLiteral("/m/y.gguf"));

        StartOptions shot;
        QVERIFY(parse({QStringLiteral("--screenshot"), QStringLiteral("a.png")}, shot, error));
        QCOMPARE(shot.quitAfterMs, 2000); // a screenshot without a time is taken after 2 s
    }

    void rejectsMalformedValues()
    {
        const QList<QStringList> bad = {
            {QStringLiteral("--conversation"), QStringLiteral("x")},
            {QStringLiteral("--conversation"), QStringLiteral("-3")},
            {QStringLiteral("--quit-after-ms"), QStringLiteral("soon")},
            {QStringLiteral("--send"), QStringLiteral("   ")},
        };
        for (const QStringList& args : bad) {
            StartOptions o;
            QString error;
            QVERIFY2(!parse(args, o, error), qPrintable(args.join(' ')));
            QVERIFY2(error.contains(args.first()), qPrintable(error)); // names the option
        }
    }

    void choosesTheModelToOpen()
    {
        QTemporaryDir dir;
        const QString present = dir.filePath(QStringLiteral("here.gguf"));
        QFile file(present);
        QVERIFY(file.open(QIODevice::WriteOnly));
        const QString gone = dir.filePath(QStringLiteral("gone.gguf"));

        QCOMPARE(chooseStartModel({}, {}).path, QString());
        QCOMPARE(chooseStartModel({}, {}).notice, QString());
        QCOMPARE(chooseStartModel(present, gone).path, present); // asked for wins
        QCOMPARE(chooseStartModel({}, present).path, present);   // else the one used last
        QVERIFY(chooseStartModel({}, present).notice.isEmpty());

        const StartModel vanished = chooseStartModel({}, gone);
        QVERIFY(vanished.path.isEmpty()); // nothing is loaded
        QVERIFY(vanished.notice.contains(QStringLiteral("used last")));
        QVERIFY(vanished.notice.contains(gone));
        const StartModel missing = chooseStartModel(gone, present);
        QVERIFY(missing.path.isEmpty()); // a wrong --model does not fall back silently
        QVERIFY(missing.notice.contains(gone));
    }

    void restartKeepsModelConversationAndDatabase()
    {
        StartOptions o;
        o.modelPath = QStringLiteral("/m/a.gguf");
        o.databasePath = QStringLiteral("/d/h.sqlite");
        o.sendText = QStringLiteral("not again");
        o.quitAfterMs = 10;
        o.conversationId = 3;
        AppInstance instance(nullptr);
        instance.setStart(o, {o.modelPath, {}});
        instance.setCurrent(QStringLiteral("/m/b.gguf"), 42);
        QVERIFY(!instance.restartRequested());

        QTimer::singleShot(0, &instance, [&instance] { instance.restartApp(); });
        QTimer guard; // ends a loop that restartApp failed to end, and goes with this test
        guard.setSingleShot(true);
        connect(&guard, &QTimer::timeout, [] { QCoreApplication::exit(1); });
        guard.start(5000);
        QCOMPARE(QCoreApplication::exec(), 0); // restartApp ended the event loop
        QVERIFY(instance.restartRequested());
        // The automation options are not repeated: a restart must not send again.
        QCOMPARE(instance.restartCommand(),
                 (QStringList{QStringLiteral("--model"), QStringLiteral("/m/b.gguf"), QStringLiteral("--conversation"),
                              QStringLiteral("42"), QStringLiteral("--database"), QStringLiteral("/d/h.sqlite")}));
    }

    void startIsAnnouncedOnceTheLoopRuns()
    {
        StartOptions o;
        o.conversationId = 9;
        AppInstance instance(nullptr);
        instance.setStart(o, {QStringLiteral("/m/a.gguf"), {}});
        QSignalSpy opens(&instance, &AppInstance::openRequested);
        QSignalSpy conversations(&instance, &AppInstance::conversationRequested);
        instance.announceStart();
        QCOMPARE(opens.count(), 0); // objects made after this call still hear it
        QVERIFY(opens.wait(2000));
        QCOMPARE(opens.first().first().toString(), QStringLiteral("/m/a.gguf"));
        QCOMPARE(conversations.count(), 1);
        QCOMPARE(conversations.first().first().toLongLong(), 9);
    }

    void lockIsPerHistoryFileAndReleased()
    {
        QCOMPARE(AppInstance::instanceKey({}), QStringLiteral("hearth"));
        QVERIFY(AppInstance::instanceKey(QStringLiteral("/a.sqlite")) != AppInstance::instanceKey(QStringLiteral("/b.sqlite")));

        StartOptions other;
        other.databasePath = m_runtime.filePath(QStringLiteral("other.sqlite"));
        auto first = std::make_unique<AppInstance>(nullptr);
        QCOMPARE(first->claim({}), AppInstance::Claim::Primary);
        QVERIFY(QFile::exists(m_runtime.filePath(QStringLiteral("hearth.lock"))));
        AppInstance separate(nullptr); // another history file is another instance
        QCOMPARE(separate.claim(other), AppInstance::Claim::Primary);

        first->release(); // as before a restart: the next start must become the running one
        QVERIFY(!QFile::exists(m_runtime.filePath(QStringLiteral("hearth.lock"))));
        AppInstance next(nullptr);
        QCOMPARE(next.claim({}), AppInstance::Claim::Primary);
    }

    void qmlSeesMainsInstance()
    {
        // QML's AppInstance must be the one main() claimed with, not one QML makes itself.
        AppInstance instance(nullptr);
        AppInstance::setShared(&instance);
        {
            QQmlEngine engine;
            engine.addImportPath(QStringLiteral("qrc:/"));
            QQmlComponent component(&engine);
            component.setData("import QtQml\nimport Hearth.App\nQtObject { property QtObject seen: AppInstance }", QUrl());
            std::unique_ptr<QObject> object(component.create());
            QVERIFY2(object, qPrintable(component.errorString()));
            QCOMPARE(object->property("seen").value<QObject*>(), &instance);
        }
        AppInstance::setShared(nullptr);
    }

private:
    QTemporaryDir m_runtime;
};

QTEST_GUILESS_MAIN(TestStartOptions)
#include "tst_startoptions.moc"
