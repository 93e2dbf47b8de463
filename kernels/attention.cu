// Causal attention over the KV cache, for decode (one query, many key ranges) and the prefill
// calls the tensor-core kernel does not take (attention_prefill.cuh). Pass 1: a thread block per
// (KV head, key range, query token) takes the query heads that share the KV head, so each key and
// value row is read once for all of them, and reduces its keys with an online softmax to (max, sum,
// unnormalised output). Pass 2 combines a query head's ranges by log-sum-exp. No score matrix of
// T × context is ever stored.
#include <cuda_bf16.h>

#include "activations.cuh"
#include "attention_decode.cuh"
#include "attention_prefill.cuh"
#include "block_reduce.cuh"
#include "hearth_kernels/ops.h"
#include "hearth_kernels/shape_limits.h"
#include "pdl.cuh"
#include "x8_group.cuh"

namespace hearth::kernels {
namespace {

using detail::Partial;
using detail::partialAt;

constexpr int kWarps = 4;
constexpr int kKeysPerStep = 64;
constexpr int kMaxHeadDim = kAttentionMaxHeadDim;

__device__ __forceinline__ float toFloat(float v) { return v; }
__device__ __forceinline__ float toFloat(__half v) { return __half2float(v); }
__device__ __forceinline__ float toFloat(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename Kv>
__global__ void attentionPartialKernel(AttentionCall c) {
    extern __shared__ float smem[];
    const int hd = c.headDim, group = c.heads / c.kvHeads;
    const int kvh = blockIdx.x, split = blockIdx.y, t = blockIdx.z;
    const int warp = int(threadIdx.x >> 5), lane = int(threadIdx.x & 31);
    float* qs = smem;                          // [group][hd], pre-scaled
    float* acc = qs + group * hd;              // [group][hd]
    float* scores = acc + group * hd;          // [group][kKeysPerStep]
    float* m = scores + group * kKeysPerStep;  // [group]
    float* l = m + group;                      // [group]
    float* corr = l + group;                   // [group]
    detail::pdlWait(); // a decode step launches this as a programmatic dependent (pdl.cuh)
    detail::pdlTrigger();
    const int pos = (c.posDevice ? *c.posDevice : c.posHost) + t;
    const int per = detail::keysPerSplit(c, pos);
    const int begin = split * per, end = min(begin + per, pos + 1);
    const int kvWidth = c.kvHeads * hd;
    const Kv* keys = static_cast<const Kv*>(c.kCache) + kvh * hd;
    const Kv* values = static_cast<const Kv*>(c.vCache) + kvh * hd;
    const float scale = rsqrtf(float(hd));
    for (int i = threadIdx.x; i < group * hd; i += blockDim.x) {
        const int g = i / hd, d = i % hd;
        qs[i] = c.q[(size_t(t) * c.heads + kvh * group + g) * hd + d] * scale;
        acc[i] = 0.0f;
    }
    if (threadIdx.x < group) m[threadIdx.x] = -INFINITY, l[threadIdx.x] = 0.0f;
    __syncthreads();
    for (int k0 = begin; k0 < end; k0 += kKeysPerStep) {
        const int nk = min(kKeysPerStep, end - k0);
        for (int j = warp; j < nk; j += kWarps) { // a warp per key: lanes over the dimensions
            const Kv* key = keys + size_t(k0 + j) * kvWidth;
            float kv[kMaxHeadDim / 32];
#pragma unroll
            for (int r = 0; r < kMaxHeadDim / 32; ++r) {
                const int d = lane + 32 * r;
                kv[r] = d < hd ? toFloat(key[d]) : 0.0f;
            }
            for (int g = 0; g < group; ++g) {
                float s = 0.0f;
#pragma unroll
                for (int r = 0; r < kMaxHeadDim / 32; ++r) {
                    const int d = lane + 32 * r;
                    if (d < hd) s = fmaf(qs[g * hd + d], kv[r], s);
                }
#pragma unroll
                for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
                if (lane == 0) scores[g * kKeysPerStep + j] = s;
            }
        }
        __syncthreads();
        for (int g = warp; g < group; g += kWarps) { // a warp per query head: the online softmax
            float mx = -INFINITY;
            for (int j = lane; j < nk; j += 32) mx = fmaxf(mx, scores[g * kKeysPerStep + j]);
#pragma unroll
            for (int o = 16; o > 0; o >>= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));
            const float mNew = fmaxf(m[g], mx);
            float sum = 0.0f;
            for (int j = lane; j < nk; j += 32) {
                const float p = __expf(scores[g * kKeysPerStep + j] - mNew);
                scores[g * kKeysPerStep + j] = p;
                sum += p;
            }
#pragma unroll
            for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
            if (lane == 0) {
                const float f = m[g] == -INFINITY ? 0.0f : __expf(m[g] - mNew);
                corr[g] = f;
                l[g] = l[g] * f + sum;
                m[g] = mNew;
            }
        }
        __syncthreads();
        for (int i = threadIdx.x; i < group * hd; i += blockDim.x) {
            const int g = i / hd, d = i % hd;
            float a = acc[i] * corr[g];
            const float* p = scores + g * kKeysPerStep;
            for (int j = 0; j < nk; ++j) a = fmaf(p[j], toFloat(values[size_t(k0 + j) * kvWidth + d]), a);
            acc[i] = a;
        }
        __syncthreads();
    }
    const Partial part = partialAt(c.partial, c.tokens, c.heads, hd, c.splits);
    for (int i = threadIdx.x; i < group * hd; i += blockDim.x) {
        const int g = i / hd, d = i % hd;
        const size_t slot = (size_t(t) * c.heads + kvh * group + g) * c.splits + split;
        part.out[slot * hd + d] = acc[i];
        if (d == 0) part.ml[2 * slot] = m[g], part.ml[2 * slot + 1] = l[g];
    }
}

constexpr int kCombineThreads = 512;

using detail::blockReduce;

// A block per (query head, token). The ranges' weights first (a thread per range), then thread
// (r, d) sums output d over ranges r, r + R, ... with its loads in flight together and the R
// partial sums meet in shared memory: a decode query at depth 32k has 128 ranges, which one
// thread per d walked one dependent load at a time.
__global__ void __launch_bounds__(kCombineThreads) attentionCombineKernel(AttentionCall c) {
    extern __shared__ float weights[]; // [splits], then [R][headDim] of partial sums
    __shared__ float scratch[32];
    detail::pdlWait(); // a decode step launches this as a programmatic dependent (pdl.cuh)
    detail::pdlTrigger();
    const int h = blockIdx.x, t = blockIdx.y, hd = c.headDim;
    const int pos = (c.posDevice ? *c.posDevice : c.posHost) + t;
    const int used = min(c.splits, pos / detail::keysPerSplit(c, pos) + 1);
    const Partial part = partialAt(c.partial, c.tokens, c.heads, hd, c.splits);
    const size_t first = (size_t(t) * c.heads + h) * c.splits;
    float mx = -INFINITY;
    for (int s = threadIdx.x; s < used; s += blockDim.x) mx = fmaxf(mx, part.ml[2 * (first + s)]);
    mx = blockReduce<true>(mx, scratch);
    float sum = 0.0f;
    for (int s = threadIdx.x; s < used; s += blockDim.x) {
        const float m = part.ml[2 * (first + s)];
        const float w = m == -INFINITY ? 0.0f : __expf(m - mx);
        weights[s] = w;
        sum += w * part.ml[2 * (first + s) + 1];
    }
    sum = blockReduce<false>(sum, scratch); // its syncs also publish weights[]
    const int R = kCombineThreads / hd, r = int(threadIdx.x) / hd, d = int(threadIdx.x) % hd; // as launched
    float* partial = weights + c.splits;
    if (r < R) {
        float out = 0.0f;
        int s = r;
        for (; s + 3 * R < used; s += 4 * R) { // four ranges' loads issued before their sums
            const float o0 = part.out[(first + s) * hd + d], o1 = part.out[(first + s + R) * hd + d];
            const float o2 = part.out[(first + s + 2 * R) * hd + d], o3 = part.out[(first + s + 3 * R) * hd + d];
            out = fmaf(weights[s], o0, out);
            out = fmaf(weights[s + R], o1, out);
            out = fmaf(weights[s + 2 * R], o2, out);
            out = fmaf(weights[s + 3 * R], o3, out);
        }
        for (; s < used; s += R) out = fmaf(weights[s], part.out[(first + s) * hd + d], out);
        partial[r * hd + d] = out;
    }
    __syncthreads();
    if (r == 0) { // whole warps when outX8 is set (headDim a multiple of 32)
        float out = 0.0f;
        for (int j = 0; j < R; ++j) out += partial[j * hd + d];
        const size_t i = (size_t(t) * c.heads + h) * hd + d;
        float v = sum > 0.0f ? out / sum : 0.0f;
        if (c.gate) v *= detail::sigmoidOf(c.gate[i]);
        c.out[i] = v;
        if (c.outX8)
            detail::storeX8Group(v, int(threadIdx.x & 31), c.heads * hd, (h * hd + d) >> 5,
                                 static_cast<int8_t*>(c.outX8));
    }
}

cudaError_t launchCombine(const AttentionCall& c, cudaStream_t stream) {
    // Whole copies of the head over the block (a head of 256: 2 ranges at a time; of 64: 8).
    const int copies = kCombineThreads / c.headDim, threads = (copies * c.headDim + 31) / 32 * 32;
    const size_t shared = (size_t(c.splits) + size_t(copies) * c.headDim) * sizeof(float);
    if (shared > 48 * 1024) return cudaErrorInvalidValue;
    return detail::launchEx(attentionCombineKernel, dim3(unsigned(c.heads), unsigned(c.tokens)),
                            dim3(unsigned(threads)), shared, stream, c.pdl, c);
}

template <typename Kv>
cudaError_t launchTyped(const AttentionCall& c, cudaStream_t stream) {
    const int group = c.heads / c.kvHeads;
    const size_t shared = (size_t(2) * group * c.headDim + size_t(group) * kKeysPerStep + 3 * group) * sizeof(float);
    if (cudaError_t err =
            detail::launchEx(attentionPartialKernel<Kv>, dim3(unsigned(c.kvHeads), unsigned(c.splits), unsigned(c.tokens)),
                             dim3(32 * kWarps), shared, stream, c.pdl, c);
        err != cudaSuccess)
        return err;
    return launchCombine(c, stream);
}

} // namespace

size_t attentionPartialBytes(int tokens, int heads, int headDim, int splits) {
    return size_t(tokens) * heads * splits * (headDim + 2) * sizeof(float);
}

cudaError_t launchAttention(const AttentionCall& c, cudaStream_t stream) {
    if (!c.q || !c.kCache || !c.vCache || !c.out || !c.partial || !attentionSupports(c.heads, c.kvHeads, c.headDim) ||
        c.tokens <= 0 ||
        c.splits <= 0 || c.splitKeys <= 0 || ((c.gate || c.outX8) && c.tokens != 1) ||
        (c.outX8 && c.headDim % 32 != 0))
        return cudaErrorInvalidValue;
    if (detail::flashPrefillTakes(c)) return detail::launchFlashPrefill(c, stream);
    if (const detail::DecodeKernel kernel = detail::decodeKernelFor(c)) {
        AttentionCall d = c;
        d.waveSplits = detail::decodeWaveSplits(c, kernel);
        if (cudaError_t err = detail::launchDecodeAttentionPartials(d, kernel, stream); err != cudaSuccess) return err;
        return launchCombine(d, stream);
    }
    switch (c.kvType) {
    case KvType::F32: return launchTyped<float>(c, stream);
    case KvType::F16: return launchTyped<__half>(c, stream);
    case KvType::BF16: return launchTyped<__nv_bfloat16>(c, stream);
    }
    return cudaErrorInvalidValue;
}

} // namespace hearth::kernels
