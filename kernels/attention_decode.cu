// Decode's attention over a 16-bit KV cache (heads of 64/128/256, up to 8 query heads per KV
// head): pass 1 of attention.cu's split-K scheme, streaming the cache at memory speed. A block
// takes one (KV head, key range, query); per tile of keys every thread issues all its 16-byte
// loads of K and V rows first (8 values each: a row is HD/8 threads), so a block keeps 16-32 KB
// in flight, then computes the tile's scores for every query head of the group (a dot product
// over 8 values, reduced across the row's threads by shuffles), the online softmax, and its share
// of P·V in registers. The slices of the block meet once, at the end. Its partials are combined by
// attention.cu's log-sum-exp kernel, as the fp32 kernel's are.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include "attention_decode.cuh"
#include "pdl.cuh"

namespace hearth::kernels::detail {
namespace {

constexpr int kThreads = 128;

template <typename Kv>
__device__ __forceinline__ void unpack8(const uint4& raw, float* v) {
    const uint32_t w[4] = {raw.x, raw.y, raw.z, raw.w};
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        if constexpr (std::is_same_v<Kv, __half>) {
            const float2 f = __half22float2(*reinterpret_cast<const __half2*>(&w[j]));
            v[2 * j] = f.x, v[2 * j + 1] = f.y;
        } else {
            v[2 * j] = __uint_as_float(w[j] << 16);
            v[2 * j + 1] = __uint_as_float(w[j] & 0xFFFF0000u);
        }
    }
}

// HD: head size; G: query heads per KV head at most (registers hold G x 8 output values).
template <typename Kv, int HD, int G>
__global__ void __launch_bounds__(kThreads) attentionDecodeKernel(AttentionCall c) {
    constexpr int kRowThreads = HD / 8;               // threads per K/V row
    constexpr int kSlices = kThreads / kRowThreads;   // rows a pass covers
    constexpr int kTile = HD == 256 ? 32 : 64;        // keys per tile
    constexpr int kPasses = kTile / kSlices;
    __shared__ __align__(16) float qs[G][HD];
    __shared__ float scores[G][kTile];
    __shared__ float mMax[G], lSum[G], corr[G];
    __shared__ __align__(16) float red[kSlices][HD];
    pdlWait(); // a decode step launches this as a programmatic dependent (pdl.cuh)
    pdlTrigger();
    const int group = c.heads / c.kvHeads, kvh = blockIdx.x, split = blockIdx.y, t = blockIdx.z;
    const int slice = int(threadIdx.x) / kRowThreads, chunk = int(threadIdx.x) % kRowThreads;
    const int pos = (c.posDevice ? *c.posDevice : c.posHost) + t;
    const int per = keysPerSplit(c, pos);
    const int begin = split * per, end = min(begin + per, pos + 1);
    const int kvWidth = c.kvHeads * HD;
    const Kv* keys = static_cast<const Kv*>(c.kCache) + kvh * HD + chunk * 8;
    const Kv* values = static_cast<const Kv*>(c.vCache) + kvh * HD + chunk * 8;
    const float scale = rsqrtf(float(HD));
    for (int i = threadIdx.x; i < G * HD; i += kThreads) {
        const int g = i / HD, d = i % HD;
        qs[g][d] = g < group ? c.q[(size_t(t) * c.heads + kvh * group + g) * HD + d] * scale : 0.0f;
    }
    if (threadIdx.x < G) mMax[threadIdx.x] = -INFINITY, lSum[threadIdx.x] = 0.0f;
    float acc[G][8] = {};
    __syncthreads();

    for (int k0 = begin; k0 < end; k0 += kTile) {
        uint4 kr[kPasses], vr[kPasses];
#pragma unroll
        for (int p = 0; p < kPasses; ++p) { // every load of the tile in flight at once
            const int key = k0 + p * kSlices + slice;
            kr[p] = vr[p] = make_uint4(0, 0, 0, 0);
            if (key < end) {
                kr[p] = *reinterpret_cast<const uint4*>(keys + size_t(key) * kvWidth);
                vr[p] = *reinterpret_cast<const uint4*>(values + size_t(key) * kvWidth);
            }
        }
#pragma unroll
        for (int p = 0; p < kPasses; ++p) {
            float k8[8];
            unpack8<Kv>(kr[p], k8);
            float dot[G];
#pragma unroll
            for (int g = 0; g < G; ++g) {
                const float4 qa = *reinterpret_cast<const float4*>(&qs[g][chunk * 8]);
                const float4 qb = *reinterpret_cast<const float4*>(&qs[g][chunk * 8 + 4]);
                dot[g] = qa.x * k8[0] + qa.y * k8[1] + qa.z * k8[2] + qa.w * k8[3] + qb.x * k8[4] + qb.y * k8[5] +
                         qb.z * k8[6] + qb.w * k8[7];
            }
#pragma unroll
            for (int o = kRowThreads / 2; o > 0; o >>= 1)
#pragma unroll
                for (int g = 0; g < G; ++g) dot[g] += __shfl_xor_sync(0xffffffffu, dot[g], o);
            if (chunk == 0) {
                const int j = p * kSlices + slice;
                const bool valid = k0 + j < end;
#pragma unroll
                for (int g = 0; g < G; ++g) scores[g][j] = valid ? dot[g] : -INFINITY;
            }
        }
        __syncthreads();
        for (int g = threadIdx.x >> 5; g < G; g += kThreads / 32) { // a warp per query head: the online softmax
            const int lane = threadIdx.x & 31;
            float mx = -INFINITY;
            for (int j = lane; j < kTile; j += 32) mx = fmaxf(mx, scores[g][j]);
#pragma unroll
            for (int o = 16; o > 0; o >>= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));
            const float mNew = fmaxf(mMax[g], mx); // finite: the tile holds at least one key
            float sum = 0.0f;
            for (int j = lane; j < kTile; j += 32) {
                const float e = __expf(scores[g][j] - mNew);
                scores[g][j] = e;
                sum += e;
            }
#pragma unroll
            for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
            if (lane == 0) {
                const float f = mMax[g] == -INFINITY ? 0.0f : __expf(mMax[g] - mNew);
                corr[g] = f;
                lSum[g] = lSum[g] * f + sum;
                mMax[g] = mNew;
            }
        }
        __syncthreads();
#pragma unroll
        for (int g = 0; g < G; ++g)
#pragma unroll
            for (int e = 0; e < 8; ++e) acc[g][e] *= corr[g];
#pragma unroll
        for (int p = 0; p < kPasses; ++p) {
            float v8[8];
            unpack8<Kv>(vr[p], v8);
            const int j = p * kSlices + slice;
#pragma unroll
            for (int g = 0; g < G; ++g) {
                const float w = scores[g][j];
#pragma unroll
                for (int e = 0; e < 8; ++e) acc[g][e] = fmaf(w, v8[e], acc[g][e]);
            }
        }
        __syncthreads(); // scores and corr are rewritten by the next tile
    }

