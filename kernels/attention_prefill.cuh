// The tensor-core prefill attention (attention_prefill.cu), which launchAttention chooses for the
// calls it takes: many queries from the host's position, one key range, a 16-bit cache and a head
// size of 64, 128 or 256. Everything else runs attention.cu's fp32 kernels.
#pragma once

#include "hearth_kernels/ops.h"

namespace hearth::kernels::detail {

// Fewer queries than this fill too little of a 64-query tile to beat the fp32 kernel.
constexpr int kFlashPrefillMinTokens = 16;

bool flashPrefillTakes(const AttentionCall& call);
cudaError_t launchFlashPrefill(const AttentionCall& call, cudaStream_t stream);

} // namespace hearth::kernels::detail
