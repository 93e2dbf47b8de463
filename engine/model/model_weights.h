// The weights of a loaded model: matrices as typed views (in the mapped file or in buffers the
// weights own), small vectors (norms, biases) converted to float at load.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/model_config.h"
#include "quant/types.h"

namespace hearth {

// A row-major matrix [rows = outputs, cols = inputs]; each row is `rowBytes` of `type` blocks.
struct WeightMatrix {
    std::string name;      // as stored in the source file
    std::string ggufName;  // llama.cpp's name for this role (quant presets and GGUF export use it)
    DType type = DType::F32;
    int64_t rows = 0;
    int64_t cols = 0;
    uint64_t rowBytes = 0;
    const uint8_t* data = nullptr;
    // A preset's conversion left to the device that uploads the weights (the CUDA module
    // quantizes F32/F16/BF16 rows on the GPU): `type` and `rowBytes` already say what the matrix
    // becomes, while `data` still holds rows of `deferredFrom`, `deferredRowBytes` apart. Host
    // code must not read such rows (row() is meaningless for them).
    std::optional<DType> deferredFrom;
    uint64_t deferredRowBytes = 0;
    const uint8_t* row(int64_t r) const { return data + uint64_t(r) * rowBytes; }
    uint64_t bytes() const { return rowBytes * uint64_t(rows); }
};

// The attention mixer of a layer (Mixer::Attention).
struct AttentionWeights {
    std::vector<float> norm;                // [hidden], the RMSNorm in front of the block
    WeightMatrix q, k, v, o;                // [heads*headDim, hidden] ... o: [hidden, heads*headDim];
                                            // with an output gate q is [heads*2*headDim, hidden]:
                                            // per head headDim query rows, then headDim gate rows
    std::vector<float> qBias, kBias, vBias; // empty unless the architecture has them
    std::vector<float> qNorm, kNorm;        // [headDim], empty unless qkNorm
};

// The Gated DeltaNet mixer of a layer (Mixer::GatedDeltaNet, Qwen3.5), value heads in
// config.deltaNet.order. GGUF names in brackets.
struct DeltaNetWeights {
    std::vector<float> norm;     // [hidden] the RMSNorm in front of the block (attn_norm)
    WeightMatrix qkv;            // [2*keyWidth + valueWidth, hidden]: q | k | v rows (attn_qkv)
    WeightMatrix gate;           // [valueWidth, hidden]: z, the output norm's gate (attn_gate)
    WeightMatrix beta;           // [valueHeads, hidden]: b, beta = sigmoid(b) (ssm_beta)
    WeightMatrix alpha;          // [valueHeads, hidden]: a of the decay (ssm_alpha)
    WeightMatrix out;            // [hidden, valueWidth] (ssm_out)
    std::vector<float> conv;     // [channels][convKernel] depthwise causal conv (ssm_conv1d)
    std::vector<float> dtBias;   // [valueHeads] added to a before softplus (ssm_dt.bias)
    std::vector<float> negExpA;  // [valueHeads] -exp(A_log): decay = exp(negExpA * softplus(a + dtBias)) (ssm_a)
    std::vector<float> outNorm;  // [valueDim] the gated RMSNorm's gain, shared by the heads (ssm_norm)
};

// The dense SwiGLU feed-forward block every layer ends with.
struct FfnWeights {
    std::vector<float> norm;                // [hidden]
    WeightMatrix gate, up;                  // [ffn, hidden]
    WeightMatrix down;                      // [hidden, ffn]
};

struct LayerWeights {
    Mixer mixer = Mixer::Attention;
    AttentionWeights attention;             // when mixer == Attention
    DeltaNetWeights deltaNet;               // when mixer == GatedDeltaNet
    FfnWeights ffn;

    // Every matrix of the layer's mixer and feed-forward block, in llama.cpp's file order
    // (quantize, export and tests walk them).
    std::vector<const WeightMatrix*> matrices() const;
    std::vector<WeightMatrix*> matrices();
    // Every float vector (norms, biases), for the byte count.
    std::vector<const std::vector<float>*> vectors() const;
};

struct ModelWeights {
    WeightMatrix tokenEmbedding; // [vocab, hidden]
    std::vector<LayerWeights> layers;
    std::vector<float> outputNorm;
    WeightMatrix output;         // [vocab, hidden]; same data as tokenEmbedding when tied
    // Keeps the memory behind the views alive (file mappings, converted buffers).
    std::vector<std::shared_ptr<const void>> storage;

    // Bytes of every matrix a decode step reads (the LM head once, the embedding excluded)
    // plus the embedding table itself: what the weights occupy.
    uint64_t totalBytes() const;
};

} // namespace hearth
