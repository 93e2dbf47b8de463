// Hearth desktop app: reads the command line, makes sure one Hearth runs per user and history file
// (a second start hands its model to the first and exits), opens the log, then loads the QML UI
// (module Hearth, from ui/) and, after the event loop, restarts itself when asked to.
#include <QCommandLineParser>
#include <QFileInfo>
#include <QGuiApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QQmlApplicationEngine>
#include <QQmlExtensionPlugin>
#include <QQuickWindow>
#include <QEventLoop>
#include <QTimer>
#include <QUrl>

#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include "appinstance.h"
#include "appsettings.h"
#include "languageswitcher.h"
#include "chatcontroller.h"
#include "diagnostics.h"
#include "downloadlistmodel.h"
#include "downloadpull.h"
#include "hearth/session.h"
#include "hftoken.h"
#include "libraryreport.h"
#include "localserver.h"
#include "logfile.h"
#include "serverkey.h"
#include "startoptions.h"

Q_IMPORT_QML_PLUGIN(HearthPlugin)    // ui/: the QML views
Q_IMPORT_QML_PLUGIN(HearthAppPlugin) // app/: DeviceStatus and the other QObjects QML sees

namespace {

// --list-models: the library as JSON on stdout, without a window, a display or the instance lock.
int listModels(int argc, char* argv[])
{
    QCoreApplication app(argc, argv);
    bool ok = false;
    const QJsonObject report = libraryReport(reportOptionsFrom(*AppSettings::shared()), &ok);
    std::fputs(QJsonDocument(report).toJson(QJsonDocument::Indented).constData(), stdout);
    if (!ok)
        std::fprintf(stderr, "hearth: the model catalog could not be read: %s\n",
                     qPrintable(report.value(QStringLiteral("catalog")).toObject().value(QStringLiteral("error")).toString()));
    return ok ? 0 : 1;
}

// --pull FAMILY:QUANT: downloads one catalog model without a window (app/library/downloadpull.h).
// The token: HF_TOKEN (as Hugging Face's own tools read it), else the keyring's.
int pull(int argc, char* argv[], const QCommandLineParser& early)
{
    QCoreApplication app(argc, argv);
    if (!logfile::install(logfile::defaultPath()))
        qWarning("hearth: cannot write the log file %s", qPrintable(logfile::defaultPath()));
    qInfo("start: Hearth %s pull: %s", HEARTH_VERSION, qPrintable(QCoreApplication::arguments().join(QLatin1Char(' '))));
    AppSettings* settings = AppSettings::shared();
    PullSetup setup;
    const QString database = early.value(QStringLiteral("database"));
    setup.databasePath = database.isEmpty() ? QString() : QFileInfo(database).absoluteFilePath();
    setup.modelsFolder = settings->modelsFolder();
    setup.catalogSetting = settings->catalogPath();
    setup.endpointSetting = settings->hfEndpoint();
    setup.token = qgetenv("HF_TOKEN").trimmed();
    if (setup.token.isEmpty()) {
        HfTokenStore* token = HfTokenStore::shared();
        QEventLoop wait;
        QObject::connect(token, &HfTokenStore::settled, &wait, &QEventLoop::quit);
        QTimer::singleShot(3000, &wait, &QEventLoop::quit); // a keyring that does not answer
        token->load();
        wait.exec();
        setup.token = token->token();
    }
    return pullModel(early.value(QStringLiteral("pull")).trimmed(), setup);
}

// --version and --help must work without a display, so they are answered before
// QGuiApplication exists. Qt's own options (-platform ...) are not known yet: ignore errors.
std::optional<int> answerEarly(int argc, char* argv[])
{
    QCommandLineParser early;
    addStartOptions(early);
    QStringList args;
    for (int i = 0; i < argc; ++i)
        args << QString::fromLocal8Bit(argv[i]);
    early.parse(args);
    if (early.isSet(QStringLiteral("version"))) {
        std::printf("hearth %s\n", HEARTH_VERSION);
        return 0;
    }
    if (early.isSet(QStringLiteral("help"))) {
        // Without an application object Qt cannot name the executable itself.
        QString help = early.helpText();
        help.replace(QStringLiteral("<executable_name>"), QFileInfo(args.constFirst()).fileName());
        std::printf("%s", qPrintable(help));
        return 0;
    }
    if (early.isSet(QStringLiteral("list-models")))
        return listModels(argc, argv);
    if (early.isSet(QStringLiteral("pull")))
        return pull(argc, argv, early);
    return std::nullopt;
}

// TEST ONLY: HEARTH_TEST_DECODE_DELAY_MS slows every decode step, so that a test sees a reply
// still streaming when it kills the app (tests/app/tst_sigkill.cpp).
void applyTestHooks()
{
    bool ok = false;
    const int ms = qEnvironmentVariableIntValue("HEARTH_TEST_DECODE_DELAY_MS", &ok);
    if (ok && ms > 0) {
        hearth::setTestDecodeDelayMs(ms);
        qInfo("test: every decode step waits %d ms (HEARTH_TEST_DECODE_DELAY_MS)", ms);
    }
}

// TEST ONLY: HEARTH_TEST_RESTART_AFTER_MS restarts the app as the "Restart" offered after a GPU
// failure does (tests/app/tst_singleinstance.cpp). The next process must not restart again.
void scheduleTestRestart(AppInstance& instance)
{
    bool ok = false;
    const int ms = qEnvironmentVariableIntValue("HEARTH_TEST_RESTART_AFTER_MS", &ok);
    if (ok && ms >= 0) {
        qunsetenv("HEARTH_TEST_RESTART_AFTER_MS");
        QTimer::singleShot(ms, &instance, &AppInstance::restartApp);
    }
}

// Automation (--send): sends `text` as a new chat once the first model has loaded (or the remote
// server used last is connected), and logs how far the reply has come, so that a test can tell
// what was streamed before it killed the app.
void sendWhenLoaded(ChatController& chat, const QString& text)
{
    auto* once = new QObject(&chat);
    auto send = [&chat, once, text] {
        const bool sent = chat.send(text);
        qInfo("automation: %s \"%s\"", sent ? "sent" : "could not send", qPrintable(text));
        delete once;
    };
    QObject::connect(chat.engine(), &EngineHost::modelLoaded, once, send);
    auto sendIfConnected = [&chat, send] {
        if (chat.connection()->isRemote() && chat.canSend())
            send();
    };
    QObject::connect(chat.connection(), &ActiveConnection::changed, once, sendIfConnected);
    QTimer::singleShot(0, once, sendIfConnected); // connected before this was called
    auto length = std::make_shared<qsizetype>(0);
    for (ReplyBackend* backend : {static_cast<ReplyBackend*>(chat.engine()), static_cast<ReplyBackend*>(chat.connection()->remoteBackend())})
        QObject::connect(backend, &ReplyBackend::replyPieces, &chat, [length](quint64, const QString& content) {
            *length += content.size();
            qInfo("automation: reply so far %lld characters", static_cast<long long>(*length));
        });
}

// Calls `then` once, when the first load ends (loaded or failed), or after two minutes at the
// latest: --screenshot counts its time from there, so a picture never shows a load under way.
void whenFirstLoadEnds(ChatController& chat, const std::function<void()>& then)
{
    auto* once = new QObject(&chat);
    auto fired = std::make_shared<bool>(false);
    auto fire = [once, fired, then] {
        if (std::exchange(*fired, true))
            return;
        once->deleteLater();
        then();
    };
    QObject::connect(chat.engine(), &EngineHost::modelLoaded, once, fire);
    QObject::connect(chat.engine(), &EngineHost::loadFailed, once, fire);
    QTimer::singleShot(120000, once, fire);
}

QQuickWindow* rootWindow(const QQmlApplicationEngine& engine)
{
    const QList<QObject*> roots = engine.rootObjects();
    return roots.isEmpty() ? nullptr : qobject_cast<QQuickWindow*>(roots.first());
}

// TEST ONLY: HEARTH_TEST_OPEN_PAGE=picker|remote|connection|settings|about|chatOptions opens that
// page at start, so that installer/screenshots.sh can show it (Main.qml's openPage).
void openTestPage(const QQmlApplicationEngine& engine)
{
    const QString page = qEnvironmentVariable("HEARTH_TEST_OPEN_PAGE");
    if (page.isEmpty())
        return;
    QQuickWindow* window = rootWindow(engine);
    if (!window || !QMetaObject::invokeMethod(window, "openPage", Q_ARG(QVariant, page)))
        qWarning("test: cannot open the page %s", qPrintable(page));
}

void saveScreenshot(const QQmlApplicationEngine& engine, const QString& path)
{
    QQuickWindow* window = rootWindow(engine);
    if (!window || !window->grabWindow().save(path))
        qWarning("hearth: could not save the screenshot to %s", qPrintable(path));
}

} // namespace

