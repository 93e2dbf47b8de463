// Q4_K GEMV: the launcher, and the 32-element-unit experiment beside the format's traits
// (gemv_q4k.cuh, which says how a block is read).
#include "gemv_q4k.cuh"

namespace hearth::kernels {
namespace {

using namespace detail;

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
