// What a model is, independent of the file it came from: architecture, sizes and every
// convention the forward pass must honour (RoPE pairing and scaling, biases, q/k norms, ties).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hearth {

enum class Architecture { Llama, Qwen2, Qwen3 };
const char* architectureName(Architecture arch);

enum class ModelFormat { Gguf, HuggingFace };

// What mixes tokens in a layer. Qwen3.5's Gated DeltaNet joins attention here; every layer's
// feed-forward block is a dense SwiGLU (gate, up, down) for the architectures Hearth runs.
enum class Mixer { Attention };
const char* mixerName(Mixer mixer);

struct LayerKind {
    Mixer mixer = Mixer::Attention;
};

// Which dimensions RoPE rotates together inside a head.
enum class RopePairing {
    Adjacent,   // (2i, 2i+1): GGUF llama, whose converter permuted Q/K rows (llama.cpp "norm")
    RotateHalf, // (i, i + d/2): HF llama and every qwen (llama.cpp "neox")
};

enum class RopeScaling { None, Linear, Llama3, Yarn };
const char* ropeScalingName(RopeScaling scaling);

struct RopeParams {
    float theta = 10000.0f;         // base frequency
    int32_t dims = 0;               // rotated dimensions per head: head_dim, or fewer (partial
                                    // rotary: the first `dims` of each head rotate, the rest pass)
    RopePairing pairing = RopePairing::RotateHalf;
    RopeScaling scaling = RopeScaling::None;
    float factor = 1.0f;            // linear / llama3 / yarn scale factor
    int32_t originalContext = 0;    // llama3 and yarn: pre-extension context length
    float lowFreqFactor = 1.0f;     // llama3
    float highFreqFactor = 4.0f;    // llama3
    float yarnBetaFast = 32.0f;     // yarn ramp bounds (in rotations)
    float yarnBetaSlow = 1.0f;
    float yarnAttentionFactor = 0.0f; // yarn: cos/sin scale; 0 = derived from factor (0.1 ln s + 1)
    std::vector<float> freqFactors; // GGUF rope_freqs.weight: each frequency is divided by it
};

// Per-pair inverse frequencies (dims/2 values) after scaling, and the factor cos/sin are
// multiplied by (yarn's attention scaling; 1 otherwise).
struct RopeTable {
    std::vector<float> inverseFrequencies;
    float magnitude = 1.0f;
};
RopeTable computeRopeTable(const RopeParams& rope);

struct ModelConfig {
    Architecture arch = Architecture::Llama;
    std::string name;
    std::string license;  // GGUF general.license, or a HF README.md's front matter; empty: unknown
    int32_t vocabSize = 0;
    int32_t hidden = 0;
    int32_t layers = 0;
    int32_t heads = 0;
    int32_t kvHeads = 0;
    int32_t headDim = 0;
    int32_t ffn = 0;
    int32_t contextLength = 0;      // the model's trained maximum
    float rmsEps = 1e-5f;
    bool attnBias = false;          // q/k/v biases (qwen2)
    bool qkNorm = false;            // per-head RMSNorm of q and k before RoPE (qwen3)
    bool tiedEmbeddings = false;    // the LM head is token_embd
    RopeParams rope;
    std::vector<LayerKind> layerKinds; // one per layer

    bool isAttention(int32_t layer) const { return layerKinds[size_t(layer)].mixer == Mixer::Attention; }
    int32_t attentionLayerCount() const; // the layers that keep a KV cache
};

} // namespace hearth
