// Q6_K GEMV (repacked layout, X8 activations, __dp4a), and the repack from GGUF.
//
// GGUF's 210-byte Q6_K block is only 2-byte aligned, so rows are repacked once into three
// regions (same values, same 210 bytes per block):
//   quants  [n][k/256][192]: per block 8 slices of 32 elements; slice j owns lo[16·j..+16] and
//           hi[8·j..+8] (lo = bytes 0..127, hi = bytes 128..191 of the block)
//             lo byte b:  low nibble = q(32j+b) & 15, high nibble = q(32j+16+b) & 15
//             hi word 0:  bits 8i+2w..+1 = q(32j+4w+i) >> 4       (w, i in 0..3)
//             hi word 1:  the same for q(32j+16+4w+i)
//           so ((hi >> 2w) & 0x03030303) << 4 drops the top two bits of four consecutive
//           elements straight into the int8 lanes of the matching low-nibble word;
//   scales  [n][k/256][16] int8, in GGUF order (sub-block e/16);
//   d       [n][k/256] fp16.
// q is the stored 6-bit value (0..63); the element is d·sc·(q − 32).
#include "gemv_q6k.cuh"

namespace hearth::kernels {
namespace {

using namespace detail;

// GGUF element e (0..255) of a Q6_K block: the 6-bit stored value.
__device__ __forceinline__ uint32_t q6Value(const uint8_t* blk, int e) {
    const int half = e >> 7, r = e & 127, quarter = r >> 5, l = r & 31;
    const uint8_t ql = blk[64 * half + l + 32 * (quarter & 1)];
    const uint8_t qh = blk[128 + 32 * half + l];
    const uint32_t nib = (quarter >> 1) ? (ql >> 4) : (ql & 15);
    return nib | (((qh >> (2 * quarter)) & 3u) << 4);
}

// One thread per (row, block, unit).
static __global__ void repackQ6KKernel(const uint8_t* __restrict__ src, uint8_t* __restrict__ dst, int n, int nb) {
    const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const size_t blocks = size_t(n) * nb;
    if (t >= blocks * 8) return;
    const size_t blk = t >> 3;
    const int j = int(t & 7);
    const uint8_t* s = src + blk * 210;
    uint8_t lo[16];
    uint32_t h0 = 0, h1 = 0;
    for (int b = 0; b < 16; ++b) {
        const uint32_t a = q6Value(s, 32 * j + b), c = q6Value(s, 32 * j + 16 + b);
        lo[b] = uint8_t((a & 15) | ((c & 15) << 4));
        const int w = b >> 2, i = b & 3;
        h0 |= (a >> 4) << (8 * i + 2 * w);
        h1 |= (c >> 4) << (8 * i + 2 * w);
    }
    uint8_t* q = dst + blk * 192;
    for (int b = 0; b < 16; ++b) q[16 * j + b] = lo[b];
    for (int i = 0; i < 4; ++i) {
        q[128 + 8 * j + i] = uint8_t(h0 >> (8 * i));
        q[128 + 8 * j + 4 + i] = uint8_t(h1 >> (8 * i));
    }
    if (j == 0) {
        uint8_t* sc = dst + blocks * 192 + blk * 16;
        for (int i = 0; i < 16; ++i) sc[i] = s[192 + i];
        uint8_t* d = dst + blocks * 208 + blk * 2;
        d[0] = s[208];
        d[1] = s[209];
    }
}

} // namespace

cudaError_t detail::repackQ6K(const void* gguf, void* dst, int n, int k, cudaStream_t stream) {
    const size_t threads = size_t(n) * (k / 256) * 8;
    repackQ6KKernel<<<unsigned((threads + 255) / 256), 256, 0, stream>>>(static_cast<const uint8_t*>(gguf),
                                                                         static_cast<uint8_t*>(dst), n, k / 256);
    return cudaGetLastError();
}

cudaError_t detail::gemvQ6K(const GemvCall& call) {
    if (call.variant & kGemvPairsBypassL1) return launchGemv<Q6K<false>>(call);
    return launchGemv<Q6K<true>>(call);
}

} // namespace hearth::kernels
