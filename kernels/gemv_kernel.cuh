// The batch-1 GEMV skeleton shared by every weight format (gemv_<type>.cu instantiate it).
//
// Shape of the work: a block owns R consecutive output rows (2R with gate+up) and all of k.
// Each row is cut into "units" (64 elements for Q4_K/Q5_K/Q6_K, 32 for Q8_0/Q4_0, 8 for BF16;
// one to three 16-byte loads of quants). Thread t of the block takes units t, t+blockDim, ... of all R rows at
// once: the R weight loads are independent and in flight together, and the x it loads for a
// unit is reused by all R rows. Partial sums are reduced across the block (shuffles, then shared
// memory) so no atomics and a fixed summation order: results are bit-reproducible.
//
// Why this shape: batch-1 decode is a pure weight stream, so the only thing that matters is
// bytes in flight per SM (~40 KB on an H200 to cover HBM latency) and cheap enough dequant
// (__dp4a on 8-bit x). Splitting k across the block's warps gives narrow-output (tall) matrices
// enough warps; R rows per thread give wide ones enough loads in flight. Measured limits and the
// experiments that did not pay (pipelined k loop, persistent grid): docs/PERFORMANCE.md.
//
// PDL: the first unit's weights are loaded before griddepcontrol.wait, so when launched with
// programmatic stream serialization a kernel streams weights while its predecessor finishes;
// only x (written by the predecessor) is read after the wait.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "gemv_dispatch.h"
#include "hearth_kernels/gemv.h"
#include "hearth_kernels/gemv_experiments.h"
#include "pdl.cuh"

