// The tensor names of each weight role, in GGUF (llama.cpp's names) and in Hugging Face
// checkpoints: the one table loading, export and synth read.
#pragma once

#include <string>

#include "model/model_config.h"

namespace hearth {

enum class TensorRole {
    TokenEmbedding, OutputNorm, Output, RopeFreqs, // whole-model tensors
    AttnNorm, Q, K, V, O, QBias, KBias, VBias, QNorm, KNorm, // attention (per layer)
    FfnNorm, Gate, Up, Down,                        // feed-forward (per layer)
    PostAttnNorm,                                   // qwen35's name for the feed-forward norm
    DeltaQkv, DeltaGate, DeltaBeta, DeltaAlpha, DeltaOut, // Gated DeltaNet (per layer)
    DeltaConv, DeltaDtBias, DeltaA, DeltaNorm,
};

// The name of `role` in `format`; per-layer roles need `layer` >= 0. Empty where the format has
// no such tensor (HF keeps no rope_freqs).
std::string tensorName(TensorRole role, ModelFormat format, int layer = -1);

// The role of the RMSNorm in front of the feed-forward block: llama.cpp names it
// post_attention_norm for qwen35 and ffn_norm elsewhere (HF: post_attention_layernorm).
TensorRole ffnNormRole(const ModelConfig& config);

} // namespace hearth
