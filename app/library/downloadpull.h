// `hearth --pull FAMILY:QUANT`: downloads a catalog variant without a window, with the same
// queue, resume and verification as the app (a download the app or an earlier pull left is
// resumed from its .part). Progress goes to stderr, the model's path to stdout. Exit code: 0 only
// when the model is verified and in the models folder; 2 for a spec the catalog does not offer;
// 1 for anything else.
#pragma once

#include <QByteArray>
#include <QString>

struct PullSetup {
    QString databasePath;   // the history file that keeps the download's state; empty: the default
    QString modelsFolder;
    QString catalogSetting; // AppSettings::catalogPath (HEARTH_CATALOG wins)
    QString endpointSetting; // AppSettings::hfEndpoint (HEARTH_HF_ENDPOINT wins)
    QByteArray token;       // Hugging Face token (HF_TOKEN, or the keyring's)
};

// Runs in the caller's QCoreApplication until the download ends.
int pullModel(const QString& spec, const PullSetup& setup);
