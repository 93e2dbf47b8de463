// The Q4_K format's traits for gemv_kernel.cuh (gemv_q4k.cu launches them; gemv_pair.cu pairs them
// with another format in one launch). Block: d, dmin (fp16), scales[12] (8 six-bit scales and
// mins), qs[128]; x = d·sc·q − dmin·m per sub-block of 32.
//
// A unit is one 64-element chunk c of a block (4 units per block): qs[32c..32c+32), two aligned
// 16-byte loads whose low nibbles are sub-block 2c and high nibbles sub-block 2c+1, each exactly
// one X8 group. Per 64 weights: 16 mask ops, 16 dp4a, one shift, one scale/min decode (shared by both
// sub-blocks) and 4 int->float conversions; the mins use the group's stored d·Σq.
#pragma once

#include "gemv_kernel.cuh"

namespace hearth::kernels::detail {

template <bool L1>
struct Q4K {
    static constexpr int kUnitElems = 64;
    static constexpr int kRows[3] = {4, 8, 8}; // wide, tall, LM head
    static constexpr int kBlockBytes = 144;
    struct Raw {
        uint4 h; // d|dmin, scales[0..3], scales[4..7], scales[8..11]
        uint4 q0, q1;
    };
    using X = X8Pair;

    __device__ static Raw load(const Mat& m, int row, int unit) {
        const size_t rowBytes = size_t(m.k / 256) * kBlockBytes;
        const uint8_t* blk = m.w + size_t(row) * rowBytes + size_t(unit >> 2) * kBlockBytes;
        const uint8_t* q = blk + 16 + 32 * (unit & 3);
        Raw r;
        r.h = ldStream16(blk); // the 4 units of a block read the same 16 bytes: one L2 sector
        r.q0 = ldPair16<L1>(q);
        r.q1 = ldPair16<L1>(q + 16);
        return r;
    }
    __device__ static X loadX(const void* x, int k, int unit) {
        return loadX8Pair(static_cast<const int8_t*>(x), k, unit);
    }
    // The high nibbles stay in place (w & 0xF0F0F0F0: 16·q per byte, unsigned, against signed x)
    // and the sum is shifted once: 8 shifts a unit fewer, the same integers.
    __device__ static float dot(const Raw& r, const X& x, int unit) {
        const uint32_t lo = 0x0F0F0F0Fu, hi = 0xF0F0F0F0u;
        int sa = dot16(r.q0.x & lo, r.q0.y & lo, r.q0.z & lo, r.q0.w & lo, x.a.lo);
        sa = dot16(r.q1.x & lo, r.q1.y & lo, r.q1.z & lo, r.q1.w & lo, x.a.hi, sa);
        int sb = dot16u(r.q0.x & hi, r.q0.y & hi, r.q0.z & hi, r.q0.w & hi, x.b.lo);
        sb = dot16u(r.q1.x & hi, r.q1.y & hi, r.q1.z & hi, r.q1.w & hi, x.b.hi, sb) >> 4;
        uint32_t sc, mn;
        kScaleMin(r.h, unit & 3, sc, mn);
        const float d = halfBits(r.h.x), dmin = halfBits(r.h.x >> 16);
        return d * (x.a.rec.x * float(int(sc & 0xFF) * sa) + x.b.rec.x * float(int(sc >> 8) * sb)) -
               dmin * (float(mn & 0xFF) * x.a.rec.w + float(mn >> 8) * x.b.rec.w);
    }
};

} // namespace hearth::kernels::detail
