// Synthetic models: seeded random weights in the exact shape of a real model (Llama 3, Qwen2.5,
// Qwen3, ...) or of any Hugging Face config.json, written as a GGUF with llama.cpp's names, keys
// and per-tensor quant types. They exist so that speed and memory can be measured on real sizes
// (the LM head of a 150k vocabulary is a large share of decode cost) without downloading weights.
//
// Output is a function of (shape, layers, tokenizer, preset, seed) only: tensors are generated
// in fixed chunks, each from its own counter-based random stream, so the thread count never
// changes a byte. Tensor data is streamed to disk (a 32B model does not have to fit in memory).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hearth/status.h"
#include "model/model_config.h"
#include "quant/presets.h"
#include "quant/types.h"

namespace hearth {

struct SynthParams {
    std::string shape;          // a name from synthShapeNames(); or empty when configPath is set
    std::string configPath;     // a Hugging Face config.json: architecture and sizes from it
    int32_t layers = 0;         // > 0 replaces the shape's layer count (small files of big widths)
    std::string tokenizerPath;  // optional: tokenizer.model (SentencePiece) or tokenizer.json (BPE)
    std::string tokenizerPre;   // tokenizer.json only: tokenizer.ggml.pre; empty = from its regex
    QuantPreset preset = QuantPreset::F32;
    uint64_t seed = 0;
    int32_t threads = 0;        // 0 = all hardware threads; never changes the output
    std::string outputPath;
    // Test hook: write the header and leave random tensor data as holes (a sparse file reading
    // as zeros; computed ones such as rope_freqs are still written), so that a full-size layout
    // can be opened and inspected without writing gigabytes.
    bool skipTensorData = false;
    // A config already resolved (sizes and the architecture's conventions set), used instead of
    // shape and configPath: the memory estimate plans the tensors of a shape that has no file.
    std::optional<ModelConfig> config;
};

// Built-in shapes: real models' hyperparameters, plus small test shapes with widths that are
// multiples of 256 (so every quant type applies without fallbacks).
std::vector<std::string> synthShapeNames();
std::string synthShapeList(); // "llama-3-8b, llama-3.1-8b, ..." for messages
// The shape's config, or InvalidArgument naming the known shapes.
Result<ModelConfig> synthShapeConfig(const std::string& name);

enum class SynthFill {
    Weights, // ~N(0, 0.02) in the tensor's type
    Norm,    // 1 + N(0, 0.02), F32
    Bias,    // N(0, 0.02), F32
    Fixed,   // `fixedValues` (rope_freqs.weight), F32
};

struct SynthTensor {
    std::string name;
    DType type = DType::F32;
    std::vector<uint64_t> ne;   // ggml order: ne[0] is the row length
    SynthFill fill = SynthFill::Weights;
    std::vector<float> fixedValues;
    uint64_t offset = 0;        // in the data blob, aligned to 32
    uint64_t bytes = 0;
    int64_t rowLength() const { return int64_t(ne[0]); }
    int64_t rows() const;
};

// What will be written: the resolved config (layers override applied) and every tensor with
// its type (from PresetPlanner), shape and offset.
struct SynthPlan {
    std::string shapeName;      // the shape, or the config's folder name
    ModelConfig config;
    std::vector<SynthTensor> tensors;
    uint64_t dataBytes = 0;     // the tensor data blob, padding included
    uint64_t parameterCount = 0;
};

// Resolves the shape and plans tensors and types; reads nothing but config.json.
// Errors: InvalidArgument (unknown shape, both or neither of shape/config, bad layers),
// NotFound/DataLoss/Unsupported from config.json.
Result<SynthPlan> planSynthModel(const SynthParams& params);

struct SynthSummary {
    SynthPlan plan;
    uint64_t fileBytes = 0;
    double seconds = 0;
};

// Plans, builds the metadata (tokenizer included) and writes params.outputPath atomically
// (OUT.part, fsync, rename): on any error neither OUT nor OUT.part is left behind.
Status writeSynthModel(const SynthParams& params, SynthSummary* summary = nullptr);

} // namespace hearth
