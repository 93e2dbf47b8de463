// Q4_K GEMV (GGUF layout, X8 activations, __dp4a). Block: d, dmin (fp16), scales[12] (8 six-bit
// scales and mins), qs[128]; x = d·sc·q − dmin·m per sub-block of 32.
//
// A unit is one 64-element chunk c of a block (4 units per block): qs[32c..32c+32), two aligned
// 16-byte loads whose low nibbles are sub-block 2c and high nibbles sub-block 2c+1, each exactly
// one X8 group. Per 64 weights: 24 mask ops, 16 dp4a, one scale/min decode (shared by both
// sub-blocks) and 4 int->float conversions; the mins use the group's stored d·Σq.
#include "gemv_kernel.cuh"

namespace hearth::kernels {
namespace {

using namespace detail;

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
    __device__ static float dot(const Raw& r, const X& x, int unit) {
        const uint32_t m4 = 0x0F0F0F0Fu;
        int sa = dot16(r.q0.x & m4, r.q0.y & m4, r.q0.z & m4, r.q0.w & m4, x.a.lo);
        sa = dot16(r.q1.x & m4, r.q1.y & m4, r.q1.z & m4, r.q1.w & m4, x.a.hi, sa);
        int sb = dot16((r.q0.x >> 4) & m4, (r.q0.y >> 4) & m4, (r.q0.z >> 4) & m4, (r.q0.w >> 4) & m4, x.b.lo);
        sb = dot16((r.q1.x >> 4) & m4, (r.q1.y >> 4) & m4, (r.q1.z >> 4) & m4, (r.q1.w >> 4) & m4, x.b.hi, sb);
        uint32_t sc, mn;
        kScaleMin(r.h, unit & 3, sc, mn);
        const float d = halfBits(r.h.x), dmin = halfBits(r.h.x >> 16);
        return d * (x.a.rec.x * float(int(sc & 0xFF) * sa) + x.b.rec.x * float(int(sc >> 8) * sb)) -
               dmin * (float(mn & 0xFF) * x.a.rec.w + float(mn >> 8) * x.b.rec.w);
    }
};

// The 32-element experiment (kGemvQ4K32Units, gemv_experiments.h): unit j (8 per block) is
// qs[16j..+16), i.e. half h = j&1 of chunk c = j/2: 16 elements of sub-block 2c (low nibbles) and
// 16 of 2c+1 (high nibbles). Every 16-byte load is a full half-sector shared with its neighbour
// thread, but each thread decodes the scales for only 32 weights.
struct Q4K32 {
    static constexpr int kUnitElems = 32;
    static constexpr int kRows[3] = {4, 8, 8}; // wide, tall, LM head
    static constexpr int kBlockBytes = 144;
    struct Raw {
        uint4 h;
        uint4 q;
    };
    struct X {
        int4 a, b;      // the matching halves of groups 2c and 2c+1
        float4 ra, rb;  // their records
    };

    __device__ static Raw load(const Mat& m, int row, int unit) {
        const size_t rowBytes = size_t(m.k / 256) * kBlockBytes;
        const uint8_t* blk = m.w + size_t(row) * rowBytes + size_t(unit >> 3) * kBlockBytes;
        Raw r;
        r.h = ldStream16(blk);
        r.q = ldStream16(blk + 16 + 16 * (unit & 7));
        return r;
    }
    __device__ static X loadX(const void* x, int k, int unit) {
        // groups 2c and 2c+1 of chunk c = 64-element X8 unit (unit >> 1); half h of each
        const X8Unit u = x8Unit(static_cast<const int8_t*>(x), k, unit >> 1);
        const int h = unit & 1;
        return X{x8Piece(u, h), x8Piece(u, 2 + h), x8Record(u, 0), x8Record(u, 1)};
    }
    __device__ static float dot(const Raw& r, const X& x, int unit) {
        const uint32_t m4 = 0x0F0F0F0Fu;
        const int sa = dot16(r.q.x & m4, r.q.y & m4, r.q.z & m4, r.q.w & m4, x.a);
        const int sb = dot16((r.q.x >> 4) & m4, (r.q.y >> 4) & m4, (r.q.z >> 4) & m4, (r.q.w >> 4) & m4, x.b);
        const bool h = unit & 1;
        const int suma = __float_as_int(h ? x.ra.z : x.ra.y), sumb = __float_as_int(h ? x.rb.z : x.rb.y);
        uint32_t sc, mn;
        kScaleMin(r.h, (unit & 7) >> 1, sc, mn);
        const float d = halfBits(r.h.x), dmin = halfBits(r.h.x >> 16);
        return x.ra.x * (d * float(int(sc & 0xFF) * sa) - dmin * float(int(mn & 0xFF) * suma)) +
               x.rb.x * (d * float(int(sc >> 8) * sb) - dmin * float(int(mn >> 8) * sumb));
    }
};

} // namespace

cudaError_t detail::gemvQ4K(const GemvCall& call) {
    if (call.variant & kGemvQ4K32Units) return launchGemv<Q4K32>(call);
    if (call.variant & kGemvPairsBypassL1) return launchGemv<Q4K<false>>(call);
    return launchGemv<Q4K<true>>(call);
}

} // namespace hearth::kernels
