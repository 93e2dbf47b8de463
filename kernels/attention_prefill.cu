// Prefill's causal attention on the tensor cores (mma.sync m16n8k16, fp32 accumulation), for a
// 16-bit KV cache and head sizes 64/128/256. A block takes 64 queries of one head, each of its four
// warps 16 of them. Per tile of keys: S = Q·Kᵀ, an online softmax in registers, O += P·V with P
// taken from S's accumulators as the A operand (their layouts coincide), so no score ever leaves
// the registers. K and Vᵀ tiles are staged in shared memory with padded rows, which makes the
// fragment loads conflict-free. Q and P are rounded to the cache's type (what the decode kernel's
// fp32 products do not do: the test bounds say how much that costs).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "attention_prefill.cuh"
#include "mma_fragments.cuh"

namespace hearth::kernels::detail {
namespace {

constexpr int kQueries = 64; // per block
constexpr int kThreads = 128;

__device__ __forceinline__ uint32_t load32(const uint16_t* p) { return *reinterpret_cast<const uint32_t*>(p); }

template <int HD, int KT>
struct Tiles {
    static constexpr int ldq = HD + 8; // Q rows, in 16-bit elements
    static constexpr int ldk = HD + 8; // K rows
    static constexpr int ldv = KT + 8; // Vᵀ rows: one per dimension
    static constexpr size_t bytes = (size_t(kQueries) * ldq + size_t(KT) * ldk + size_t(HD) * ldv) * 2;
};

template <typename Kv, int HD, int KT>
__global__ void __launch_bounds__(kThreads) flashPrefillKernel(AttentionCall c) {
    using T = Tiles<HD, KT>;
    extern __shared__ __align__(16) uint16_t smem[];
    uint16_t* qs = smem;                    // [kQueries][ldq]
    uint16_t* ks = qs + kQueries * T::ldq;  // [KT][ldk]
    uint16_t* vt = ks + KT * T::ldk;        // [HD][ldv]
    const int h = blockIdx.y, kvh = h / (c.heads / c.kvHeads);
    const int q0 = int(gridDim.x - 1 - blockIdx.x) * kQueries; // the longest rows first
    const int warp = int(threadIdx.x >> 5), lane = int(threadIdx.x & 31), g = lane >> 2, t4 = lane & 3;
    const int kvWidth = c.kvHeads * HD;
    const uint16_t* keys = static_cast<const uint16_t*>(c.kCache) + kvh * HD;
    const uint16_t* values = static_cast<const uint16_t*>(c.vCache) + kvh * HD;

    for (int i = threadIdx.x; i < kQueries * HD / 2; i += kThreads) {
        const int r = i / (HD / 2), d = 2 * (i % (HD / 2));
        float2 v = make_float2(0.0f, 0.0f);
        if (q0 + r < c.tokens) v = *reinterpret_cast<const float2*>(c.q + (size_t(q0 + r) * c.heads + h) * HD + d);
        *reinterpret_cast<uint32_t*>(qs + r * T::ldq + d) = pack2<Kv>(v.x, v.y);
    }

    float o[HD / 8][4] = {};
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};
    const int rowA = q0 + warp * 16 + g; // this thread's two query rows: rowA and rowA + 8
    const int posA = c.posHost + rowA, posB = posA + 8;
    const int warpLast = c.posHost + q0 + warp * 16 + 15;
    const int keyEnd = c.posHost + min(q0 + kQueries, c.tokens); // keys [0, keyEnd) for the block
    const float scaleLog2 = rsqrtf(float(HD)) * 1.4426950408889634f;

