// Hearth desktop app: parses the command line, then loads the QML UI (module Hearth, from ui/).
#include <QCommandLineParser>
#include <QFileInfo>
#include <QGuiApplication>
#include <QQmlApplicationEngine>
#include <QQmlExtensionPlugin>
#include <QQuickWindow>
#include <QTimer>
#include <QUrl>

#include <cstdio>

Q_IMPORT_QML_PLUGIN(HearthPlugin)    // ui/: the QML views
Q_IMPORT_QML_PLUGIN(HearthAppPlugin) // app/: DeviceStatus and the other QObjects QML sees

namespace {

struct Options {
    int quitAfterMs = -1;  // -1: run until the user closes the window
    QString screenshotPath; // empty: none
};

void addOptions(QCommandLineParser& parser)
{
    parser.setApplicationDescription(QStringLiteral("Hearth: chat with language models on your own computer."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addOption({QStringLiteral("quit-after-ms"),
                      QStringLiteral("Quit after <ms> milliseconds (smoke tests, screenshots)."),
                      QStringLiteral("ms")});
    parser.addOption({QStringLiteral("screenshot"),
                      QStringLiteral("Save the window as a PNG to <file> just before quitting "
                                     "(default: after 2000 ms)."),
                      QStringLiteral("file")});
}

void saveScreenshot(const QQmlApplicationEngine& engine, const QString& path)
{
    const QList<QObject*> roots = engine.rootObjects();
    auto* window = roots.isEmpty() ? nullptr : qobject_cast<QQuickWindow*>(roots.first());
    if (!window || !window->grabWindow().save(path))
        qWarning("hearth: could not save the screenshot to %s", qPrintable(path));
}

} // namespace

int main(int argc, char* argv[])
{
    QCoreApplication::setOrganizationName(QStringLiteral("Hearth"));
    QCoreApplication::setApplicationName(QStringLiteral("Hearth"));
    QCoreApplication::setApplicationVersion(QStringLiteral(HEARTH_VERSION));

    // --version and --help must work without a display, so they are answered before
    // QGuiApplication exists. Qt's own options (-platform ...) are not known yet: ignore errors.
    {
        QCommandLineParser early;
        addOptions(early);
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
    }

    QGuiApplication app(argc, argv);
    QCommandLineParser parser;
    addOptions(parser);
    parser.process(app); // exits with a message on an unknown option

    Options options;
    if (parser.isSet(QStringLiteral("quit-after-ms"))) {
        bool ok = false;
        options.quitAfterMs = parser.value(QStringLiteral("quit-after-ms")).toInt(&ok);
        if (!ok || options.quitAfterMs < 0) {
            std::fprintf(stderr, "hearth: --quit-after-ms needs a number of milliseconds\n");
            return 1;
        }
    }
    options.screenshotPath = parser.value(QStringLiteral("screenshot"));
    if (!options.screenshotPath.isEmpty() && options.quitAfterMs < 0)
        options.quitAfterMs = 2000;

    QQmlApplicationEngine engine;
    engine.load(QUrl(QStringLiteral("qrc:/Hearth/Main.qml")));
    if (engine.rootObjects().isEmpty()) {
        std::fprintf(stderr, "hearth: the user interface could not be loaded (broken installation?)\n");
        return 1;
    }

    if (options.quitAfterMs >= 0) {
        QTimer::singleShot(options.quitAfterMs, &app, [&engine, &options] {
            if (!options.screenshotPath.isEmpty())
                saveScreenshot(engine, options.screenshotPath);
            QCoreApplication::quit();
        });
    }
    return app.exec();
}
