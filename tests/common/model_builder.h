// Tiny random-weight models of each supported architecture, written both as GGUF (llama.cpp
// names, Q/K rows permuted to adjacent pairs for llama) and as a Hugging Face folder
// (config.json + model.safetensors + tokenizer.model), so tests can compare the two layouts.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "quant/types.h"

namespace hearth::test {

struct TinyModelSpec {
    std::string arch = "llama";   // "llama", "qwen2", "qwen3"
    DType type = DType::F32;      // matrices: F32, F16 or BF16
    bool tied = false;
    int vocab = 320, hidden = 64, layers = 2, heads = 4, kvHeads = 2, headDim = 16, ffn = 96;
    int context = 256;
    float ropeTheta = 10000.0f;
    uint64_t seed = 1;
    // Extra GGUF metadata (e.g. "llama.rope.scaling.type") written after the standard keys.
    std::map<std::string, std::string> extraStringKeys;
    std::map<std::string, float> extraFloatKeys;
    std::map<std::string, uint32_t> extraUIntKeys;
};

struct TinyTensor {
    std::string ggufName, hfName;
    std::vector<int64_t> shape;  // PyTorch order [out, in] or [n]
    std::vector<float> values;
};

// The tensors of the model in HF layout (rotate-half Q/K), before any file is written.
std::vector<TinyTensor> makeTinyTensors(const TinyModelSpec& spec);

// Writes a GGUF; `mutate` may edit the tensor list (wrong shapes, missing tensors) before writing.
void writeTinyGguf(const TinyModelSpec& spec, const std::filesystem::path& path,
                   const std::function<void(std::vector<TinyTensor>&)>& mutate = {});
// Writes config.json, generation_config.json, model.safetensors and tokenizer.model.
void writeTinyHfFolder(const TinyModelSpec& spec, const std::filesystem::path& folder);
// Writes only tokenizer.model (the vocabulary above as SentencePiece) into `folder`.
void writeTinyTokenizerModel(const std::filesystem::path& folder, int vocab);

} // namespace hearth::test
