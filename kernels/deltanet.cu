// The Gated DeltaNet's per-token kernels for prefill (hearth_kernels/deltanet.h): the conv over a
// chunk of tokens with its norms and gates, and the gated RMSNorm. The chunked recurrence lives in
// deltanet_chunk.cu, the fused decode token in deltanet_decode.cu.
#include "hearth_kernels/deltanet.h"

#include "block_reduce.cuh"
#include "deltanet_math.cuh"
#include "pdl.cuh"

namespace hearth::kernels {
namespace {

using detail::blockSum;
using detail::siluOf;

constexpr int kMaxConvKernel = kGdnMaxConvKernel;

// A block per (token, head slot): the q heads, the k heads, then the v heads; a thread per
// channel of the slot's head.
__global__ void gdnConvKernel(GdnShape s, const float* __restrict__ qkv, int ldQkv, const float* __restrict__ b,
                              int ldB, const float* __restrict__ a, int ldA, float* __restrict__ history,
                              const float* __restrict__ w, const float* __restrict__ dtBias,
                              const float* __restrict__ negExpA, float* __restrict__ out, float* __restrict__ gates,
                              bool advanceHistory) {
    __shared__ float scratch[32];
    detail::pdlWait(); // a decode step launches this as a programmatic dependent (pdl.cuh)
    detail::pdlTrigger();
    const int t = blockIdx.x, slot = blockIdx.y, d = threadIdx.x;
    const bool isQ = slot < s.keyHeads, isK = !isQ && slot < 2 * s.keyHeads;
    const int dim = isQ || isK ? s.keyDim : s.valueDim;
    const int base = isQ ? slot * s.keyDim
                   : isK ? s.keyWidth() + (slot - s.keyHeads) * s.keyDim
                         : 2 * s.keyWidth() + (slot - 2 * s.keyHeads) * s.valueDim;
    const int channels = s.channels(), K = s.convKernel, c = base + d;
    float y = 0.0f;
    if (d < dim) {
        float acc = 0.0f;
        for (int j = 0; j < K; ++j) {
            const int tt = t - (K - 1) + j;
            const float u = tt >= 0 ? qkv[size_t(tt) * ldQkv + c] : history[size_t(K - 1 + tt) * channels + c];
            acc += w[size_t(c) * K + j] * u;
        }
        y = siluOf(acc);
        if (advanceHistory) { // one token: this thread owns the channel's history
            for (int i = 0; i + 1 < K - 1; ++i) history[size_t(i) * channels + c] = history[size_t(i + 1) * channels + c];
            if (K > 1) history[size_t(K - 2) * channels + c] = qkv[c];
        }
    }
    if (isQ || isK) { // uniform over the block
        const float sum = blockSum(y * y, scratch);
        y *= rsqrtf(sum + detail::kGdnL2Eps);
        if (isQ) y *= rsqrtf(float(s.keyDim));
    }
    if (d < dim) out[size_t(t) * channels + c] = y;
    if (!isQ && !isK && d == 0) {
        const int h = slot - 2 * s.keyHeads;
        float* g = gates + size_t(t) * 2 * s.valueHeads;
        g[h] = detail::gdnBeta(b[size_t(t) * ldB + h]);
        g[s.valueHeads + h] = detail::gdnLogDecay(a[size_t(t) * ldA + h], dtBias[h], negExpA[h]);
    }
}

// After a multi-token conv: the history becomes the last convKernel - 1 inputs.
__global__ void gdnHistoryKernel(int channels, int K, int tokens, const float* __restrict__ qkv, int ldQkv,
                                 float* __restrict__ history) {
    const int c = int(blockIdx.x * blockDim.x + threadIdx.x);
    if (c >= channels) return;
    float next[kMaxConvKernel];
    for (int i = 0; i < K - 1; ++i) {
        const int tt = tokens - (K - 1) + i;
        next[i] = tt >= 0 ? qkv[size_t(tt) * ldQkv + c] : history[size_t(K - 1 + tt) * channels + c];
    }
    for (int i = 0; i < K - 1; ++i) history[size_t(i) * channels + c] = next[i];
}

__global__ void gdnGatedNormKernel(int valueDim, int valueWidth, float* __restrict__ x, const float* __restrict__ z,
                                   int ldZ, const float* __restrict__ w, float eps) {
    __shared__ float scratch[32];
    const int t = blockIdx.x, h = blockIdx.y, d = threadIdx.x;
    float* row = x + size_t(t) * valueWidth + size_t(h) * valueDim;
    const float v = d < valueDim ? row[d] : 0.0f;
    const float sum = blockSum(v * v, scratch);
    if (d < valueDim)
        row[d] = v * rsqrtf(sum / float(valueDim) + eps) * w[d] * siluOf(z[size_t(t) * ldZ + size_t(h) * valueDim + d]);
}

unsigned roundUp32(int n) { return unsigned((n + 31) / 32 * 32); }

} // namespace

cudaError_t launchGdnConv(const GdnShape& s, int tokens, const float* qkv, int ldQkv, const float* b, int ldB,
                          const float* a, int ldA, float* history, const float* convWeight, const float* dtBias,
                          const float* negExpA, float* out, float* gates, cudaStream_t stream, bool pdl) {
    if (!gdnSupports(s.keyHeads, s.valueHeads, s.keyDim, s.valueDim, s.convKernel) || tokens <= 0 || !qkv || !b ||
        !a || !history || !convWeight || !dtBias || !negExpA || !out || !gates || ldQkv < s.channels())
        return cudaErrorInvalidValue;
    const dim3 grid(unsigned(tokens), unsigned(2 * s.keyHeads + s.valueHeads));
    const unsigned threads = roundUp32(s.keyDim > s.valueDim ? s.keyDim : s.valueDim);
    if (cudaError_t err = detail::launchEx(gdnConvKernel, grid, dim3(threads), 0, stream, pdl, s, qkv, ldQkv, b, ldB,
                                           a, ldA, history, convWeight, dtBias, negExpA, out, gates, tokens == 1);
        err != cudaSuccess)
        return err;
    if (tokens > 1)
        gdnHistoryKernel<<<unsigned((s.channels() + 255) / 256), 256, 0, stream>>>(s.channels(), s.convKernel, tokens,
                                                                                 qkv, ldQkv, history);
    return cudaGetLastError();
}

cudaError_t launchGdnGatedNorm(const GdnShape& s, int tokens, float* x, const float* z, int ldZ, const float* weight,
                               float eps, cudaStream_t stream) {
    if (tokens <= 0 || !x || !z || !weight || s.valueDim <= 0 || s.valueDim > 1024 || ldZ < s.valueWidth())
        return cudaErrorInvalidValue;
    gdnGatedNormKernel<<<dim3(unsigned(tokens), unsigned(s.valueHeads)), roundUp32(s.valueDim), 0, stream>>>(
        s.valueDim, s.valueWidth(), x, z, ldZ, weight, eps);
    return cudaGetLastError();
}

} // namespace hearth::kernels
