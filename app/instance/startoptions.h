// What one start of Hearth asks for, from its command line: the model and conversation to open,
// and the automation options that tests and screenshots drive the app with. Qt-only, no window.
#pragma once

#include <QString>
#include <QStringList>

class QCommandLineParser;

struct StartOptions {
    QString modelPath;         // --model: absolute (resolved against the caller's folder); empty: none
    qint64 conversationId = 0; // --conversation: the conversation to show; 0: the app's choice
    QString databasePath;      // --database: the history file; empty: ConversationStore::defaultPath()
    QString sendText;          // --send: a prompt sent once the model is loaded (automation)
    int quitAfterMs = -1;      // --quit-after-ms; -1: run until the user closes the window
    QString screenshotPath;    // --screenshot; empty: none
    bool listModels = false;   // --list-models: print the library as JSON and exit
    QString pullSpec;          // --pull: download this catalog variant ("family:quant") and exit
};

// Declares every option (and --help, --version) on `parser`.
void addStartOptions(QCommandLineParser& parser);
// Reads the options of a parser that has parsed the command line; false with `error` (one line
// for stderr) when a value is malformed.
bool readStartOptions(const QCommandLineParser& parser, StartOptions& options, QString& error);
// The arguments (without the program) that start Hearth again as `options` says: the model, the
// conversation and a non-default database; the automation options are not repeated.
QStringList restartArguments(const StartOptions& options);

// The model to open at start, and why not when there is none to open.
struct StartModel {
    QString path;   // empty: start in the empty state
    QString notice; // for the user when a model was asked for or remembered but is not there
};
// `requested` (--model) wins; else the model used last. A path that no longer exists gives no
// model and a notice naming it; nothing is loaded.
StartModel chooseStartModel(const QString& requested, const QString& lastUsed);
