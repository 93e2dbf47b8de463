// Tiny random-weight Qwen3.5 models in Hugging Face's layout (grouped value heads, A_log,
// zero-centred norm gains) and a plain double-precision forward pass of them written from
// transformers' description, independent of the engine: the engine's CPU backend must match it
// whether it loads the HF folder or a GGUF written from it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace hearth::test {

struct Qwen35Spec {
    int vocab = 320, hidden = 64, layers = 4, heads = 2, kvHeads = 1, headDim = 32, ffn = 96;
    int keyHeads = 2, valueHeads = 4, keyDim = 16, valueDim = 16, convKernel = 4;
    int ropeDims = 8;           // partial_rotary_factor = ropeDims / headDim
    double ropeTheta = 1e7, rmsEps = 1e-6;
    bool tied = false;
    std::vector<std::string> layerTypes; // empty: every 4th layer full_attention
    bool wrapper = false;       // qwen3_5 with text_config, model.language_model.* names, plus a
                                // few vision (model.visual.*) and MTP (mtp.*) tensors
    uint64_t seed = 7;
};

struct Qwen35Tensor {
    std::string name;            // the text model's HF name (model.layers.N...)
    std::vector<int64_t> shape;  // PyTorch order
    std::vector<float> values;
};

std::vector<Qwen35Tensor> makeQwen35Tensors(const Qwen35Spec& spec);
const Qwen35Tensor* findTensor(const std::vector<Qwen35Tensor>& tensors, const std::string& name);

// config.json (transformers 5 style: rope_parameters), model.safetensors (F32) and a
// tokenizer.model; `mutate` may edit the tensors or the config before writing.
struct Qwen35Edits {
    std::function<void(std::vector<Qwen35Tensor>&)> tensors;
    std::function<void(std::string& configJson)> config;
};
void writeQwen35HfFolder(const Qwen35Spec& spec, const std::filesystem::path& folder, const Qwen35Edits& edits = {});

// Teacher-forced logits [ids x vocab] of the plain forward pass over the HF tensors.
std::vector<double> qwen35ReferenceLogits(const Qwen35Spec& spec, const std::vector<Qwen35Tensor>& tensors,
                                          const std::vector<int32_t>& ids);

} // namespace hearth::test
