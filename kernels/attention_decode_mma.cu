// Decode attention's pass 1 on the tensor cores, for a 16-bit cache, heads of 128 or 256 and up to
// 8 query heads per KV head. The group's query heads are the 16 rows of mma.sync m16n8k16 (rows
// past the group are zero), so a KV head's keys are read once for all of them and the arithmetic
// stays off the pipes an fp32 form saturates (shared-memory reloads of q, per-key shuffles: 8B at
// 32k ran the KV stream at 39 % of the bandwidth that way). A block takes one (KV head, key range);
// each of its 4 warps takes chunks of 16 keys (chunk w, w + 4, ...) with its own online softmax,
// and the warps meet once, at the end. K comes straight from memory as the B operand: its
// dimensions are permuted (the same permutation on q's A operand) so that a thread's two 32-bit
// halves are one 8-byte load. V goes through a warp-private shared buffer (cp.async) read with
// ldmatrix.trans. q and the softmax weights are rounded to the cache's type, as the prefill
// kernel's are.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "attention_decode.cuh"
#include "mma_fragments.cuh"
#include "pdl.cuh"

namespace hearth::kernels::detail {
namespace {

constexpr int kWarps = kDecodeThreads / 32;
constexpr int kChunk = 16; // keys a warp takes at a time

// Shared memory: each warp's V buffer (rows of HD + 8 16-bit elements: conflict-free ldmatrix)
// during the loop, the warps' outputs after it (the same bytes), and their (max, sum).
template <int HD>
struct MmaShared {
    static constexpr int kVStride = HD + 8;
    static constexpr size_t kVBytes = size_t(kWarps) * kChunk * kVStride * 2;
    static constexpr size_t kOutBytes = size_t(kWarps) * 8 * HD * 4; // rows < 8: a group has at most 8 heads
    static constexpr size_t kBytes = kVBytes > kOutBytes ? kVBytes : kOutBytes;
};

__device__ __forceinline__ void copy16Async(void* shared, const void* global, bool valid) {
    const unsigned dst = unsigned(__cvta_generic_to_shared(shared));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(global), "r"(valid ? 16 : 0)
                 : "memory");
}

__device__ __forceinline__ void ldmatrixX4Trans(uint32_t (&r)[4], const void* shared) {
    const unsigned a = unsigned(__cvta_generic_to_shared(shared));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(a));
}

