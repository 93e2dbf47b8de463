// Q8_0 GEMV (repacked layout, X8 activations, __dp4a), and the repack from GGUF.
//
// GGUF's 34-byte Q8_0 block (fp16 d, int8 qs[32]) is only 2-byte aligned, so rows are repacked
// once into two regions with the same values and bytes:
//   quants [n][k/32][32] int8   (16-byte aligned: two 16-byte loads per block)
//   d      [n][k/32]     fp16
// A unit is one block, which is one X8 group: y += d·d_x·dot(q, x_q).
#include "gemv_kernel.cuh"

namespace hearth::kernels {
namespace {

using namespace detail;

template <bool L1>
struct Q80 {
    static constexpr int kRows[3] = {8, 4, 8}; // wide, tall, LM head
    static constexpr int kUnitElems = 32;
    struct Raw {
        uint4 a, b;
        uint32_t d;
    };
    using X = X8Group;

    __device__ static Raw load(const Mat& m, int row, int unit) {
        const size_t nb = size_t(m.k / 32);
        const size_t blk = size_t(row) * nb + size_t(unit);
        const uint8_t* q = m.w + blk * 32;
        Raw r;
        r.a = ldPair16<L1>(q);
        r.b = ldPair16<L1>(q + 16);
        r.d = ldStream2(m.w + size_t(m.n) * nb * 32 + blk * 2);
        return r;
    }
    __device__ static X loadX(const void* x, int k, int unit) {
        return loadX8(static_cast<const int8_t*>(x), k, unit);
    }
    __device__ static float dot(const Raw& r, const X& x, int) {
        const int s = dot16(r.b.x, r.b.y, r.b.z, r.b.w, x.hi, dot16(r.a.x, r.a.y, r.a.z, r.a.w, x.lo));
        return halfBits(r.d) * x.rec.x * float(s);
    }
};

// One thread per block: 32 bytes of quants and the scale.
static __global__ void repackQ80Kernel(const uint8_t* __restrict__ src, uint8_t* __restrict__ dst, size_t blocks) {
    const size_t b = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (b >= blocks) return;
    const uint8_t* s = src + b * 34;
    uint8_t* q = dst + b * 32;
    for (int i = 0; i < 32; ++i) q[i] = s[2 + i];
    uint8_t* d = dst + blocks * 32 + b * 2;
    d[0] = s[0];
    d[1] = s[1];
}

} // namespace

cudaError_t detail::repackQ8_0(const void* gguf, void* dst, int n, int k, cudaStream_t stream) {
    const size_t blocks = size_t(n) * (k / 32);
    repackQ80Kernel<<<unsigned((blocks + 255) / 256), 256, 0, stream>>>(static_cast<const uint8_t*>(gguf),
                                                                        static_cast<uint8_t*>(dst), blocks);
    return cudaGetLastError();
}

cudaError_t detail::gemvQ8_0(const GemvCall& call) {
    if (call.variant & kGemvPairsBypassL1) return launchGemv<Q80<false>>(call);
    return launchGemv<Q80<true>>(call);
}

} // namespace hearth::kernels
