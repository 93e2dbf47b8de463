// After the q/k/v projections: biases, per-head q/k RMSNorm, RoPE (either pairing, partial
// rotary), and the KV-cache write, in one kernel. One thread block per (token, head slot): the
// slots are the query heads, then the key heads, then the value heads; a thread per dimension.
#include <cuda_bf16.h>

#include <type_traits>

#include "hearth_kernels/ops.h"
#include "pdl.cuh"

namespace hearth::kernels {
namespace {

constexpr int kMaxHeadDim = 512;

template <typename T>
__device__ __forceinline__ T fromFloat(float v);
template <>
__device__ __forceinline__ float fromFloat<float>(float v) { return v; }
template <>
__device__ __forceinline__ __half fromFloat<__half>(float v) { return __float2half_rn(v); }
template <>
__device__ __forceinline__ __nv_bfloat16 fromFloat<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

// q rows are read from qIn (each head qStride apart: headDim, or 2 headDim for [query | gate]
// heads) and written to qOut (headDim apart; may be qIn when qStride is headDim); gateOut, when
// not null, receives each head's gate half.
template <typename Kv>
__global__ void qkvToCacheKernel(const float* qIn, int qStride, float* qOut, float* __restrict__ gateOut,
                                 const float* __restrict__ k, const float* __restrict__ v,
                                 const float* __restrict__ qBias, const float* __restrict__ kBias,
                                 const float* __restrict__ vBias, const float* __restrict__ qNorm,
                                 const float* __restrict__ kNorm, QkvShape s, const int* __restrict__ posDevice,
                                 int posHost, Kv* __restrict__ kCache, Kv* __restrict__ vCache) {
    __shared__ float vec[kMaxHeadDim];
    __shared__ float partial[kMaxHeadDim / 32];
    detail::pdlWait(); // a decode step launches this as a programmatic dependent (pdl.cuh)
    detail::pdlTrigger();
    const int t = blockIdx.x, slot = blockIdx.y, d = threadIdx.x, hd = s.headDim;
    const int pos = (posDevice ? *posDevice : posHost) + t;
    const int kvWidth = s.kvHeads * hd;
    const bool isQ = slot < s.heads, isK = !isQ && slot < s.heads + s.kvHeads;
    const int head = isQ ? slot : isK ? slot - s.heads : slot - s.heads - s.kvHeads;
    const float* src = isQ ? qIn + size_t(t) * s.heads * qStride + size_t(head) * qStride
                           : (isK ? k : v) + size_t(t) * kvWidth + head * hd;
    const float* bias = isQ ? qBias : isK ? kBias : vBias;
    const float* norm = isQ ? qNorm : isK ? kNorm : nullptr;
    float x = 0.0f;
    if (d < hd) {
        x = src[d];
        if (bias) x += bias[head * hd + d];
        if (isQ && gateOut) gateOut[size_t(t) * s.heads * hd + head * hd + d] = src[hd + d];
    }
    if (norm) { // uniform over the block
        float sq = x * x;
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) sq += __shfl_xor_sync(0xffffffffu, sq, o);
        if ((d & 31) == 0) partial[d >> 5] = sq;
        __syncthreads();
        float total = 0.0f;
        for (int i = 0; i < int(blockDim.x >> 5); ++i) total += partial[i];
        if (d < hd) x = x * rsqrtf(total / float(hd) + s.eps) * norm[d];
    }
    if (isQ || isK) {
        if (d < hd) vec[d] = x;
        __syncthreads();
        const int pairs = s.ropeDims / 2;
        if (d < s.ropeDims) {
            const int i = s.ropeAdjacent ? d >> 1 : (d < pairs ? d : d - pairs);
            const bool first = s.ropeAdjacent ? (d & 1) == 0 : d < pairs;
            const int partner = s.ropeAdjacent ? (d ^ 1) : (first ? d + pairs : d - pairs);
            const float angle = float(pos) * s.invFreq[i];
            const float c = cosf(angle) * s.ropeMagnitude, sn = sinf(angle) * s.ropeMagnitude;
            const float other = vec[partner];
            x = first ? x * c - other * sn : other * sn + x * c;
        }
    }
    if (d >= hd) return;
    if (isQ)
        qOut[size_t(t) * s.heads * hd + head * hd + d] = x;
    else
        (isK ? kCache : vCache)[size_t(pos) * kvWidth + head * hd + d] = fromFloat<Kv>(x);
}

} // namespace