template <typename Kv, int kHd>
__global__ void __launch_bounds__(kWarps * 32) attentionDecodeMmaKernel(AttentionCall c) {
    using S = MmaShared<kHd>;
    constexpr int kVStride = S::kVStride;
    __shared__ __align__(16) uint8_t buffer[S::kBytes];
    __shared__ float mw[kWarps][16], lw[kWarps][16];
    auto* vs = reinterpret_cast<uint16_t(*)[kChunk * kVStride]>(buffer);
    auto* ow = reinterpret_cast<float(*)[8][kHd]>(buffer);
    pdlWait();
    pdlTrigger();
    const int group = c.heads / c.kvHeads, kvh = blockIdx.x, split = blockIdx.y, t = blockIdx.z;
    const int warp = int(threadIdx.x >> 5), lane = int(threadIdx.x & 31), g = lane >> 2, t4 = lane & 3;
    const int pos = (c.posDevice ? *c.posDevice : c.posHost) + t;
    const int per = keysPerSplit(c, pos);
    const int begin = split * per, end = min(begin + per, pos + 1);
    const int kvWidth = c.kvHeads * kHd;
    const uint16_t* keys = static_cast<const uint16_t*>(c.kCache) + kvh * kHd;
    const uint16_t* values = static_cast<const uint16_t*>(c.vCache) + kvh * kHd;

    // q as the A operand, scaled, rows g and g + 8 (heads of the group; zero past it). k-step ks's
    // k indices {2t4, 2t4+1} are dimensions 16ks + 4t4 + {0, 1}, {2t4+8, 2t4+9} are + {2, 3}.
    const float scale = rsqrtf(float(kHd));
    uint32_t qa[kHd / 16][4];
    {
        const float* q0 = c.q + (size_t(t) * c.heads + kvh * group + g) * kHd;
        const bool row0 = g < group, row1 = g + 8 < group;
#pragma unroll
        for (int ks = 0; ks < kHd / 16; ++ks) {
            const int d = 16 * ks + 4 * t4;
            const float4 a = row0 ? *reinterpret_cast<const float4*>(q0 + d) : make_float4(0, 0, 0, 0);
            const float4 b = row1 ? *reinterpret_cast<const float4*>(q0 + 8 * kHd + d) : make_float4(0, 0, 0, 0);
            qa[ks][0] = pack2<Kv>(a.x * scale, a.y * scale);
            qa[ks][1] = pack2<Kv>(b.x * scale, b.y * scale);
            qa[ks][2] = pack2<Kv>(a.z * scale, a.w * scale);
            qa[ks][3] = pack2<Kv>(b.z * scale, b.w * scale);
        }
    }

    float o[kHd / 8][4] = {};
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};
    uint16_t* vbuf = vs[warp];
    for (int k0 = begin + warp * kChunk; k0 < end; k0 += kWarps * kChunk) {
        // V of the chunk into this warp's buffer (zeros past the end: P is 0 there, V must not be NaN).
#pragma unroll
        for (int i = lane; i < kChunk * kHd / 8; i += 32) {
            const int r = i / (kHd / 8), d = 8 * (i % (kHd / 8));
            copy16Async(vbuf + r * kVStride + d, values + size_t(k0 + r < end ? k0 + r : begin) * kvWidth + d,
                        k0 + r < end);
        }
        asm volatile("cp.async.commit_group;" ::: "memory");
        // S = q · Kᵀ for the chunk's two n-tiles of 8 keys (key k0 + 8j + g for the B operand).
        float s[2][4] = {};
#pragma unroll
        for (int j = 0; j < 2; ++j) {
            const int key = k0 + 8 * j + g;
            const bool valid = key < end;
            const uint16_t* kr = keys + size_t(valid ? key : begin) * kvWidth + 4 * t4;
            uint2 kb[kHd / 16];
#pragma unroll
            for (int ks = 0; ks < kHd / 16; ++ks)
                kb[ks] = valid ? *reinterpret_cast<const uint2*>(kr + 16 * ks) : make_uint2(0, 0);
#pragma unroll
            for (int ks = 0; ks < kHd / 16; ++ks) mma16816<Kv>(s[j], qa[ks], kb[ks].x, kb[ks].y);
        }
        // Keys past the end masked (the chunk's first key is before it), then the online softmax of
        // rows g (s[][0..1]) and g + 8 (s[][2..3]).
        float mx[2] = {-INFINITY, -INFINITY};
#pragma unroll
        for (int j = 0; j < 2; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const int key = k0 + 8 * j + 2 * t4 + (e & 1);
                if (key >= end) s[j][e] = -INFINITY;
                mx[e >> 1] = fmaxf(mx[e >> 1], s[j][e]);
            }
        onlineSoftmaxStep<2, kHd / 8, true>(s, mx, m, l, o, [](float x) { return __expf(x); });
        // P as the A operand (its layout is S's accumulators'), V from the buffer: O += P · V.
        const uint32_t pa[4] = {pack2<Kv>(s[0][0], s[0][1]), pack2<Kv>(s[0][2], s[0][3]), pack2<Kv>(s[1][0], s[1][1]),
                                pack2<Kv>(s[1][2], s[1][3])};
        asm volatile("cp.async.wait_group 0;" ::: "memory");
        __syncwarp();
        // ldmatrix.x4.trans: matrices (keys 0-7 | 8-15) × (dims of n-tiles n | n + 1); lane L gives
        // the row address of matrix L / 8, row L % 8.
        const int mi = lane >> 3, row = (mi & 1) * 8 + (lane & 7);
#pragma unroll
        for (int n = 0; n < kHd / 8; n += 2) {
            uint32_t b[4];
            ldmatrixX4Trans(b, vbuf + row * kVStride + 8 * (n + (mi >> 1)));
            mma16816<Kv>(o[n], pa, b[0], b[1]);
            mma16816<Kv>(o[n + 1], pa, b[2], b[3]);
        }
        __syncwarp(); // the buffer is refilled by the next chunk
    }

    // The warps meet: each leaves its rows' (max, sum) and output (over the V buffers: every warp
    // is done with its own first).
    __syncthreads();
    if (t4 == 0) {
        mw[warp][g] = m[0], lw[warp][g] = l[0];
        mw[warp][g + 8] = m[1], lw[warp][g + 8] = l[1];
    }
    if (g < 8) {
#pragma unroll
        for (int n = 0; n < kHd / 8; ++n) {
            ow[warp][g][8 * n + 2 * t4] = o[n][0];
            ow[warp][g][8 * n + 2 * t4 + 1] = o[n][1];
        }
    }
    __syncthreads();
    const Partial part = partialAt(c.partial, c.tokens, c.heads, kHd, c.splits);
    for (int i = threadIdx.x; i < group * kHd; i += kWarps * 32) {
        const int r = i / kHd, d = i % kHd;
        float mx = -INFINITY;
#pragma unroll
        for (int w = 0; w < kWarps; ++w) mx = fmaxf(mx, mw[w][r]);
        float out = 0.0f, total = 0.0f;
#pragma unroll
        for (int w = 0; w < kWarps; ++w) {
            const float f = mw[w][r] == -INFINITY ? 0.0f : __expf(mw[w][r] - mx);
            out += f * ow[w][r][d];
            total += f * lw[w][r];
        }
        const size_t slot = (size_t(t) * c.heads + kvh * group + r) * c.splits + split;
        part.out[slot * kHd + d] = out;
        if (d == 0) part.ml[2 * slot] = mx, part.ml[2 * slot + 1] = total;
    }
}

} // namespace

DecodeKernel decodeMmaKernelFor(const AttentionCall& c) {
    // q is read as float4: a q that is not 16-byte aligned takes attention.cu's fp32 kernels.
    if (c.heads / c.kvHeads > 8 || reinterpret_cast<uintptr_t>(c.q) % 16 != 0) return nullptr;
    const bool f16 = c.kvType == KvType::F16;
    if (!f16 && c.kvType != KvType::BF16) return nullptr;
    if (c.headDim == 128) return f16 ? attentionDecodeMmaKernel<__half, 128> : attentionDecodeMmaKernel<__nv_bfloat16, 128>;
    if (c.headDim == 256) return f16 ? attentionDecodeMmaKernel<__half, 256> : attentionDecodeMmaKernel<__nv_bfloat16, 256>;
    return nullptr;
}

} // namespace hearth::kernels::detail
