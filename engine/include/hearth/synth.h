// Test models: seeded random weights in the exact shape of a real model (Llama 3, Qwen2.5,
// Qwen3, ...) or of any Hugging Face config.json, written as a GGUF file that llama.cpp and
// Model::load read. They let speed and memory be measured at real sizes without downloading
// weights (what hearth-cli synth writes). Qt-free; any thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "hearth/status.h"

namespace hearth {

// The built-in shapes' names: real models' hyperparameters ("llama-3-8b", "qwen3-32b", ...) and
// small test shapes ("tiny-llama", ...) whose widths every quant type applies to.
std::vector<std::string> synthShapes();

struct SynthModelParams {
    std::string shape;          // a synthShapes() name; or empty when configPath is set
    std::string configPath;     // a Hugging Face config.json: architecture and sizes from it
    std::string preset = "F32"; // the weights' types: a quantPresets() name (hearth/quant.h)
    uint64_t seed = 0;          // the same parameters and seed give the same bytes
    int32_t layers = 0;         // 1..4096 replaces the shape's layer count; 0 keeps it
    // Optional: a real tokenizer.model (SentencePiece) or tokenizer.json (byte-level BPE), padded
    // to the shape's vocabulary; without one, a placeholder vocabulary of that size.
    std::string tokenizerPath;
    std::string tokenizerPre;   // tokenizer.json only: its pre-tokenizer name; empty = from its regex
    int32_t threads = 0;        // 0 = all hardware threads; never changes the output
    std::string outputPath;     // the GGUF to write
};

struct SynthModelResult {
    std::string shape;          // the shape, or the config's model name
    std::string name;           // general.name as written
    std::string architecture;   // "llama", "qwen2", "qwen3"
    std::string preset;         // the preset's canonical name
    int32_t layers = 0;
    int32_t vocabSize = 0;
    uint64_t parameterCount = 0;
    int32_t tensorCount = 0;
    std::map<std::string, int> tensorTypeCounts; // "Q8_0" -> 29
    uint64_t fileBytes = 0;
    double seconds = 0;         // wall time of the whole call
};

// Writes the model to outputPath atomically: on any error nothing is left there (nor a .part
// file beside it). Errors: InvalidArgument (unknown shape or preset, naming the valid ones; both
// or neither of shape and configPath; layers out of range; a tokenizer larger than the
// vocabulary; an output folder that does not exist); NotFound, DataLoss or Unsupported from
// config.json or the tokenizer file.
Result<SynthModelResult> synthesizeModel(const SynthModelParams& params);

} // namespace hearth