size_t kvTypeBytes(KvType type) { return type == KvType::F32 ? 4 : 2; }

namespace {

cudaError_t launchQkv(const float* qIn, int qStride, float* qOut, float* gateOut, const float* k, const float* v,
                      const float* qBias, const float* kBias, const float* vBias, const float* qNorm,
                      const float* kNorm, const QkvShape& s, int tokens, const int* posDevice, int posHost,
                      KvType kvType, void* kCache, void* vCache, cudaStream_t stream, bool pdl) {
    if (!qIn || !qOut || !k || !v || !kCache || !vCache || !s.invFreq || tokens <= 0 || s.headDim <= 0 ||
        s.headDim > kMaxHeadDim || s.ropeDims < 0 || s.ropeDims > s.headDim || s.ropeDims % 2 != 0 ||
        s.kvHeads <= 0 || s.heads % s.kvHeads != 0 || (qNorm == nullptr) != (kNorm == nullptr))
        return cudaErrorInvalidValue;
    const dim3 grid(unsigned(tokens), unsigned(s.heads + 2 * s.kvHeads));
    const unsigned threads = unsigned((s.headDim + 31) / 32 * 32);
    auto launch = [&](auto* kc, auto* vc) {
        using Kv = std::remove_pointer_t<decltype(kc)>;
        return detail::launchEx(qkvToCacheKernel<Kv>, grid, dim3(threads), 0, stream, pdl, qIn, qStride, qOut, gateOut,
                                k, v, qBias, kBias, vBias, qNorm, kNorm, s, posDevice, posHost, kc, vc);
    };
    switch (kvType) {
    case KvType::F32: return launch(static_cast<float*>(kCache), static_cast<float*>(vCache));
    case KvType::F16: return launch(static_cast<__half*>(kCache), static_cast<__half*>(vCache));
    case KvType::BF16: return launch(static_cast<__nv_bfloat16*>(kCache), static_cast<__nv_bfloat16*>(vCache));
    }
    return cudaErrorInvalidValue;
}

} // namespace

cudaError_t launchQkvToCache(float* q, const float* k, const float* v, const float* qBias, const float* kBias,
                             const float* vBias, const float* qNorm, const float* kNorm, const QkvShape& shape,
                             int tokens, const int* posDevice, int posHost, KvType kvType, void* kCache,
                             void* vCache, cudaStream_t stream, bool pdl) {
    return launchQkv(q, shape.headDim, q, nullptr, k, v, qBias, kBias, vBias, qNorm, kNorm, shape, tokens, posDevice,
                     posHost, kvType, kCache, vCache, stream, pdl);
}

cudaError_t launchGatedQkvToCache(const float* qGate, float* q, float* gate, const float* k, const float* v,
                                  const float* qNorm, const float* kNorm, const QkvShape& shape, int tokens,
                                  const int* posDevice, int posHost, KvType kvType, void* kCache, void* vCache,
                                  cudaStream_t stream, bool pdl) {
    if (!gate || qGate == q) return cudaErrorInvalidValue;
    return launchQkv(qGate, 2 * shape.headDim, q, gate, k, v, nullptr, nullptr, nullptr, qNorm, kNorm, shape, tokens,
                     posDevice, posHost, kvType, kCache, vCache, stream, pdl);
}

} // namespace hearth::kernels
