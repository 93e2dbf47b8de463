// Qwen3.5's Gated DeltaNet on the GPU: the short causal conv with its SiLU, the q/k L2 norms and
// the per-head gates; a decode token's conv, state update and read-out (with the gated
// RMSNorm fused after it) in one kernel; its chunked form for prefill; and the gated RMSNorm alone. The
// definitions are the CPU reference's (engine/backend/cpu/deltanet_ops.h), which the tests
// compare against. All state and activations are fp32.
#pragma once

#include "hearth_kernels/shape_limits.h"
#include <cuda_runtime.h>

#include <cstddef>

#ifdef __CUDACC__
#define HEARTH_GDN_HD __host__ __device__
#else
#define HEARTH_GDN_HD
#endif

namespace hearth::kernels {

struct GdnShape {
    int keyHeads, valueHeads, keyDim, valueDim, convKernel;
    bool tiled; // value head h reads key head h % keyHeads; else h / (valueHeads / keyHeads)
    HEARTH_GDN_HD int keyWidth() const { return keyHeads * keyDim; }
    HEARTH_GDN_HD int valueWidth() const { return valueHeads * valueDim; }
    HEARTH_GDN_HD int channels() const { return 2 * keyWidth() + valueWidth(); } // q | k | v
};

// Whether these kernels take the sizes: gdnSupports (shape_limits.h).

// For `tokens` tokens: the causal depthwise conv of the raw q|k|v projections qkv [t][ldQkv] over
// `history` ([convKernel-1][channels], the inputs before the first token, oldest first; advanced
// past the tokens), SiLU, then q and k L2-normalised per key head (q also scaled by
// 1/sqrt(keyDim)) into out [t][channels]; and per value head the gates [t][2][valueHeads]:
// beta = sigmoid(b) and the log decay negExpA * softplus(a + dtBias), from b [t][ldB], a [t][ldA].
// convWeight: [channels][convKernel].
cudaError_t launchGdnConv(const GdnShape& s, int tokens, const float* qkv, int ldQkv, const float* b, int ldB,
                          const float* a, int ldA, float* history, const float* convWeight, const float* dtBias,
                          const float* negExpA, float* out, float* gates, cudaStream_t stream, bool pdl = false);

// One decode token of the layer in one kernel: launchGdnConv's conv, norms and gates for the token
// (history advanced in place), then the delta rule on every value head's state (state
// [valueHeads][keyDim][valueDim]): S <- decay S; S <- S + k (beta (v - S^T k))^T; o = S^T q; then
// out = o / rms(o) * normWeight * silu(z) per head ([valueWidth]), and as X8 (gemv.h) too when
// outX8 is not null, for the GEMV that reads it.
struct GdnDecodeIo {
    const float* qkv;        // the token's raw q | k | v projections [channels]
    const float* z;          // [valueWidth]
    const float* b;          // [valueHeads], before the sigmoid
    const float* a;          // [valueHeads], before the softplus
    float* history;          // as launchGdnConv's
    const float* convWeight; // [channels][convKernel]
    const float* dtBias;     // [valueHeads]
    const float* negExpA;    // [valueHeads]
    float* state;
    const float* normWeight; // [valueDim]
    float* out;
    void* outX8;             // or null
    void* scratch;           // gdnDecodeScratchBytes (shape_limits.h), zeroed once; left zeroed
};
cudaError_t launchGdnDecode(const GdnShape& s, const GdnDecodeIo& io, float eps, cudaStream_t stream, bool pdl = false);

// `tokens` tokens of the same recurrence in its chunked form (chunks of 32 tokens: within a chunk
// the updates are solved as a triangular system, across chunks the state carries), state updated
// in place; out [t][valueWidth] gets the raw read-outs S^T q (the gated norm comes after).
cudaError_t launchGdnChunked(const GdnShape& s, int tokens, float* state, const float* conv, const float* gates,
                             float* out, cudaStream_t stream);

// The gated RMSNorm of every (token, value head) row of x [t][valueWidth], in place:
// x = x / rms(x) * weight * silu(z), z [t][ldZ].
cudaError_t launchGdnGatedNorm(const GdnShape& s, int tokens, float* x, const float* z, int ldZ, const float* weight,
                               float eps, cudaStream_t stream);

} // namespace hearth::kernels
