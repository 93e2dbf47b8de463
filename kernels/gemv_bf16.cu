// BF16 GEMV with fp32 x: a unit is 8 weights (one 16-byte load) and the 8 matching x values
// (two float4 loads through L1, shared by the R rows of the block). bf16 -> fp32 is a shift or
// a mask, so this family is purely a stream; it is the calibration point for the others.
#include "gemv_kernel.cuh"

namespace hearth::kernels {
namespace {

using namespace detail;

struct BF16 {
    static constexpr int kRows[3] = {2, 2, 2}; // wide, tall, LM head
    static constexpr int kUnitElems = 8;
    using Raw = uint4;
    struct X {
        float4 a, b;
    };

    __device__ static Raw load(const Mat& m, int row, int unit) {
        return ldStream16(m.w + (size_t(row) * size_t(m.k) + size_t(unit) * 8) * 2);
    }
    __device__ static X loadX(const void* x, int, int unit) {
        const float4* p = static_cast<const float4*>(x) + 2 * unit;
        return X{__ldg(p), __ldg(p + 1)};
    }
    __device__ static float lo(uint32_t w) { return __uint_as_float(w << 16); }
    __device__ static float hi(uint32_t w) { return __uint_as_float(w & 0xFFFF0000u); }
    __device__ static float dot(const Raw& r, const X& x, int) {
        float s = lo(r.x) * x.a.x;
        s = fmaf(hi(r.x), x.a.y, s);
        s = fmaf(lo(r.y), x.a.z, s);
        s = fmaf(hi(r.y), x.a.w, s);
        s = fmaf(lo(r.z), x.b.x, s);
        s = fmaf(hi(r.z), x.b.y, s);
        s = fmaf(lo(r.w), x.b.z, s);
        return fmaf(hi(r.w), x.b.w, s);
    }
};

} // namespace

cudaError_t detail::gemvBF16(const GemvCall& call) { return launchGemv<BF16>(call); }

} // namespace hearth::kernels
