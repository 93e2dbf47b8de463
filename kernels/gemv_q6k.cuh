// The Q6_K format's traits for gemv_kernel.cuh over the repacked layout gemv_q6k.cu describes
// and writes (gemv_q6k.cu launches them; gemv_pair.cu pairs them with another format in one
// launch).
#pragma once

#include "gemv_kernel.cuh"

namespace hearth::kernels::detail {

// A unit is 64 elements (4 per block): lo[32j..+32), hi[16j..+16), scales[4j..+4) and d; each
// half of it is one X8 group and two sub-blocks, whose −32 offsets are folded into the integer
// sums: Σ sc·(q−32)·x_q = sc·(dot(q, x_q) − 32·Σx_q), one int->float conversion per 32 weights.
template <bool L1>
struct Q6K {
    static constexpr int kRows[3] = {2, 2, 4}; // wide, tall, LM head
    static constexpr int kUnitElems = 64;
    struct Raw {
        uint4 lo0, lo1;
        uint4 hi;
        uint32_t sc; // four int8 scales
        uint32_t d;
    };
    using X = X8Pair;

    __device__ static Raw load(const Mat& m, int row, int unit) {
        const size_t nb = size_t(m.k / 256);
        const size_t blk = size_t(row) * nb + size_t(unit >> 2);
        const int j = unit & 3;
        const uint8_t* q = m.w + blk * 192;
        Raw r;
        r.lo0 = ldPair16<L1>(q + 32 * j);
        r.lo1 = ldPair16<L1>(q + 32 * j + 16);
        r.hi = ldStream16(q + 128 + 16 * j);
        r.sc = ldStream4(m.w + size_t(m.n) * nb * 192 + blk * 16 + 4 * j);
        r.d = ldStream2(m.w + size_t(m.n) * nb * 208 + blk * 2);
        return r;
    }
    __device__ static X loadX(const void* x, int k, int unit) {
        return loadX8Pair(static_cast<const int8_t*>(x), k, unit);
    }
    __device__ static uint32_t six(uint32_t nib, uint32_t hi, int w) {
        return (nib & 0x0F0F0F0Fu) | (((hi >> (2 * w)) & 0x03030303u) << 4);
    }
    // One half: 16 bytes of lo, hi words h0/h1, its X8 group, the scales of its two sub-blocks.
    __device__ static int half(const uint4& lo, uint32_t h0, uint32_t h1, const X8Group& x, int sa, int sb) {
        const int da = dot16(six(lo.x, h0, 0), six(lo.y, h0, 1), six(lo.z, h0, 2), six(lo.w, h0, 3), x.lo);
        const int db = dot16(six(lo.x >> 4, h1, 0), six(lo.y >> 4, h1, 1), six(lo.z >> 4, h1, 2),
                             six(lo.w >> 4, h1, 3), x.hi);
        return sa * (da - 32 * x.sumLo()) + sb * (db - 32 * x.sumHi());
    }
    __device__ static float dot(const Raw& r, const X& x, int) {
        const int s0 = int(int8_t(r.sc)), s1 = int(int8_t(r.sc >> 8)), s2 = int(int8_t(r.sc >> 16)),
                  s3 = int(int8_t(r.sc >> 24));
        const int i0 = half(r.lo0, r.hi.x, r.hi.y, x.a, s0, s1);
        const int i1 = half(r.lo1, r.hi.z, r.hi.w, x.b, s2, s3);
        return halfBits(r.d) * (x.a.rec.x * float(i0) + x.b.rec.x * float(i1));
    }
};

} // namespace hearth::kernels::detail
