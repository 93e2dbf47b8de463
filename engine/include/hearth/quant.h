// Quant presets: the tensor type mixes a model can be converted to at load (ModelParams::quant)
// or by hearth-cli quantize, and what a preset would make of a given model before anything is
// converted. Qt-free; every call may be made from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "hearth/status.h"

namespace hearth {

struct QuantPresetInfo {
    std::string name;   // "F32", "F16", "BF16", "Q8_0", ..., "Q4_K_M" (accepted in any case)
    bool quantized = false; // block-quantized (false for the 32/16-bit presets)
};

// Every preset, the 32/16-bit ones first.
std::vector<QuantPresetInfo> quantPresets();

struct QuantPlan {
    std::string preset;                          // the preset's canonical name
    uint64_t weightsBytes = 0;                   // every weight tensor after conversion
    std::map<std::string, int> tensorTypeCounts; // every tensor of the model after conversion
    // Some already-quantized tensor would become another type (loses quality; Model::load and
    // quantizeModel refuse it unless allowRequantize).
    bool requantizes = false;
};

// What `preset` would make of the model at `modelPath` (a .gguf file or a Hugging Face folder),
// planned from its tensor table alone (no tensor data is read). Errors: InvalidArgument (unknown
// preset, listing the valid names); otherwise as for Model::load.
Result<QuantPlan> planQuantPreset(const std::string& modelPath, const std::string& preset);

struct QuantizeParams {
    std::string inputPath;            // a .gguf file or a Hugging Face folder
    std::string outputPath;           // the GGUF to write (llama.cpp reads it)
    std::string preset;               // a quantPresets() name
    bool allowRequantize = false;     // see QuantPlan::requantizes
    int32_t threads = 0;              // 0 = all hardware threads
    // Fraction done in [0, 1], on the calling thread: 0 first, 1 once the file is in place.
    std::function<void(double fraction)> onProgress;
    // Set from any thread to stop (checked between tensors and before writing): Cancelled.
    const std::atomic<bool>* cancel = nullptr;
};

struct QuantizeResult {
    std::string preset;                          // canonical name
    std::map<std::string, int> tensorTypeCounts; // of the written file
    uint64_t weightsBytes = 0;
    uint64_t fileBytes = 0;
};

// Converts the model to `preset` and writes it to outputPath atomically: on any error or
// cancellation no file is left there. Errors: as for Model::load (FailedPrecondition when it
// would re-quantize and allowRequantize is off; Cancelled); the output's file errors.
Result<QuantizeResult> quantizeModel(const QuantizeParams& params);

} // namespace hearth
