// The two value-head orders of Gated DeltaNet weights (ModelConfig::deltaNet.order): Hugging Face
// keeps the value heads of a key head together, llama.cpp's GGUF cycles through the key heads.
#pragma once

#include <string>

#include "hearth/status.h"
#include "model/model_config.h"
#include "model/model_weights.h"

namespace hearth {

// The tiled position of grouped value head `groupedHead`: grouped head k*r + v (key head k, its
// v-th value head, r = valueHeads / keyHeads) is tiled head v*keyHeads + k.
int32_t tiledHeadOf(const DeltaNetDims& d, int32_t groupedHead);

// Rewrites the weights from grouped to tiled order as llama.cpp's converter does — the V rows of
// qkv, the rows of z, b and a, the V channels of the conv, dt_bias and -exp(A_log), and the
// input columns of out — into buffers the weights own, and sets the order to Tiled. Nothing to do
// for a tiled model. The columns of `out` move by element, so it must be F32, F16 or BF16
// (FailedPrecondition naming the tensor otherwise: reorder before quantizing).
Status reorderValueHeadsToTiled(ModelConfig& config, ModelWeights& weights, const std::string& where);

} // namespace hearth
