#include "startoptions.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace {

QString absolute(const QString& path)
{
    return path.isEmpty() ? path : QDir::cleanPath(QFileInfo(path).absoluteFilePath());
}

} // namespace

void addStartOptions(QCommandLineParser& parser)
{
    parser.setApplicationDescription(QStringLiteral("Hearth: chat with language models on your own computer.\n"
                                                    "A second start hands its model to the running Hearth."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addOption({QStringLiteral("model"),
                      QStringLiteral("Open the model at <path> (a .gguf file or a Hugging Face folder) "
                                     "instead of the one used last."),
                      QStringLiteral("path")});
    parser.addOption({QStringLiteral("conversation"),
                      QStringLiteral("Show the conversation with this <id> (used when Hearth restarts itself)."),
                      QStringLiteral("id")});
    parser.addOption({QStringLiteral("list-models"),
                      QStringLiteral("Print the model library as JSON (the local models and the catalog, with "
                                     "whether each fits this machine) and exit.")});
    parser.addOption({QStringLiteral("pull"),
                      QStringLiteral("Download the catalog model <family:quant> (e.g. qwen3-8b:Q4_K_M) into the "
                                     "models folder without a window: progress on stderr, the model's path on "
                                     "stdout; an interrupted download resumes. Exit 0 once it is verified."),
                      QStringLiteral("family:quant")});
    // The desktop entry passes opened files this way (Exec=hearth %F).
    parser.addPositionalArgument(QStringLiteral("model"), QStringLiteral("A model to open, as with --model."),
                                 QStringLiteral("[model]"));
    // Automation and testing: they drive the app without a person at the window.
    parser.addOption({QStringLiteral("database"),
                      QStringLiteral("Automation/testing: keep the chat history in <file> instead of the "
                                     "default one."),
                      QStringLiteral("file")});
    parser.addOption({QStringLiteral("send"),
                      QStringLiteral("Automation/testing: send <text> as a new chat once the model is loaded."),
                      QStringLiteral("text")});
    parser.addOption({QStringLiteral("quit-after-ms"),
                      QStringLiteral("Automation/testing: quit after <ms> milliseconds (smoke tests, "
                                     "screenshots)."),
                      QStringLiteral("ms")});
    parser.addOption({QStringLiteral("screenshot"),
                      QStringLiteral("Automation/testing: save the window as a PNG to <file> just before "
                                     "quitting (default: after 2000 ms, counted from the end of the start "
                                     "model's load)."),
                      QStringLiteral("file")});
}

bool readStartOptions(const QCommandLineParser& parser, StartOptions& options, QString& error)
{
    options.modelPath = absolute(parser.value(QStringLiteral("model")));
    if (options.modelPath.isEmpty() && !parser.positionalArguments().isEmpty())
        options.modelPath = absolute(parser.positionalArguments().constFirst());
    options.databasePath = absolute(parser.value(QStringLiteral("database")));
    options.sendText = parser.value(QStringLiteral("send"));
    options.listModels = parser.isSet(QStringLiteral("list-models"));
    options.pullSpec = parser.value(QStringLiteral("pull")).trimmed();
    options.screenshotPath = parser.value(QStringLiteral("screenshot"));
    if (parser.isSet(QStringLiteral("conversation"))) {
        bool ok = false;
        options.conversationId = parser.value(QStringLiteral("conversation")).toLongLong(&ok);
        if (!ok || options.conversationId <= 0) {
            error = QStringLiteral("--conversation needs a conversation id (a positive number)");
            return false;
        }
    }
    if (parser.isSet(QStringLiteral("quit-after-ms"))) {
        bool ok = false;
        options.quitAfterMs = parser.value(QStringLiteral("quit-after-ms")).toInt(&ok);
        if (!ok || options.quitAfterMs < 0) {
            error = QStringLiteral("--quit-after-ms needs a number of milliseconds");
            return false;
        }
    }
    if (!options.screenshotPath.isEmpty() && options.quitAfterMs < 0)
        options.quitAfterMs = 2000;
    if (parser.isSet(QStringLiteral("send")) && options.sendText.trimmed().isEmpty()) {
        error = QStringLiteral("--send needs the text of a message");
        return false;
    }
    return true;
}

QStringList restartArguments(const StartOptions& options)
{
    QStringList args;
    if (!options.modelPath.isEmpty())
        args << QStringLiteral("--model") << options.modelPath;
    if (options.conversationId > 0)
        args << QStringLiteral("--conversation") << QString::number(options.conversationId);
    if (!options.databasePath.isEmpty())
        args << QStringLiteral("--database") << options.databasePath;
    return args;
}

StartModel chooseStartModel(const QString& requested, const QString& lastUsed)
{
    const QString path = requested.isEmpty() ? lastUsed : requested;
    if (path.isEmpty())
        return {};
    if (QFileInfo::exists(path))
        return {path, {}};
    const QString notice = requested.isEmpty()
        ? QCoreApplication::translate("StartOptions", "The model you used last is no longer at %1. "
                                                      "Open a model to start chatting.")
        : QCoreApplication::translate("StartOptions", "There is no model at %1. Open a model to start chatting.");
    return {{}, notice.arg(QDir::toNativeSeparators(path))};
}
