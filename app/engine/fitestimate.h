// Will a model fit, and how much context would: the engine's memory estimate (headers only) on
// the chosen device, with the memory a load would free first counted as free. Any thread.
#pragma once

#include <QString>

#include "enginetypes.h"
#include "hearth/model.h"

struct FitEstimate {
    bool ok = false;
    QString error;            // why there is no estimate (the engine's words)
    int context = 0;          // the context the estimate is for
    quint64 totalBytes = 0;   // weights, KV cache, recurrent state, workspace at `context`
    quint64 weightsBytes = 0;
    bool fits = false;
    int maxContext = 0;       // the largest context that fits (a multiple of 256 when it can be); 0: none
    hearth::DeviceKind device = hearth::DeviceKind::Cpu;
    QString deviceName;
    // CPU only: the most tokens per second a decode can reach, this machine's measured read
    // bandwidth over the bytes a token reads at half the context (as the library's speed class);
    // the CPU's fast kernels reach about 55-75 % of it (docs/PERFORMANCE.md). 0: not the CPU.
    double tokensPerSecond = 0;
};

struct FitQuery {
    QString path;
    int context = 0;          // 0: the model's own, capped at 4096 as a session does
    int trainedContext = 0;   // the model's maximum (ModelFacts::contextLength)
    DeviceChoice device = DeviceChoice::Auto;
    quint64 freedBytes = 0;   // what the model loaded now holds (a load releases it first)
    QString quant;            // a preset applied at load (the engine sizes its weights); empty: as stored
    hearth::KvType kvType = hearth::KvType::F16;
    quint64 budgetBytes = 0;  // on a GPU, the most Hearth may use (the VRAM budget); 0: all free memory
};

FitEstimate estimateFit(const FitQuery& query);
// The same from the model's header already read (query.path is not read again): a caller asking
// about several presets of one file reads it once.
FitEstimate estimateFit(const FitQuery& query, const hearth::ModelHeader& header);
