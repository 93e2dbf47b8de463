// Batch-1 matrix-vector products y = W·x for the weight types Hearth stores (GGUF block
// semantics), dequantizing in registers with fp32 accumulation. Host launchers take raw device
// pointers, shapes and a stream; they allocate nothing and return the launch's cudaError_t.
//
// Matrices are row-major: n rows (outputs) of k elements (inputs), k a multiple of the block
// (256 for K-types, 32 for Q8_0/Q4_0, 8 for BF16).
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
// are only 2-byte aligned in GGUF, so they are repacked once on the device (launchRepack*) into
// a split layout — aligned quants, then scales — holding exactly the same values and bytes.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

namespace hearth::kernels {

// Per-launch options. Zero means "choose from the shape".
struct GemvLaunch {
    bool pdl = false;     // programmatic dependent launch (sm_90+): the kernel starts loading its
                          // weights while the previous kernel in the stream is still running
    int rowsPerBlock = 0; // 1, 2, 4 or 8 (gate+up: 1, 2 or 4)
    int warps = 0;        // 1..8 warps per block
    int variant = 0;      // tuning experiments kept for the benchmark (0 = the measured best):
                          // bit 0: Q4_K with 32-element units; bit 1: paired 16-byte weight
                          // loads bypass L1 (Q4_K/Q5_K/Q6_K/Q8_0); bit 2: software-pipelined k loop
};

// ---- activation quantization -------------------------------------------------------------

// X8 layout (k a multiple of 32). q = round(x/d) as int8 with, per group of 32 elements, a
// 16-byte record {float d, int Σq of elements 0..15, int Σq of 16..31, float d·Σq}. x is cut
// into units of 64 elements, U = ceil(k/64), 32 units to a tile; within a tile the 16-byte
// pieces are interleaved so that 32 lanes reading the same piece of 32 consecutive units read
// 512 contiguous bytes (a GEMV thread takes consecutive units; in plain order each warp load of
// x touched 16 cache lines). For unit u (tile t = u/32, lane l = u%32, n = units in tile t):
//   value e (0..63) at 2048·t + 16·n·(e/16) + 16·l + e%16
//   record of group h (elements 32h..32h+31) at 64·U + 1024·t + 16·n·h + 16·l
__host__ __device__ constexpr int gemvX8Units(int k) { return (k + 63) / 64; }
__host__ __device__ constexpr size_t gemvX8Bytes(int k) { return size_t(gemvX8Units(k)) * 96; }
__host__ __device__ constexpr size_t gemvX8ValueOffset(int k, int i) {
    const int u = i / 64, e = i % 64, t = u / 32, units = gemvX8Units(k);
    const int n = units - 32 * t < 32 ? units - 32 * t : 32;
    return size_t(t) * 2048 + size_t(16 * n * (e / 16) + 16 * (u % 32) + e % 16);
}
__host__ __device__ constexpr size_t gemvX8RecordOffset(int k, int group) {
    const int u = group / 2, h = group % 2, t = u / 32, units = gemvX8Units(k);
    const int n = units - 32 * t < 32 ? units - 32 * t : 32;
    return size_t(units) * 64 + size_t(t) * 1024 + size_t(16 * n * h + 16 * (u % 32));
}

// x (fp32, k elements) -> X8. q = round(x/d), d = max|x|/127 per group of 32.
cudaError_t launchQuantizeX8(const float* x, int k, void* xq, cudaStream_t stream, const GemvLaunch& opt = {});

// ---- repacks (GGUF rows -> the device layout; dst must not overlap src) -------------------

// Bytes are unchanged by the repacks: n·k/256·210 (Q6_K), n·k/32·34 (Q8_0), n·k/32·18 (Q4_0).
cudaError_t launchRepackQ6K(const void* gguf, void* dst, int n, int k, cudaStream_t stream);
cudaError_t launchRepackQ8_0(const void* gguf, void* dst, int n, int k, cudaStream_t stream);
cudaError_t launchRepackQ4_0(const void* gguf, void* dst, int n, int k, cudaStream_t stream);

// ---- y = W·x -----------------------------------------------------------------------------

// GGUF layout, X8 input.
cudaError_t launchGemvQ4K(const void* w, const void* xq, float* y, int n, int k, cudaStream_t stream,
                          const GemvLaunch& opt = {});
cudaError_t launchGemvQ5K(const void* w, const void* xq, float* y, int n, int k, cudaStream_t stream,
                          const GemvLaunch& opt = {});
// Repacked layout (launchRepack*), X8 input.
cudaError_t launchGemvQ6K(const void* w, const void* xq, float* y, int n, int k, cudaStream_t stream,
                          const GemvLaunch& opt = {});
cudaError_t launchGemvQ8_0(const void* w, const void* xq, float* y, int n, int k, cudaStream_t stream,
                           const GemvLaunch& opt = {});
cudaError_t launchGemvQ4_0(const void* w, const void* xq, float* y, int n, int k, cudaStream_t stream,
                           const GemvLaunch& opt = {});
// Row-major bf16, fp32 x.
cudaError_t launchGemvBF16(const void* w, const float* x, float* y, int n, int k, cudaStream_t stream,
                           const GemvLaunch& opt = {});

// ---- fused gate + up + SiLU: y = silu(Wg·x) * (Wu·x), both n×k of the same type ------------

cudaError_t launchGemvGateUpQ4K(const void* wg, const void* wu, const void* xq, float* y, int n, int k,
                                cudaStream_t stream, const GemvLaunch& opt = {});
cudaError_t launchGemvGateUpQ5K(const void* wg, const void* wu, const void* xq, float* y, int n, int k,
                                cudaStream_t stream, const GemvLaunch& opt = {});
cudaError_t launchGemvGateUpQ6K(const void* wg, const void* wu, const void* xq, float* y, int n, int k,
                                cudaStream_t stream, const GemvLaunch& opt = {});
cudaError_t launchGemvGateUpQ8_0(const void* wg, const void* wu, const void* xq, float* y, int n, int k,
                                 cudaStream_t stream, const GemvLaunch& opt = {});
cudaError_t launchGemvGateUpQ4_0(const void* wg, const void* wu, const void* xq, float* y, int n, int k,
                                 cudaStream_t stream, const GemvLaunch& opt = {});
cudaError_t launchGemvGateUpBF16(const void* wg, const void* wu, const float* x, float* y, int n, int k,
                                 cudaStream_t stream, const GemvLaunch& opt = {});

} // namespace hearth::kernels