namespace hearth::kernels::detail {

constexpr int kMaxWarps = 8;

// Weights are streamed once: read through the non-coherent path without allocating in L1, so
// L1 keeps x (which every unit re-reads).
__device__ __forceinline__ uint4 ldStream16(const void* p) {
    uint4 v;
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
    return v;
}
// Two 16-byte halves of one 32-byte sector read by one thread in two instructions: let the
// first allocate in L1 (evicted first) so the second hits there instead of fetching the sector
// from L2 again. Measured on the H200: +5-13 points of bandwidth for Q4_K/Q6_K/Q8_0 against
// L1::no_allocate, which doubled the L2->SM traffic of these loads.
__device__ __forceinline__ uint4 ldStream16L1(const void* p) {
    uint4 v;
    asm volatile("ld.global.nc.L1::evict_first.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
    return v;
}
template <bool L1>
__device__ __forceinline__ uint4 ldPair16(const void* p) {
    if constexpr (L1)
        return ldStream16L1(p);
    else
        return ldStream16(p);
}
__device__ __forceinline__ uint2 ldStream8(const void* p) {
    uint2 v;
    asm volatile("ld.global.nc.L1::no_allocate.v2.u32 {%0,%1}, [%2];" : "=r"(v.x), "=r"(v.y) : "l"(p));
    return v;
}
__device__ __forceinline__ uint32_t ldStream4(const void* p) {
    uint32_t v;
    asm volatile("ld.global.nc.L1::no_allocate.u32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}
__device__ __forceinline__ uint16_t ldStream2(const void* p) {
    uint16_t v;
    asm volatile("ld.global.nc.L1::no_allocate.u16 %0, [%1];" : "=h"(v) : "l"(p));
    return v;
}

// K-quants (Q4_K, Q5_K): the 16-byte block header {d, dmin, scales[12]} as h.x..h.w.
// Scales and mins of sub-blocks 2c and 2c+1 (packed in the low two bytes of sc and m) from
// the 12 scale bytes h.y, h.z, h.w. Sub-blocks 0..3 keep 6 bits in place; 4..7 combine a nibble
// of bytes 8..11 with the top two bits of bytes 0..7. Branch-free: lanes of one warp hold
// different chunks.
__device__ __forceinline__ void kScaleMin(const uint4& h, int c, uint32_t& sc, uint32_t& m) {
    const bool low = c < 2;
    const int sh = (c & 1) * 16;
    const uint32_t m1 = low ? 0x3F3Fu : 0x0F0Fu, m2 = low ? 0u : 0x3030u;
    const uint32_t a = low ? h.y : h.w, b = low ? h.z : (h.w >> 4);
    sc = ((a >> sh) & m1) | ((h.y >> (sh + 2)) & m2);
    m = ((b >> sh) & m1) | ((h.z >> (sh + 2)) & m2);
}

__device__ __forceinline__ float halfBits(uint32_t h) { return __half2float(__ushort_as_half(uint16_t(h))); }

// One X8 group: 32 int8 values and its record {d, Σq of elements 0..15, Σq of 16..31, d·Σq}.
struct X8Group {
    int4 lo, hi; // elements 0..15, 16..31
    float4 rec;  // .y, .z hold ints
    __device__ int sumLo() const { return __float_as_int(rec.y); }
    __device__ int sumHi() const { return __float_as_int(rec.z); }
};

// Where unit u's 16-byte pieces live in the X8 layout (gemv.h): piece c (elements 16c..16c+15)
// at value + c·stride, the record of group h at record + h·stride.
struct X8Unit {
    const int8_t* value;
    const int8_t* record;
    int stride;
};
__device__ __forceinline__ X8Unit x8Unit(const int8_t* __restrict__ xq, int k, int u) {
    const GemvX8Unit x = gemvX8Unit(k, u);
    return X8Unit{xq + x.values, xq + x.records, x.stride};
}
__device__ __forceinline__ int4 x8Piece(const X8Unit& x, int c) {
    return __ldg(reinterpret_cast<const int4*>(x.value + c * x.stride));
}
__device__ __forceinline__ float4 x8Record(const X8Unit& x, int h) {
    return __ldg(reinterpret_cast<const float4*>(x.record + h * x.stride));
}

// Group g (32 elements): half g&1 of unit g>>1.
__device__ __forceinline__ X8Group loadX8(const int8_t* __restrict__ xq, int k, int g) {
    const X8Unit u = x8Unit(xq, k, g >> 1);
    const int h = g & 1;
    return X8Group{x8Piece(u, 2 * h), x8Piece(u, 2 * h + 1), x8Record(u, h)};
}

// Two consecutive X8 groups (the 64 elements of a K-quant unit).
struct X8Pair {
    X8Group a, b;
};
__device__ __forceinline__ X8Pair loadX8Pair(const int8_t* __restrict__ xq, int k, int u) {
    const X8Unit x = x8Unit(xq, k, u);
    return X8Pair{X8Group{x8Piece(x, 0), x8Piece(x, 1), x8Record(x, 0)},
                  X8Group{x8Piece(x, 2), x8Piece(x, 3), x8Record(x, 1)}};
}

__device__ __forceinline__ int dot16(uint32_t w0, uint32_t w1, uint32_t w2, uint32_t w3, int4 x, int s = 0) {
    s = __dp4a(int(w0), x.x, s);
    s = __dp4a(int(w1), x.y, s);
    s = __dp4a(int(w2), x.z, s);
    return __dp4a(int(w3), x.w, s);
}
// dot16 with unsigned weight bytes (0..255) against signed x (dp4a.u32.s32).
__device__ __forceinline__ int dp4aU8S8(uint32_t w, int x, int s) {
    int d;
    asm("dp4a.u32.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(w), "r"(x), "r"(s));
    return d;
}
__device__ __forceinline__ int dot16u(uint32_t w0, uint32_t w1, uint32_t w2, uint32_t w3, int4 x, int s = 0) {
    s = dp4aU8S8(w0, x.x, s);
    s = dp4aU8S8(w1, x.y, s);
    s = dp4aU8S8(w2, x.z, s);
    return dp4aU8S8(w3, x.w, s);
}

// One matrix as the kernels see it.
struct Mat {
    const uint8_t* w;
    int n;
    int k;
};

__device__ __forceinline__ float silu(float g) { return g / (1.0f + __expf(-g)); }

// F: format traits with
//   using Raw; using X; kUnitElems;
//   static Raw load(const Mat&, int row, int unit);
//   static X loadX(const void* x, int k, int unit);
//   static float dot(const Raw&, const X&, int unit);
// One block's work: rows block·R.. of a (and b with GLU), as gemvKernel's block `block` does it.
// A device function so that a kernel can run the blocks of two matrices (gemv_pair.cu).
template <class F, int R, bool GLU, bool PIPE>
__device__ __forceinline__ void gemvBlock(const Mat& a, const Mat& b, const void* __restrict__ x,
                                          float* __restrict__ y, int block) {
    constexpr int M = GLU ? 2 : 1; // matrices
    const int units = a.k / F::kUnitElems;
    const int row0 = block * R;
    int rows[R];
#pragma unroll
    for (int r = 0; r < R; ++r) rows[r] = min(row0 + r, a.n - 1); // ragged tail: reload the last row

    typename F::Raw raw[M][R];
    float acc[M][R];
#pragma unroll
    for (int m = 0; m < M; ++m)
#pragma unroll
        for (int r = 0; r < R; ++r) acc[m][r] = 0.0f;

    int u = threadIdx.x;
    const bool any = u < units;
    if (any) {
#pragma unroll
        for (int r = 0; r < R; ++r) {
            raw[0][r] = F::load(a, rows[r], u);
            if constexpr (GLU) raw[1][r] = F::load(b, rows[r], u);
        }
    }
    pdlWait();
    pdlTrigger();
    if (any) {
        for (;;) {
            const typename F::X xv = F::loadX(x, a.k, u);
            const int un = u + blockDim.x;
            if constexpr (PIPE) {
                // Software pipelining: the next unit's weights are requested before this unit's
                // arithmetic, so a thread keeps loads in flight while it computes.
                typename F::Raw nx[M][R];
                if (un < units) {
#pragma unroll
                    for (int r = 0; r < R; ++r) {
                        nx[0][r] = F::load(a, rows[r], un);
                        if constexpr (GLU) nx[1][r] = F::load(b, rows[r], un);
                    }
                }
#pragma unroll
                for (int m = 0; m < M; ++m)
#pragma unroll
                    for (int r = 0; r < R; ++r) acc[m][r] += F::dot(raw[m][r], xv, u);
                if (un >= units) break;
#pragma unroll
                for (int m = 0; m < M; ++m)
#pragma unroll
                    for (int r = 0; r < R; ++r) raw[m][r] = nx[m][r];
            } else {
#pragma unroll
                for (int m = 0; m < M; ++m)
#pragma unroll
                    for (int r = 0; r < R; ++r) acc[m][r] += F::dot(raw[m][r], xv, u);
                if (un >= units) break;
#pragma unroll
                for (int r = 0; r < R; ++r) {
                    raw[0][r] = F::load(a, rows[r], un);
                    if constexpr (GLU) raw[1][r] = F::load(b, rows[r], un);
                }
            }
            u = un;
        }
    }

    // Block reduction: warp shuffles, then one value per warp through shared memory.
    __shared__ float part[kMaxWarps][M * R];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int m = 0; m < M; ++m)
#pragma unroll
        for (int r = 0; r < R; ++r) {
            float v = acc[m][r];
#pragma unroll
            for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
            if (lane == 0) part[warp][m * R + r] = v;
        }
    __syncthreads();
    const int nw = blockDim.x >> 5;
    if (threadIdx.x < R && row0 + int(threadIdx.x) < a.n) {
        float s[M];
#pragma unroll
        for (int m = 0; m < M; ++m) {
            s[m] = 0.0f;
            for (int w = 0; w < nw; ++w) s[m] += part[w][m * R + threadIdx.x];
        }
        if constexpr (GLU)
            y[row0 + threadIdx.x] = silu(s[0]) * s[1];
        else
            y[row0 + threadIdx.x] = s[0];
    }
}

template <class F, int R, bool GLU, bool PIPE>
__global__ void __launch_bounds__(kMaxWarps * 32) gemvKernel(Mat a, Mat b, const void* __restrict__ x,
                                                             float* __restrict__ y) {
    gemvBlock<F, R, GLU, PIPE>(a, b, x, y, int(blockIdx.x));
}

// Threads per block for `units` units per row: the warp count (2..8) that wastes the fewest
// thread-slots over the k loop, preferring more warps (fewer serial round trips) on ties.
inline int pickWarps(int units) {
    int best = kMaxWarps;
    long bestWaste = -1;
    for (int w = kMaxWarps; w >= 2; --w) {
        const long t = 32L * w;
        const long waste = (units + t - 1) / t * t - units;
        if (bestWaste < 0 || waste < bestWaste) {
            bestWaste = waste;
            best = w;
        }
    }
    return best;
}

// Rows per block from the shape, from the format's measured best (F::kRows = {wide, tall,
// LM-head}; H200 sweep, docs/PERFORMANCE.md): R rows give each thread R independent weight loads
// sharing one x load. Tiny outputs keep 1 row so the grid still covers the 132 SMs.
inline int pickRows(int n, int k, bool glu, const int (&pref)[3]) {
    if (glu) return n >= 8192 ? 2 : 1;
    if (n < 4096) return 1;
    if (n >= 65536) return pref[2];
    return k > n ? pref[1] : pref[0];
}

// Picks the configuration and launches gemvKernel<F, R, GLU, PIPE>. The type, shape and
// pointers were checked by the public entry (gemv.cu); the options are checked here.
template <class F, bool GLU, bool PIPE>
cudaError_t launchGemvRows(const GemvCall& call) {
    const GemvLaunch& opt = call.opt;
    const int n = call.n, k = call.k;
    const int units = k / F::kUnitElems;
    const int warps = opt.warps > 0 ? opt.warps : pickWarps(units);
    const int rpb = opt.rowsPerBlock > 0 ? opt.rowsPerBlock : pickRows(n, k, GLU, F::kRows);
    if (warps > kMaxWarps) return cudaErrorInvalidValue;
    const Mat a{static_cast<const uint8_t*>(call.wa), n, k};
    const Mat b{static_cast<const uint8_t*>(GLU ? call.wb : call.wa), n, k};
    const unsigned threads = 32u * unsigned(warps);
    auto go = [&](auto kernel, int r) {
        return launchEx(kernel, unsigned((n + r - 1) / r), threads, call.stream, opt.pdl, a, b, call.x, call.y);
    };
    switch (rpb) {
    case 1: return go(gemvKernel<F, 1, GLU, PIPE>, 1);
    case 2: return go(gemvKernel<F, 2, GLU, PIPE>, 2);
    case 4: return go(gemvKernel<F, 4, GLU, PIPE>, 4);
    case 8:
        if constexpr (!GLU) return go(gemvKernel<F, 8, GLU, PIPE>, 8);
        [[fallthrough]];
    default: return cudaErrorInvalidValue;
    }
}

// Launches format F: plain or gate+up, with the pipelined k loop only when an experiment asks.
template <class F>
cudaError_t launchGemv(const GemvCall& call) {
    const bool pipe = call.variant & kGemvPipelinedK;
    if (call.glu) return pipe ? launchGemvRows<F, true, true>(call) : launchGemvRows<F, true, false>(call);
    return pipe ? launchGemvRows<F, false, true>(call) : launchGemvRows<F, false, false>(call);
}

} // namespace hearth::kernels::detail
