// What a model is, independent of the file it came from: architecture, sizes and every
// convention the forward pass must honour (RoPE pairing and scaling, biases, q/k norms, ties).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hearth {

enum class Architecture { Llama, Qwen2, Qwen3, Qwen35 };
const char* architectureName(Architecture arch);

enum class ModelFormat { Gguf, HuggingFace };

// What mixes tokens in a layer: softmax attention with a KV cache, or Qwen3.5's Gated DeltaNet
// (linear attention with a fixed-size recurrent state). Every layer's feed-forward block is a
// dense SwiGLU (gate, up, down) for the architectures Hearth runs.
enum class Mixer { Attention, GatedDeltaNet };
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

// The sampling the model's makers recommend (model/sampling_defaults.h reads it); an empty field:
// the files do not say.
struct SamplingHints {
    std::optional<float> temperature;       // >= 0; 0: greedy
    std::optional<int32_t> topK;            // >= 0; 0: off
    std::optional<float> topP;              // in (0, 1]
    std::optional<float> minP;              // in [0, 1]
    std::optional<float> repetitionPenalty; // > 0; 1: off
    std::string problems;                   // values left out and why, "; "-separated; empty: none
};

// Which key head a Gated DeltaNet value head reads. Hugging Face keeps the value heads of one key
// head together; llama.cpp's converter reorders them so that the key heads repeat in a cycle.
enum class ValueHeadOrder {
    Grouped, // HF: value head h reads key head h / (valueHeads / keyHeads)
    Tiled,   // GGUF: value head h reads key head h % keyHeads
};

// The sizes of the Gated DeltaNet layers (Qwen3.5's linear attention).
struct DeltaNetDims {
    int32_t keyHeads = 0;   // query/key heads (GGUF ssm.group_count)
    int32_t valueHeads = 0; // value heads, a multiple of keyHeads (GGUF ssm.time_step_rank)
    int32_t keyDim = 0;     // per key head (GGUF ssm.state_size)
    int32_t valueDim = 0;   // per value head (GGUF ssm.inner_size / valueHeads)
    int32_t convKernel = 0; // the causal depthwise conv's width (GGUF ssm.conv_kernel)
    ValueHeadOrder order = ValueHeadOrder::Grouped;

    int64_t keyWidth() const { return int64_t(keyHeads) * keyDim; }
    int64_t valueWidth() const { return int64_t(valueHeads) * valueDim; }
    int64_t convChannels() const { return 2 * keyWidth() + valueWidth(); } // q | k | v
    int32_t keyHeadOf(int32_t valueHead) const {
        return order == ValueHeadOrder::Tiled ? valueHead % keyHeads : valueHead / (valueHeads / keyHeads);
    }
    // One layer's recurrent state: a keyDim x valueDim fp32 matrix per value head, and the conv's
    // last convKernel - 1 inputs per channel (fp32).
    uint64_t stateBytes() const {
        return (uint64_t(valueHeads) * keyDim * valueDim + uint64_t(convKernel - 1) * convChannels()) * sizeof(float);
    }
};

struct ModelConfig {
    Architecture arch = Architecture::Llama;
    std::string name;
    std::string license;  // GGUF general.license, or a HF README.md's front matter; empty: unknown
    SamplingHints sampling;
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
    bool attnOutputGate = false;    // q_proj gives each head [query | gate]; output *= sigmoid(gate) (qwen35)
    // The file stores RMSNorm gains as w for a norm that multiplies by 1 + w (Qwen3.5 in HF form;
    // its GGUF stores 1 + w): the loader adds the 1, so the forward pass always multiplies by
    // the stored-then-loaded gain. The Gated DeltaNet's output norm is plain in both.
    bool unitOffsetNorms = false;
    RopeParams rope;
    std::vector<int32_t> ropeSections; // GGUF rope.dimension_sections (Qwen3.5's mRoPE; for text
                                       // all sections see the same position: plain partial RoPE)
    DeltaNetDims deltaNet;          // when any layer is Mixer::GatedDeltaNet
    std::vector<LayerKind> layerKinds; // one per layer
    // What loading left out on purpose (a vision tower, an MTP block), for `inspect` and the app.
    std::vector<std::string> notes;

    bool isAttention(int32_t layer) const { return layerKinds[size_t(layer)].mixer == Mixer::Attention; }
    int32_t attentionLayerCount() const; // the layers that keep a KV cache
    int32_t deltaNetLayerCount() const;  // the layers that keep a recurrent state
    // The recurrent + conv state of every Gated DeltaNet layer (0 for attention-only models).
    uint64_t recurrentStateBytes() const { return uint64_t(deltaNetLayerCount()) * deltaNet.stateBytes(); }
};

} // namespace hearth
