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
};

// The name of `role` in `format`; per-layer roles need `layer` >= 0. Empty where the format has
// no such tensor (HF keeps no rope_freqs).
std::string tensorName(TensorRole role, ModelFormat format, int layer = -1);

} // namespace hearth