    // The slices' sums, one query head at a time, into the partial of (query head, split).
    const Partial part = partialAt(c.partial, c.tokens, c.heads, HD, c.splits);
#pragma unroll
    for (int g = 0; g < G; ++g) { // G, not group: acc stays in registers (group is block-uniform)
        if (g >= group) break;
#pragma unroll
        for (int e = 0; e < 8; ++e) red[slice][chunk * 8 + e] = acc[g][e];
        __syncthreads();
        const size_t slot = (size_t(t) * c.heads + kvh * group + g) * c.splits + split;
        for (int d = threadIdx.x; d < HD; d += kThreads) {
            float s = 0.0f;
#pragma unroll
            for (int q = 0; q < kSlices; ++q) s += red[q][d];
            part.out[slot * HD + d] = s;
        }
        if (threadIdx.x == 0) part.ml[2 * slot] = mMax[g], part.ml[2 * slot + 1] = lSum[g];
        __syncthreads();
    }
}

template <typename Kv, int HD>
cudaError_t launchForGroup(const AttentionCall& c, cudaStream_t stream) {
    const dim3 grid(unsigned(c.kvHeads), unsigned(c.splits), unsigned(c.tokens));
    if (c.heads / c.kvHeads <= 4)
        return launchEx(attentionDecodeKernel<Kv, HD, 4>, grid, dim3(kThreads), 0, stream, c.pdl, c);
    return launchEx(attentionDecodeKernel<Kv, HD, 8>, grid, dim3(kThreads), 0, stream, c.pdl, c);
}

template <typename Kv>
cudaError_t launchForHeadDim(const AttentionCall& c, cudaStream_t stream) {
    switch (c.headDim) {
    case 64: return launchForGroup<Kv, 64>(c, stream);
    case 128: return launchForGroup<Kv, 128>(c, stream);
    case 256: return launchForGroup<Kv, 256>(c, stream);
    }
    return cudaErrorInvalidValue;
}

} // namespace

bool decodeAttentionTakes(const AttentionCall& c) {
    return (c.kvType == KvType::F16 || c.kvType == KvType::BF16) &&
           (c.headDim == 64 || c.headDim == 128 || c.headDim == 256) && c.heads / c.kvHeads <= 8 &&
           reinterpret_cast<uintptr_t>(c.kCache) % 16 == 0 && reinterpret_cast<uintptr_t>(c.vCache) % 16 == 0;
}

cudaError_t launchDecodeAttentionPartials(const AttentionCall& c, cudaStream_t stream) {
    return c.kvType == KvType::F16 ? launchForHeadDim<__half>(c, stream) : launchForHeadDim<__nv_bfloat16>(c, stream);
}

} // namespace hearth::kernels::detail
