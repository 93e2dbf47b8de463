// Finding models on disk and working out their facts, fit and quant options for LocalModels.
// The functions read files (headers only): they run on LocalModels' worker pool.
#pragma once

#include <QList>
#include <QString>
#include <QStringList>

#include "fitestimate.h"
#include "modelfacts.h"
#include "quantoptions.h"

struct ModelEntry {
    QString path;
    bool userAdded = false;  // opened by the user, not found in the models folder
    bool ready = false;      // described (facts or error)
    QString error;           // the file could not be described: the engine's words
    ModelFacts facts;
    FitEstimate fit;
};

// Where the fit is asked about: the context, the device, and the memory a load frees first.
struct FitSettings {
    int context = 0;
    DeviceChoice device = DeviceChoice::Auto;
    quint64 freedBytes = 0;
    hearth::KvType kvType = hearth::KvType::F16;
    quint64 budgetBytes = 0; // the VRAM budget; 0: none
};

// .gguf files and Hugging Face folders (config.json and *.safetensors) in `folder` and in its
// folders up to two levels down, sorted; of a split GGUF (-0000k-of-0000n) only its first part.
QStringList findModelPaths(const QString& folder);

// Describes `entry.path` and estimates its fit; fills facts, fit, error and ready.
void describeEntry(ModelEntry& entry, const FitSettings& settings);

// Every preset that converts the 16/32-bit source `facts` without re-quantizing, with its fit.
QList<QuantOption> presetOptions(const ModelFacts& facts, const QString& loadedQuant, const FitSettings& settings);
// The described files in `entries` of the same model as `loaded` (itself included, as current).
QList<QuantOption> fileOptions(const QList<ModelEntry>& entries, const ModelFacts& loaded);
