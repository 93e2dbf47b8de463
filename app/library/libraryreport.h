// `hearth --list-models`: the library as one JSON document for scripts. The local models (the
// models folder and the files the user opened, described by the engine with their fit) and every
// catalog variant with its size, licence, whether it is downloaded and its fit on the chosen
// device, with the recommended quant per family. Runs synchronously (a command-line answer);
// "schemaVersion" versions the document's layout.
#pragma once

#include <QJsonObject>
#include <QStringList>

#include "enginetypes.h"

class AppSettings;

struct LibraryReportOptions {
    QString catalogPath;     // the setting; HEARTH_CATALOG wins, empty: the built-in catalog
    QString folder;          // the models folder
    QStringList addedPaths;  // files and folders the user opened
    DeviceChoice device = DeviceChoice::Auto;
    int gpu = 0;
    int context = 0;         // 0: the model's own, capped at 4096
    hearth::KvType kvType = hearth::KvType::F16;
    quint64 budgetBytes = 0;
};
inline constexpr int kLibraryReportVersion = 1;

LibraryReportOptions reportOptionsFrom(const AppSettings& settings);
// The report; `ok` is false when the catalog could not be read (the report says why).
QJsonObject libraryReport(const LibraryReportOptions& options, bool* ok = nullptr);