    for (int k0 = 0; k0 < keyEnd; k0 += KT) {
        __syncthreads(); // the previous tile's readers are done (and Q is stored, the first time)
        for (int i = threadIdx.x; i < KT * HD / 8; i += kThreads) { // K rows, 8 values a thread
            const int r = i / (HD / 8), d = 8 * (i % (HD / 8));
            uint4 v = make_uint4(0, 0, 0, 0);
            if (k0 + r < keyEnd) v = *reinterpret_cast<const uint4*>(keys + size_t(k0 + r) * kvWidth + d);
            *reinterpret_cast<uint4*>(ks + r * T::ldk + d) = v;
        }
        for (int i = threadIdx.x; i < KT * HD / 8; i += kThreads) { // V transposed: lanes along keys
            const int r = i % KT, d = 8 * (i / KT);
            uint4 v = make_uint4(0, 0, 0, 0);
            if (k0 + r < keyEnd) v = *reinterpret_cast<const uint4*>(values + size_t(k0 + r) * kvWidth + d);
            const uint16_t* e = reinterpret_cast<const uint16_t*>(&v);
#pragma unroll
            for (int j = 0; j < 8; ++j) vt[(d + j) * T::ldv + r] = e[j];
        }
        __syncthreads();
        if (k0 > warpLast) continue; // every key of the tile is after this warp's queries

        float s[KT / 8][4] = {};
        const uint16_t* qa = qs + (warp * 16 + g) * T::ldq + 2 * t4;
#pragma unroll
        for (int kk = 0; kk < HD; kk += 16) {
            const uint32_t a[4] = {load32(qa + kk), load32(qa + 8 * T::ldq + kk), load32(qa + kk + 8),
                                   load32(qa + 8 * T::ldq + kk + 8)};
#pragma unroll
            for (int n = 0; n < KT / 8; ++n) {
                const uint16_t* kb = ks + (n * 8 + g) * T::ldk + kk + 2 * t4;
                mma16816<Kv>(s[n], a, load32(kb), load32(kb + 8));
            }
        }
        // Scale and mask the future (key 0 is before every query), then the online softmax of rows A
        // (s[][0..1]) and B (s[][2..3]).
        float mx[2] = {-INFINITY, -INFINITY};
#pragma unroll
        for (int n = 0; n < KT / 8; ++n)
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const int key = k0 + n * 8 + 2 * t4 + (e & 1);
                s[n][e] = key <= (e < 2 ? posA : posB) ? s[n][e] * scaleLog2 : -INFINITY;
                mx[e >> 1] = fmaxf(mx[e >> 1], s[n][e]);
            }
        onlineSoftmaxStep(s, mx, m, l, o, [](float x) { return exp2f(x); });
#pragma unroll
        for (int kk = 0; kk < KT / 16; ++kk) {
            const uint32_t a[4] = {pack2<Kv>(s[2 * kk][0], s[2 * kk][1]), pack2<Kv>(s[2 * kk][2], s[2 * kk][3]),
                                   pack2<Kv>(s[2 * kk + 1][0], s[2 * kk + 1][1]),
                                   pack2<Kv>(s[2 * kk + 1][2], s[2 * kk + 1][3])};
#pragma unroll
            for (int n = 0; n < HD / 8; ++n) {
                const uint16_t* vb = vt + (n * 8 + g) * T::ldv + kk * 16 + 2 * t4;
                mma16816<Kv>(o[n], a, load32(vb), load32(vb + 8));
            }
        }
    }
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        const int row = rowA + 8 * r;
        if (row >= c.tokens) continue;
        const float inv = 1.0f / l[r];
        float* out = c.out + (size_t(row) * c.heads + h) * HD + 2 * t4;
#pragma unroll
        for (int n = 0; n < HD / 8; ++n)
            *reinterpret_cast<float2*>(out + n * 8) = make_float2(o[n][2 * r] * inv, o[n][2 * r + 1] * inv);
    }
}

template <typename Kv, int HD, int KT>
cudaError_t launchFlash(const AttentionCall& c, cudaStream_t stream) {
    constexpr size_t shared = Tiles<HD, KT>::bytes;
    // Per launch, not once per process: the attribute belongs to the current device.
    const cudaError_t set = cudaFuncSetAttribute(flashPrefillKernel<Kv, HD, KT>,
                                                 cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared));
    if (set != cudaSuccess) return set;
    const dim3 grid(unsigned((c.tokens + kQueries - 1) / kQueries), unsigned(c.heads));
    flashPrefillKernel<Kv, HD, KT><<<grid, kThreads, shared, stream>>>(c);
    return cudaGetLastError();
}

template <typename Kv>
cudaError_t launchForHeadDim(const AttentionCall& c, cudaStream_t stream) {
    switch (c.headDim) {
    case 64: return launchFlash<Kv, 64, 64>(c, stream);
    case 128: return launchFlash<Kv, 128, 64>(c, stream);
    case 256: return launchFlash<Kv, 256, 32>(c, stream); // 32 keys a tile keeps O and S in registers
    }
    return cudaErrorInvalidValue;
}

} // namespace

bool flashPrefillTakes(const AttentionCall& c) {
    return !c.posDevice && c.splits == 1 && c.tokens >= kFlashPrefillMinTokens &&
           (c.kvType == KvType::F16 || c.kvType == KvType::BF16) &&
           (c.headDim == 64 || c.headDim == 128 || c.headDim == 256) &&
           reinterpret_cast<uintptr_t>(c.kCache) % 16 == 0 && reinterpret_cast<uintptr_t>(c.vCache) % 16 == 0 &&
           reinterpret_cast<uintptr_t>(c.q) % 8 == 0 && reinterpret_cast<uintptr_t>(c.out) % 8 == 0;
}

cudaError_t launchFlashPrefill(const AttentionCall& c, cudaStream_t stream) {
    return c.kvType == KvType::F16 ? launchForHeadDim<__half>(c, stream) : launchForHeadDim<__nv_bfloat16>(c, stream);
}

} // namespace hearth::kernels::detail
