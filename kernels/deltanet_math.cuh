// The Gated DeltaNet's per-element definitions, one copy for the prefill kernels (deltanet.cu,
// deltanet_chunk.cu) and the decode kernel (deltanet_decode.cu), as the CPU reference defines them
// (engine/backend/cpu/deltanet_ops.h).
#pragma once

#include "activations.cuh"
#include "hearth_kernels/deltanet.h"

namespace hearth::kernels::detail {

constexpr float kGdnL2Eps = 1e-6f; // the q/k L2 norm's epsilon (transformers' and FLA's l2norm)

__device__ __forceinline__ float softplusOf(float x) { return x > 20.0f ? x : log1pf(expf(x)); }

// A value head's gates from its raw projections: beta = sigmoid(b), and the log of its decay,
// negExpA · softplus(a + dtBias).
__device__ __forceinline__ float gdnBeta(float b) { return sigmoidOf(b); }
__device__ __forceinline__ float gdnLogDecay(float a, float dtBias, float negExpA) {
    return negExpA * softplusOf(a + dtBias);
}

// The key head value head h reads (GdnShape::tiled says which order the heads are in).
__device__ __forceinline__ int keyHeadOf(const GdnShape& s, int h) {
    return s.tiled ? h % s.keyHeads : h / (s.valueHeads / s.keyHeads);
}

} // namespace hearth::kernels::detail
