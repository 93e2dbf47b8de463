// Batch-1 matrix-vector products y = W·x for the weight types Hearth stores (GGUF block
// semantics), dequantizing in registers with fp32 accumulation. One entry for every type
// (launchGemv, launchGemvGateUp), and gemvSupports says which shapes it takes. Launchers take raw
// device pointers, shapes and a stream; they allocate nothing and return the launch's
// cudaError_t (cudaErrorInvalidValue, launching nothing, for a call they do not support).
//
// Matrices are row-major: n rows (outputs) of k elements (inputs), k a multiple of the block
// (256 for K-types, 32 for Q8_0/Q4_0/Q5_0, 8 for BF16; any k for F16/F32).
//
// Two x forms:
//  - BF16 weights read x as fp32.
//  - Quantized weights read x quantized once to 8 bits ("X8", launchQuantizeX8): int8 values
//    with one fp32 scale per 32 elements, so the inner products run on __dp4a with one int->float
//    conversion per 32 weights. One X8 buffer serves every matrix that reads the same x
//    (q/k/v, gate/up).
//
// Layouts: Q4_K and Q5_K are used exactly as stored in GGUF (144/176-byte blocks are 16-byte
// multiples, so every 16-byte load is aligned). Q6_K (210 B), Q8_0 (34 B) and Q4_0 (18 B) blocks
// are only 2-byte aligned in GGUF, so they are repacked once on the device (launchGemvRepack)
// into a split layout — aligned quants, then scales — holding exactly the same values and bytes.
//
// Tuning experiments kept for the benchmark live in gemv_experiments.h, not here.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

