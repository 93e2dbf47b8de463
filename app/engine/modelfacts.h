// What a model file is, in the app's terms: the engine's describeModelFile plus the file's size,
// a quant label and whether the weights are a 16/32-bit source that every preset can be made
// from. Reads headers only; call it off the GUI thread (a large sharded folder takes a moment).
#pragma once

#include <QJsonObject>
#include <QString>

#include <cstdint>
#include <map>
#include <string>

#include "hearth/model.h"
#include "hearth/status.h"

struct ModelFacts {
    QString path, name, format, architecture, license; // license: empty when the file does not say
    QString quant;              // "Q4_K_M", "F16", ...: the preset whose types the file has, else its main type
    QString tensorTypes;        // "Q4_K 98 · Q6_K 12 · F32 65": tensors per type, most first
    bool fullPrecision = false; // every tensor F32, F16 or BF16
    quint64 parameterCount = 0;
    quint64 fileBytes = 0;      // the file, or a folder's files
    int contextLength = 0;      // trained maximum (what RoPE scaling reaches, when more)
    // The shape: two files are the same model in another quant when these agree.
    QString architectureKey;    // "llama/v320/h64/l2/a4/k2/d16/f96"
    // The sampling the model's files recommend, under a conversation's keys (chat::samplingFromJson:
    // temperature, top_k, top_p, min_p, repetition_penalty); empty: they say nothing.
    QJsonObject sampling;
    QString samplingProblems;   // recommended values left out and why (hearth::SamplingDefaults::problems)
};

hearth::Result<ModelFacts> describeModelFacts(const QString& path);
// The same from a description already at hand (a loaded model's info()).
ModelFacts modelFacts(const QString& path, const hearth::ModelInfo& info);
// The same from the model's header already read (the file is not read again).
ModelFacts modelFacts(const QString& path, const hearth::ModelHeader& header);

// The preset whose plan matches `typeCounts` for the model at `path`, else the most common
// matrix type ("Q4_K", "F16"); "F32" for an all-F32 model.
QString quantLabel(const QString& path, const std::map<std::string, int>& typeCounts);
QString quantLabel(const hearth::ModelHeader& header, const std::map<std::string, int>& typeCounts);
bool isFullPrecision(const std::map<std::string, int>& typeCounts);
// The recommendation under a conversation's keys, each value as its file wrote it (0.95, not
// the float's 0.949999988).
QJsonObject samplingJson(const hearth::SamplingDefaults& defaults);
// 260000 -> "260K", 8190000000 -> "8.2B".
QString formatParameterCount(quint64 count);
