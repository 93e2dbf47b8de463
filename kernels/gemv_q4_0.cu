// Q4_0 GEMV (repacked layout, X8 activations, __dp4a), and the repack from GGUF.
//
// GGUF's 18-byte Q4_0 block (fp16 d, qs[16]; element j<16 = low nibble of qs[j], j+16 = high
// nibble; x = d·(q−8)) is only 2-byte aligned, so rows are repacked once into two regions:
//   quants [n][k/32][16]  (one aligned 16-byte load per block)
//   d      [n][k/32]      fp16
// A unit is one block, which is one X8 group; the −8 is folded into the integer dot product
// with the group's stored Σx_q.
#include "gemv_kernel.cuh"

namespace hearth::kernels {
namespace {

using namespace detail;

struct Q40 {
    static constexpr int kRows[3] = {4, 4, 8}; // wide, tall, LM head
    static constexpr int kUnitElems = 32;
    struct Raw {
        uint4 q;
        uint32_t d;
    };
    using X = X8Group;

    __device__ static Raw load(const Mat& m, int row, int unit) {
        const size_t nb = size_t(m.k / 32);
        const size_t blk = size_t(row) * nb + size_t(unit);
        Raw r;
        r.q = ldStream16(m.w + blk * 16);
        r.d = ldStream2(m.w + size_t(m.n) * nb * 16 + blk * 2);
        return r;
    }
    __device__ static X loadX(const void* x, int k, int unit) {
        return loadX8(static_cast<const int8_t*>(x), k, unit);
    }
    __device__ static float dot(const Raw& r, const X& x, int) {
        const uint32_t m4 = 0x0F0F0F0Fu;
        int s = dot16(r.q.x & m4, r.q.y & m4, r.q.z & m4, r.q.w & m4, x.lo);
        s = dot16((r.q.x >> 4) & m4, (r.q.y >> 4) & m4, (r.q.z >> 4) & m4, (r.q.w >> 4) & m4, x.hi, s);
        return halfBits(r.d) * x.rec.x * float(s - 8 * (x.sumLo() + x.sumHi()));
    }
};

static __global__ void repackQ40Kernel(const uint8_t* __restrict__ src, uint8_t* __restrict__ dst, size_t blocks) {
    const size_t b = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (b >= blocks) return;
    const uint8_t* s = src + b * 18;
    uint8_t* q = dst + b * 16;
    for (int i = 0; i < 16; ++i) q[i] = s[2 + i];
    uint8_t* d = dst + blocks * 16 + b * 2;
    d[0] = s[0];
    d[1] = s[1];
}

} // namespace

cudaError_t detail::repackQ4_0(const void* gguf, void* dst, int n, int k, cudaStream_t stream) {
    const size_t blocks = size_t(n) * (k / 32);
    repackQ40Kernel<<<unsigned((blocks + 255) / 256), 256, 0, stream>>>(static_cast<const uint8_t*>(gguf),
                                                                        static_cast<uint8_t*>(dst), blocks);
    return cudaGetLastError();
}

cudaError_t detail::gemvQ4_0(const GemvCall& call) { return launchGemv<Q40>(call); }

} // namespace hearth::kernels
