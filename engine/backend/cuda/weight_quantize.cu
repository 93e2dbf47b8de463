// One thread per output block: the CPU quantizer's block functions, unchanged, read the block's
// source elements from a local copy. Built with --fmad=false (CMakeLists.txt) so every product
// and sum rounds as on the CPU.
#include "backend/cuda/weight_quantize.h"


#include "quant/half.h"
#include "quant/quantize_block.h"

namespace hearth::cuda {
namespace {

// ggml type ids
constexpr uint32_t kF32 = 0, kF16 = 1, kQ4_0 = 2, kQ5_0 = 6, kQ8_0 = 8, kQ4_K = 12, kQ5_K = 13, kQ6_K = 14,
                   kBF16 = 30;

__device__ float loadSource(uint32_t from, const uint8_t* row, int64_t i) {
    if (from == kF32) return reinterpret_cast<const float*>(row)[i];
    const uint16_t bits = reinterpret_cast<const uint16_t*>(row)[i];
    return from == kF16 ? halfToFloat(bits) : bf16ToFloat(bits);
}

template <int Elements, void (*Quantize)(const float*, uint8_t*)>
__global__ void quantizeBlocks(uint32_t from, const uint8_t* src, uint64_t srcRowBytes, uint8_t* dst,
                               uint64_t dstRowBytes, int64_t rows, int64_t blocksPerRow, int blockBytes,
                               int64_t firstRow, unsigned long long* badRow) {
    const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= rows * blocksPerRow) return;
    const int64_t r = i / blocksPerRow, b = i % blocksPerRow;
    const uint8_t* row = src + uint64_t(r) * srcRowBytes;
    float x[Elements];
    bool finite = true;
    for (int e = 0; e < Elements; ++e) {
        x[e] = loadSource(from, row, b * Elements + e);
        finite &= quant::isFiniteFloat(x[e]);
    }
    if (!finite) {
        atomicMin(badRow, (unsigned long long)(firstRow + r));
        return;
    }
    Quantize(x, dst + uint64_t(r) * dstRowBytes + uint64_t(b) * uint64_t(blockBytes));
}

// Float targets (F32, F16, BF16): one thread per element.
__global__ void convertElements(uint32_t from, const uint8_t* src, uint64_t srcRowBytes, uint32_t to, uint8_t* dst,
                                uint64_t dstRowBytes, int64_t rows, int64_t cols, int64_t firstRow,
                                unsigned long long* badRow) {
    const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= rows * cols) return;
    const int64_t r = i / cols, c = i % cols;
    const float v = loadSource(from, src + uint64_t(r) * srcRowBytes, c);
    if (!quant::isFiniteFloat(v)) atomicMin(badRow, (unsigned long long)(firstRow + r));
    uint8_t* out = dst + uint64_t(r) * dstRowBytes;
    if (to == kF32) reinterpret_cast<float*>(out)[c] = v;
    else reinterpret_cast<uint16_t*>(out)[c] = to == kF16 ? floatToHalf(v) : floatToBf16(v);
}

// One conversion's arguments, as launchQuantizeRows received them.
struct Rows {
    uint32_t from;
    const void* src;
    uint64_t srcRowBytes;
    void* dst;
    uint64_t dstRowBytes;
    int64_t rows, cols, firstRow;
    unsigned long long* badRow;
    cudaStream_t stream;
};

template <int Elements, void (*Quantize)(const float*, uint8_t*)>
cudaError_t launchBlocks(const Rows& a, int blockBytes) {
    const int64_t blocksPerRow = a.cols / Elements;
    const int64_t total = a.rows * blocksPerRow;
    constexpr int kThreads = 128; // the K types keep ~2 KiB of locals per thread
    quantizeBlocks<Elements, Quantize><<<unsigned((total + kThreads - 1) / kThreads), kThreads, 0, a.stream>>>(
        a.from, static_cast<const uint8_t*>(a.src), a.srcRowBytes, static_cast<uint8_t*>(a.dst), a.dstRowBytes,
        a.rows, blocksPerRow, blockBytes, a.firstRow, a.badRow);
    return cudaGetLastError();
}

bool isFloatType(uint32_t t) { return t == kF32 || t == kF16 || t == kBF16; }

} // namespace

bool canQuantizeOnDevice(uint32_t from, uint32_t to) {
    if (!isFloatType(from)) return false;
    switch (to) {
    case kF32: case kF16: case kBF16: case kQ8_0: case kQ4_0: case kQ5_0: case kQ4_K: case kQ5_K: case kQ6_K:
        return true;
    default: return false;
    }
}

cudaError_t launchQuantizeRows(uint32_t from, const void* src, uint64_t srcRowBytes, uint32_t to, void* dst,
                               uint64_t dstRowBytes, int64_t rows, int64_t cols, int64_t firstRow,
                               unsigned long long* badRow, cudaStream_t stream) {
    if (!canQuantizeOnDevice(from, to) || rows <= 0 || cols <= 0) return cudaErrorInvalidValue;
    const Rows a{from, src, srcRowBytes, dst, dstRowBytes, rows, cols, firstRow, badRow, stream};
    switch (to) {
    case kQ8_0: return launchBlocks<kQK, quant::quantizeBlockQ8_0>(a, sizeof(BlockQ8_0));
    case kQ4_0: return launchBlocks<kQK, quant::quantizeBlockQ4_0>(a, sizeof(BlockQ4_0));
    case kQ5_0: return launchBlocks<kQK, quant::quantizeBlockQ5_0>(a, sizeof(BlockQ5_0));
    case kQ4_K: return launchBlocks<kQKK, quant::quantizeBlockQ4_K>(a, sizeof(BlockQ4_K));
    case kQ5_K: return launchBlocks<kQKK, quant::quantizeBlockQ5_K>(a, sizeof(BlockQ5_K));
    case kQ6_K: return launchBlocks<kQKK, quant::quantizeBlockQ6_K>(a, sizeof(BlockQ6_K));
    default: break; // the float types
    }
    const int64_t total = rows * cols;
    constexpr int kThreads = 256;
    convertElements<<<unsigned((total + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
        from, static_cast<const uint8_t*>(src), srcRowBytes, to, static_cast<uint8_t*>(dst), dstRowBytes, rows, cols,
        firstRow, badRow);
    return cudaGetLastError();
}

} // namespace hearth::cuda