namespace hearth::kernels {

// The weight types. Each has one device layout: GGUF's own, or its repack (gemvNeedsRepack).
// F32, F16 and Q5_0 take the generic kernel (gemv_generic.cu: fp32 x, one warp per row): they
// are rare in the models people run, so they are correct rather than tuned.
enum class GemvType { Q4_K, Q5_K, Q6_K, Q8_0, Q4_0, BF16, F32, F16, Q5_0 };
// True for the types whose GEMV reads x as X8 (launchQuantizeX8); the others read fp32 x.
bool gemvTakesX8(GemvType type);

// Per-launch options. Zero means "choose from the shape".
struct GemvLaunch {
    bool pdl = false;     // programmatic dependent launch (sm_90+): the kernel starts loading its
                          // weights while the previous kernel in the stream is still running
    int rowsPerBlock = 0; // 1, 2, 4 or 8 (gate+up: 1, 2 or 4)
    int warps = 0;        // 1..8 warps per block
};

// True when the launchers take an n×k matrix of `type`: n > 0, k > 0 a multiple of its block.
bool gemvSupports(GemvType type, int n, int k);
// True for the types whose device layout is a repack of GGUF's (Q6_K, Q8_0, Q4_0).
bool gemvNeedsRepack(GemvType type);
// Bytes of one row of k elements in the device layout (the same bytes as GGUF's); 0 when
// gemvSupports(type, 1, k) is false.
size_t gemvRowBytes(GemvType type, int k);
// True for the types whose launchers honour GemvLaunch::rowsPerBlock (the skeleton of
// gemv_kernel.cuh); the generic kernel (F32, F16, Q5_0) picks its own shape.
bool gemvTakesRowsPerBlock(GemvType type);

// ---- activation quantization -------------------------------------------------------------

// X8 layout (k a multiple of 32). q = round(x/d) as int8 with, per group of 32 elements, a
// 16-byte record {float d, int Σq of elements 0..15, int Σq of 16..31, float d·Σq}. x is cut
// into units of 64 elements, U = ceil(k/64), 32 units to a tile; within a tile the 16-byte
// pieces are interleaved so that 32 lanes reading the same piece of 32 consecutive units read
// 512 contiguous bytes (a GEMV thread takes consecutive units; in plain order each warp load of
// x touched 16 cache lines). For unit u (tile t = u/32, lane l = u%32, n = units in tile t):
//   value e (0..63) at 2048·t + 16·n·(e/16) + 16·l + e%16
//   record of half h (elements 64u+32h..+31, group 2u+h) at 64·U + 1024·t + 16·n·h + 16·l
// gemvX8Unit is the layout's only definition: the GEMVs read and launchQuantizeX8 writes through
// it. Indices are non-negative (shifts and masks stand for / and %).
__host__ __device__ constexpr int gemvX8Units(int k) { return (k + 63) >> 6; }
__host__ __device__ constexpr size_t gemvX8Bytes(int k) { return size_t(gemvX8Units(k)) * 96; }
// Where unit u lives: piece c of its values (elements 64u+16c..+15) at values + c·stride, the
// record of its half h at records + h·stride.
struct GemvX8Unit {
    size_t values;
    size_t records;
    int stride; // 16 · units in u's tile (32, fewer in the last tile)
};
// (Each term is widened on its own: written so, the GEMVs compile to the code that was measured.)
__host__ __device__ constexpr GemvX8Unit gemvX8Unit(int k, int u) {
    const int units = gemvX8Units(k), t = u >> 5, l = u & 31, rest = units - 32 * t;
    const int n = rest < 32 ? rest : 32;
    return {size_t(2048 * t) + size_t(16 * l), size_t(64 * units) + size_t(1024 * t) + size_t(16 * l),
            16 * n};
}
// Element i's value and group g's record.
__host__ __device__ constexpr size_t gemvX8ValueOffset(int k, int i) {
    const GemvX8Unit x = gemvX8Unit(k, i >> 6);
    const int e = i & 63;
    return x.values + size_t(x.stride * (e >> 4) + (e & 15));
}
__host__ __device__ constexpr size_t gemvX8RecordOffset(int k, int group) {
    const GemvX8Unit x = gemvX8Unit(k, group >> 1);
    return x.records + size_t(x.stride * (group & 1));
}

// x (fp32, k elements) -> X8. q = round(x/d), d = max|x|/127 per group of 32.
cudaError_t launchQuantizeX8(const float* x, int k, void* xq, cudaStream_t stream, const GemvLaunch& opt = {});

// ---- repack (GGUF rows -> the device layout; dst must not overlap src) --------------------

// For the gemvNeedsRepack types (cudaErrorInvalidValue for the others). Bytes are unchanged:
// n·k/256·210 (Q6_K), n·k/32·34 (Q8_0), n·k/32·18 (Q4_0).
cudaError_t launchGemvRepack(GemvType type, const void* gguf, void* dst, int n, int k, cudaStream_t stream);

// ---- y = W·x -----------------------------------------------------------------------------

// w: n×k in the device layout of `type`; x: X8 (launchQuantizeX8) where gemvTakesX8(type), else
// k fp32 values; y: n floats.
cudaError_t launchGemv(GemvType type, const void* w, const void* x, float* y, int n, int k, cudaStream_t stream,
                       const GemvLaunch& opt = {});

// Fused gate + up + SiLU: y = silu(Wg·x) * (Wu·x), both n×k of `type`, one x.
cudaError_t launchGemvGateUp(GemvType type, const void* wg, const void* wu, const void* x, float* y, int n, int k,
                             cudaStream_t stream, const GemvLaunch& opt = {});

// ---- two matrices of different types in one launch ----------------------------------------
// A layer's input projections whose types differ (Q4_K_M keeps attn_v, and on half the layers
// Qwen3.5's DeltaNet qkv, in Q6_K beside Q4_K): y = W·x for both, reading one X8 x of k
// elements, each block computing exactly what launchGemv with that matrix's rowsPerBlock would
// (bit-identical), with one hand-over between kernels fewer than two launches.
struct GemvMatrix {
    GemvType type;
    const void* w; // n×k in the device layout of `type`
    float* y;      // n floats
    int n;
    int rowsPerBlock = 0; // 1, 2, 4 or 8; 0: chosen from the shape as launchGemv does
};
// True for the pairs launchGemvPair takes: Q4_K then Q6_K, or Q6_K then Q4_K.
bool gemvPairSupported(GemvType first, GemvType second);
cudaError_t launchGemvPair(const GemvMatrix& first, const GemvMatrix& second, const void* x, int k,
                           cudaStream_t stream, bool pdl = false);

} // namespace hearth::kernels
