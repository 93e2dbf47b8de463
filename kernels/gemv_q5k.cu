// Q5_K GEMV (GGUF layout, X8 activations, __dp4a). As Q4_K (gemv_q4k.cu) plus qh[32] at byte
// 16 of the 176-byte block: the 5th bit of element l of chunk c is bit 2c (low-nibble half) or
// 2c+1 (high-nibble half) of qh[l]. A unit (chunk c, 64 elements) therefore also loads all 32
// qh bytes: two more aligned 16-byte loads.
#include "gemv_kernel.cuh"

namespace hearth::kernels {
namespace {

using namespace detail;

// Nibbles | 5th bit (bit `s` of each qh byte moved to bit 4).
__device__ __forceinline__ uint32_t five(uint32_t nib, uint32_t qh, int s) {
    return (nib & 0x0F0F0F0Fu) | (((qh >> s) << 4) & 0x10101010u);
}

template <bool L1>
struct Q5K {
    static constexpr int kRows[3] = {4, 4, 4}; // wide, tall, LM head
    static constexpr int kUnitElems = 64;
    static constexpr int kBlockBytes = 176;
    struct Raw {
        uint4 h;        // d|dmin, scales[12]
        uint4 qh0, qh1; // qh[0..32)
        uint4 q0, q1;   // qs[32c..32c+32)
    };
    using X = X8Pair;

    __device__ static Raw load(const Mat& m, int row, int unit) {
        const size_t rowBytes = size_t(m.k / 256) * kBlockBytes;
        const uint8_t* blk = m.w + size_t(row) * rowBytes + size_t(unit >> 2) * kBlockBytes;
        const uint8_t* q = blk + 48 + 32 * (unit & 3);
        Raw r;
        r.h = ldStream16(blk);
        r.qh0 = ldStream16(blk + 16);
        r.qh1 = ldStream16(blk + 32);
        r.q0 = ldPair16<L1>(q);
        r.q1 = ldPair16<L1>(q + 16);
        return r;
    }
    __device__ static X loadX(const void* x, int k, int unit) {
        return loadX8Pair(static_cast<const int8_t*>(x), k, unit);
    }
    __device__ static float dot(const Raw& r, const X& x, int unit) {
        const int c = unit & 3, s0 = 2 * c, s1 = 2 * c + 1;
        int sa = dot16(five(r.q0.x, r.qh0.x, s0), five(r.q0.y, r.qh0.y, s0), five(r.q0.z, r.qh0.z, s0),
                       five(r.q0.w, r.qh0.w, s0), x.a.lo);
        sa = dot16(five(r.q1.x, r.qh1.x, s0), five(r.q1.y, r.qh1.y, s0), five(r.q1.z, r.qh1.z, s0),
                   five(r.q1.w, r.qh1.w, s0), x.a.hi, sa);
        int sb = dot16(five(r.q0.x >> 4, r.qh0.x, s1), five(r.q0.y >> 4, r.qh0.y, s1),
                       five(r.q0.z >> 4, r.qh0.z, s1), five(r.q0.w >> 4, r.qh0.w, s1), x.b.lo);
        sb = dot16(five(r.q1.x >> 4, r.qh1.x, s1), five(r.q1.y >> 4, r.qh1.y, s1), five(r.q1.z >> 4, r.qh1.z, s1),
                   five(r.q1.w >> 4, r.qh1.w, s1), x.b.hi, sb);
        uint32_t sc, mn;
        kScaleMin(r.h, c, sc, mn);
        const float d = halfBits(r.h.x), dmin = halfBits(r.h.x >> 16);
        return d * (x.a.rec.x * float(int(sc & 0xFF) * sa) + x.b.rec.x * float(int(sc >> 8) * sb)) -
               dmin * (float(mn & 0xFF) * x.a.rec.w + float(mn >> 8) * x.b.rec.w);
    }
};

} // namespace

cudaError_t detail::gemvQ5K(const GemvCall& call) {
    if (call.variant & kGemvPairsBypassL1) return launchGemv<Q5K<false>>(call);
    return launchGemv<Q5K<true>>(call);
}

} // namespace hearth::kernels
