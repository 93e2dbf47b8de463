// Decode's attention over a 16-bit KV cache for heads of 64 (up to 8 query heads per KV head):
// pass 1 of attention.cu's split-K scheme in fp32, streaming the cache. Heads of 128 and 256 take
// the tensor-core form (attention_decode_mma.cu); this file also picks between the two and sizes
// the key ranges. A block takes one (KV head, key range, query); per tile of keys every thread
// issues all its 16-byte loads of K and V rows first (8 values each: a row is HD/8 threads), then
// computes the tile's partial dot products for every query head of the group, reduces them across
// the row's threads by one reduce-scatter, runs the online softmax, and adds its share of P·V in
// registers. The slices of the block meet once, at the end. attention.cu's log-sum-exp kernel
// combines the partials.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <mutex>
#include <type_traits>
#include <vector>

#include "attention_decode.cuh"
#include "pdl.cuh"

namespace hearth::kernels::detail {
namespace {

constexpr int kThreads = kDecodeThreads;

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

// Sums N values over the K threads of a row (lanes chunk ^ o, o < K): at each step a thread keeps
// half of what it holds and adds its partner's copy of that half, so N values cost ~N shuffles
// instead of N·log2(K), and thread `chunk` ends with the sums of values [chunk·N/K, chunk·N/K + N/K).
template <int K, int N>
__device__ __forceinline__ void reduceScatter(float (&v)[N], int chunk) {
    static_assert(N % K == 0, "the values must split evenly over the row's threads");
    int n = N;
#pragma unroll
    for (int o = K / 2; o > 0; o >>= 1) {
        const bool upper = chunk & o;
        n /= 2; // compile-time per unrolled step
#pragma unroll
        for (int i = 0; i < N / 2; ++i) {
            if (i >= n) break;
            const float send = upper ? v[i] : v[i + n], keep = upper ? v[i + n] : v[i];
            v[i] = keep + __shfl_xor_sync(0xffffffffu, send, o);
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
        float part[kPasses * G]; // every pass's partial dot products, reduced at once (MIO: one shuffle each)
#pragma unroll
        for (int p = 0; p < kPasses; ++p) {
            float k8[8];
            unpack8<Kv>(kr[p], k8);
#pragma unroll
            for (int g = 0; g < G; ++g) {
                const float4 qa = *reinterpret_cast<const float4*>(&qs[g][chunk * 8]);
                const float4 qb = *reinterpret_cast<const float4*>(&qs[g][chunk * 8 + 4]);
                part[p * G + g] = qa.x * k8[0] + qa.y * k8[1] + qa.z * k8[2] + qa.w * k8[3] + qb.x * k8[4] +
                                  qb.y * k8[5] + qb.z * k8[6] + qb.w * k8[7];
            }
        }
        reduceScatter<kRowThreads, kPasses * G>(part, chunk);
        constexpr int F = kPasses * G / kRowThreads;
#pragma unroll
        for (int i = 0; i < F; ++i) {
            const int v = chunk * F + i, p = v / G, g = v % G;
            const int j = p * kSlices + slice;
            scores[g][j] = k0 + j < end ? part[i] : -INFINITY;
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

} // namespace

DecodeKernel decodeKernelFor(const AttentionCall& c) {
    if (reinterpret_cast<uintptr_t>(c.kCache) % 16 != 0 || reinterpret_cast<uintptr_t>(c.vCache) % 16 != 0)
        return nullptr;
    if (const DecodeKernel mma = decodeMmaKernelFor(c)) return mma;
    if (c.headDim != 64 || c.heads / c.kvHeads > 8) return nullptr;
    const bool small = c.heads / c.kvHeads <= 4;
    if (c.kvType == KvType::F16) return small ? attentionDecodeKernel<__half, 64, 4> : attentionDecodeKernel<__half, 64, 8>;
    if (c.kvType == KvType::BF16)
        return small ? attentionDecodeKernel<__nv_bfloat16, 64, 4> : attentionDecodeKernel<__nv_bfloat16, 64, 8>;
    return nullptr;
}

int decodeWaveSplits(const AttentionCall& c, DecodeKernel kernel) {
    // Resident blocks per device for each kernel, asked once (the decode step is captured in a
    // graph, but an uncaptured step calls this every token).
    struct Known {
        int device;
        DecodeKernel kernel;
        int blocks;
    };
    static std::mutex mutex;
    static std::vector<Known> known;
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess) return 0;
    int blocks = 0;
    {
        const std::lock_guard lock(mutex);
        for (const Known& k : known)
            if (k.device == device && k.kernel == kernel) blocks = k.blocks;
        if (blocks == 0) {
            int sms = 0, perSm = 0;
            if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
                cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, kDecodeThreads, 0) != cudaSuccess)
                return 0;
            blocks = std::max(1, sms * perSm);
            known.push_back({device, kernel, blocks});
        }
    }
    return std::max(1, blocks / (c.kvHeads * c.tokens));
}

cudaError_t launchDecodeAttentionPartials(const AttentionCall& c, DecodeKernel kernel, cudaStream_t stream) {
    const dim3 grid(unsigned(c.kvHeads), unsigned(c.splits), unsigned(c.tokens));
    return launchEx(kernel, grid, dim3(kDecodeThreads), 0, stream, c.pdl, c);
}

} // namespace hearth::kernels::detail