int main(int argc, char* argv[])
{
    QCoreApplication::setOrganizationName(QStringLiteral("Hearth"));
    QCoreApplication::setApplicationName(QStringLiteral("Hearth"));
    QCoreApplication::setApplicationVersion(QStringLiteral(HEARTH_VERSION));
    if (const std::optional<int> rc = answerEarly(argc, argv))
        return *rc;

    QGuiApplication app(argc, argv);
    QCommandLineParser parser;
    addStartOptions(parser);
    parser.process(app); // exits with a message on an unknown option
    StartOptions options;
    QString error;
    if (!readStartOptions(parser, options, error)) {
        std::fprintf(stderr, "hearth: %s\n", qPrintable(error));
        return 1;
    }

    if (!logfile::install(logfile::defaultPath()))
        qWarning("hearth: cannot write the log file %s", qPrintable(logfile::defaultPath()));
    qInfo("start: Hearth %s on Qt %s: %s", HEARTH_VERSION, qVersion(),
          qPrintable(QCoreApplication::arguments().join(QLatin1Char(' '))));
    applyTestHooks();
    // The chosen language from the start (AppSettings.language), and again whenever it changes.
    LanguageSwitcher languages(nullptr, AppSettings::shared());

    AppInstance instance(nullptr);
    switch (instance.claim(options)) {
    case AppInstance::Claim::Primary: break;
    case AppInstance::Claim::Forwarded: return 0;
    case AppInstance::Claim::Unreachable:
        std::fprintf(stderr, "hearth: another Hearth is running but does not answer; close it and try again\n");
        return 1;
    }
    AppInstance::setShared(&instance);
    // A remote server used last is connected again instead of loading the last local model.
    const bool remoteLast = options.modelPath.isEmpty() && !ConnectionList::shared()->activeId().isEmpty();
    const StartModel startModel =
        chooseStartModel(options.modelPath, remoteLast ? QString() : AppSettings::shared()->lastModelPath());
    instance.setStart(options, startModel);
    Diagnostics diagnostics(nullptr);
    Diagnostics::setShared(&diagnostics);

    int rc = 0;
    {
        // The chat (history and engine) outlives the window, and is gone before a restart.
        ChatController chat;
        chat.setAppSettings(AppSettings::shared());
        chat.connection()->setStores(ConnectionList::shared(), ApiKeyStore::shared());
        if (remoteLast)
            chat.connection()->restore();
        // A failure is shown in the window, with a way on; the log keeps it too.
        if (const hearth::Status opened = chat.openStore(options.databasePath); !opened.isOk())
            qWarning("start: the chat history could not be opened: %s", opened.message().c_str());
        // Downloads keep their state in the same file; those a last run left go on, on a thread
        // of their own. The Hugging Face token comes from the keyring.
        HfTokenStore::shared()->load();
        DownloadListModel::shared()->start(options.databasePath, AppSettings::shared(), HfTokenStore::shared());
        diagnostics.setEngine(chat.engine());
        QObject::connect(&chat, &ChatController::errorOccurred, &diagnostics, &Diagnostics::reportError);
        // The API server of the Settings switch serves what the engine loads; made after the chat
        // and so gone before it (stopped while the engine still runs).
        ServerKey serverKey(nullptr);
        LocalServer localServer(chat.engine(), AppSettings::shared(), &serverKey);
        LocalServer::setShared(&localServer);
        if (!options.sendText.isEmpty())
            sendWhenLoaded(chat, options.sendText);
        QQmlApplicationEngine engine;
        languages.setEngine(&engine);
        engine.setInitialProperties({{QStringLiteral("chat"), QVariant::fromValue(&chat)}});
        engine.load(QUrl(QStringLiteral("qrc:/Hearth/Main.qml")));
        if (engine.rootObjects().isEmpty()) {
            std::fprintf(stderr, "hearth: the user interface could not be loaded (broken installation?)\n");
            return 1;
        }
        instance.setWindow(rootWindow(engine));
        instance.announceStart();
        scheduleTestRestart(instance);
        openTestPage(engine);

        if (options.quitAfterMs >= 0) {
            auto quit = [&engine, &options] {
                if (!options.screenshotPath.isEmpty())
                    saveScreenshot(engine, options.screenshotPath);
                QCoreApplication::quit();
            };
            if (!options.screenshotPath.isEmpty() && !startModel.path.isEmpty())
                whenFirstLoadEnds(chat, [&app, &options, quit] { QTimer::singleShot(options.quitAfterMs, &app, quit); });
            else
                QTimer::singleShot(options.quitAfterMs, &app, quit);
        }
        rc = app.exec();
    } // the window and everything QML made (the history file among them) are gone here

    if (instance.restartRequested()) {
        // The next Hearth must find the lock free, or it would hand itself to this one.
        instance.release();
        const QStringList args = instance.restartCommand();
        qInfo("restart: %s", qPrintable(args.join(QLatin1Char(' '))));
        if (!QProcess::startDetached(QCoreApplication::applicationFilePath(), args))
            qWarning("restart: could not start %s", qPrintable(QCoreApplication::applicationFilePath()));
    }
    return rc;
}
