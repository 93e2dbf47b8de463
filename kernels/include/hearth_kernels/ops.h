// The kernels of a forward pass other than the batch-1 GEMV (gemv.h): dequantization, RMSNorm,
// the q/k post-processing with the KV-cache write, attention, and small element-wise steps.
// Launchers take raw device pointers, shapes and a stream, allocate nothing and return the
// launch's cudaError_t (cudaErrorInvalidValue, launching nothing, for a call they do not take).
//
// Decode kernels read the token and the position from device memory (`const int*`), so one
// captured CUDA graph serves every step: the host writes both before replaying it.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "hearth_kernels/gemv.h"

namespace hearth::kernels {

// ---- dequantization (weights in their device layout: GGUF's or the GEMV repack) ----------

// out[r][c] = W[row0 + r][c] for r < rows, as fp32 or fp16 (ld = k).
cudaError_t launchDequantizeRows(GemvType type, const void* w, int n, int k, int row0, int rows, float* out,
                                 cudaStream_t stream);
cudaError_t launchDequantizeRows(GemvType type, const void* w, int n, int k, int row0, int rows, __half* out,
                                 cudaStream_t stream);
// out[t][c] = W[tokens[t]][c] for t < count (the embedding lookup); ids outside [0, n) give 0.
cudaError_t launchEmbed(GemvType type, const void* w, int n, int k, const int* tokens, int count, float* out,
                        cudaStream_t stream);

// ---- RMSNorm ------------------------------------------------------------------------------

// Where a normalised row goes: any of the three forms (null: not written). x8 rows are
// gemvX8Bytes(n) apart; f32/f16 rows n apart.
struct NormOut {
    float* f32 = nullptr;
    __half* f16 = nullptr;
    void* x8 = nullptr;
};
// For each of `rows` rows of n: x += delta (when delta is not null), then out = x / rms(x) · w.
// pdl: launched as a programmatic dependent (sm_90+), overlapping its start with the kernel before.
cudaError_t launchRmsNorm(float* x, const float* delta, const float* w, int n, int rows, float eps,
                          const NormOut& out, cudaStream_t stream, bool pdl = false);

// ---- q/k post-processing, RoPE and the KV-cache write -------------------------------------

enum class KvType { F32, F16, BF16 };
size_t kvTypeBytes(KvType type);

struct QkvShape {
    int heads, kvHeads, headDim;
    int ropeDims;             // rotated dimensions per head (<= headDim, even)
    bool ropeAdjacent;        // pairs (2i, 2i+1); else (i, i + ropeDims/2)
    const float* invFreq;     // [ropeDims/2] device
    float ropeMagnitude;      // cos/sin scale (yarn), 1 otherwise
    float eps;                // q/k norm epsilon
};
// For `tokens` consecutive tokens at positions pos0 + t (pos0 = *posDevice when posDevice is not
// null, else posHost): q [t][heads·headDim] fp32 and k, v [t][kvHeads·headDim] fp32 (the
// projections). Adds the biases (null: none), applies the per-head q/k RMSNorm (null: none) and
// RoPE to q in place, and writes k and v into the cache rows pos0 + t ([ctx][kvHeads·headDim]
// of kvType).
cudaError_t launchQkvToCache(float* q, const float* k, const float* v, const float* qBias, const float* kBias,
                             const float* vBias, const float* qNorm, const float* kNorm, const QkvShape& shape,
                             int tokens, const int* posDevice, int posHost, KvType kvType, void* kCache,
                             void* vCache, cudaStream_t stream, bool pdl = false);

// The same for Qwen3.5's gated attention, whose q projection gives each head [query | gate]
// (qGate [t][heads][2·headDim]): the queries go to q [t][heads·headDim] (normed, rotated) and the
// gates, untouched, to gate [t][heads·headDim]; no biases.
cudaError_t launchGatedQkvToCache(const float* qGate, float* q, float* gate, const float* k, const float* v,
                                  const float* qNorm, const float* kNorm, const QkvShape& shape, int tokens,
                                  const int* posDevice, int posHost, KvType kvType, void* kCache, void* vCache,
                                  cudaStream_t stream, bool pdl = false);

// ---- attention ----------------------------------------------------------------------------

// Causal attention of `tokens` queries at positions pos0 + t over the cache rows 0..pos0 + t,
// q [t][heads·headDim], out [t][heads·headDim] fp32. The keys of each query are cut into up to
// `splits` ranges of at most `splitKeys` (splits · splitKeys >= the context; with several
// splits, the query's keys are spread evenly over them in multiples of 64), each reduced to a partial
// (max, sum, unnormalised output) with an online softmax and combined by log-sum-exp, so a
// query at position 0 and one at 32k take the same kernels. Each KV head is read once for all
// the query heads sharing it. partial: attentionPartialBytes of workspace. A prefill call (16 or
// more queries from posHost, one range) over an F16/BF16 cache with heads of 64, 128 or 256 runs on
// the tensor cores instead: q and the softmax weights rounded to the cache's type, fp32 sums.
struct AttentionCall {
    const float* q;
    const void* kCache;
    const void* vCache;
    float* out;
    int heads, kvHeads, headDim;
    int tokens;
    const int* posDevice; // pos0 from the device when not null, else posHost
    int posHost;
    int splits, splitKeys;
    KvType kvType;
    void* partial;
    bool pdl = false; // both kernels launched as programmatic dependents (pdl.cuh; decode)
    // The decode step's epilogue, in the combine kernel (one launch each fewer a layer): only with
    // tokens == 1, and outX8 only with headDim a multiple of 32 (launchAttention refuses others).
    const float* gate = nullptr; // gated attention: out *= sigmoid(gate), element by element
    void* outX8 = nullptr;       // out also as X8 (gemv.h, k = heads·headDim): the o GEMV's input
    int waveSplits = 0; // set by launchAttention for decode: at most this many ranges in use
};
size_t attentionPartialBytes(int tokens, int heads, int headDim, int splits);
cudaError_t launchAttention(const AttentionCall& call, cudaStream_t stream);

// ---- element-wise -------------------------------------------------------------------------

// out[i] = silu(gate[i]) · up[i] for count values, as fp32 or fp16.
cudaError_t launchSiluMul(const float* gate, const float* up, size_t count, float* out, cudaStream_t stream);
cudaError_t launchSiluMul(const float* gate, const float* up, size_t count, __half* out, cudaStream_t stream);
// x[i] *= sigmoid(gate[i]) for count values (gated attention's output gate).
cudaError_t launchSigmoidGate(float* x, const float* gate, size_t count, cudaStream_t stream);
// fp32 -> fp16, count values.
cudaError_t launchToHalf(const float* in, size_t count, __half* out, cudaStream_t stream);
// x[r][c] += bias[c] for rows × cols.
cudaError_t launchAddBias(float* x, const float* bias, int rows, int cols, cudaStream_t stream);
// *out = the index of the largest of n values (the lowest among equal maxima; NaN counts as
// -inf; 0 when every value is -inf/NaN), as the CPU sampler's greedy rule.
cudaError_t launchArgmax(const float* x, int n, int* out, cudaStream_t stream, bool pdl = false);

// ---- sampling (the CPU sampler's definitions: engine/sampling/sampler.h) ------------------

// out = logits with NaN -> -inf, +inf -> FLT_MAX and -0 -> +0, then each of the `count` distinct
// `ids` penalised: l > 0 ? l / penalty : l * penalty.
cudaError_t launchPenalise(const float* logits, int n, const int* ids, int count, float penalty, float* out,
                           cudaStream_t stream);
// All n (logit, id) pairs sorted best first, ties by the lower id (a stable radix sort).
size_t sortScratchBytes(int n);
cudaError_t launchSortDescending(const float* logits, int n, float* sortedLogits, int* sortedIds, void* scratch,
                                 size_t scratchBytes, cudaStream_t stream);

// ---- test-only faults ----------------------------------------------------------------------

// Writes through an invalid pointer: the stream's next synchronisation reports
// cudaErrorIllegalAddress, and the context stays unusable (a sticky error).
cudaError_t launchFaultIllegalAddress(cudaStream_t stream);

} // namespace hearth::kernels
