// The CPU fast path's kernels, one table per SIMD tier (simd_scalar.cpp, simd_avx2.cpp,
// simd_avx512.cpp): the rows of a weight matrix against the activations of one or several
// tokens, dequantizing in registers. Q8_0/Q4_0/Q5_0 rows read x as X8 blocks and the K types as
// XK blocks (integer multiply-adds, x8_activation.h); F16 and BF16 rows read fp32 x. A kernel
// walks a few rows and a few tokens at a time, so that the rows share each load of x and the
// tokens share each weight unpacked in registers (prefill's matrix products).
// Every tier computes the same sums in its own order: results agree to float rounding, and the
// reference (quant/dequantize.h's dotRow, fp32 x) is what they are tested against. Within a tier
// each (row, token) output is the same arithmetic whatever the grouping, so a product over many
// tokens gives, bit for bit, what one product per token gives.
#pragma once

#include <cstdint>

#include "backend/cpu/simd/cpu_features.h"
#include "backend/cpu/simd/x8_activation.h"
#include "quant/types.h"

namespace hearth::cpu {

// What a kernel reads as x.
enum class Activation { X8, XK, F32 };

// y[t·ldy + r] = row r · x_t for r < rows and t < tokens: row r at w + r·rowBytes, n columns;
// x holds the tokens' activations back to back (activationBytes(kind, n) each).
using MatKernel = void (*)(const uint8_t* w, uint64_t rowBytes, int64_t rows, const void* x, int tokens, int64_t n,
                           float* y, int64_t ldy);

// Bytes of one token's activation of n values (n a multiple of the kind's block).
uint64_t activationBytes(Activation kind, int64_t n);

struct SimdKernel {
    MatKernel run = nullptr; // null: the type has no fast kernel
    Activation x = Activation::F32;
};

// Attention's two loops over one head's cached positions (cpu_kv_cache.cpp), for a cache of F32,
// F16 or BF16 rows `stride` elements apart: scores[p] = scale · (q · k_p) for p < count, and
// out[dim] = Σ_p weights[p] · v_p.
using AttnScores = void (*)(const float* q, const void* keys, int64_t stride, int dim, int32_t count, float scale,
                            float* scores);
using AttnMix = void (*)(const float* weights, const void* values, int64_t stride, int dim, int32_t count, float* out);
struct AttnKernels {
    AttnScores scores = nullptr; // null: the reference loops
    AttnMix mix = nullptr;
};

struct SimdKernels {
    MatKernel q8_0 = nullptr, q4_0 = nullptr, q5_0 = nullptr, q4_k = nullptr, q5_k = nullptr, q6_k = nullptr;
    MatKernel f16 = nullptr, bf16 = nullptr;
    AttnKernels attnF32, attnF16, attnBf16;
    SimdKernel forType(DType type) const;
    AttnKernels attention(DType cacheType) const; // F32, F16 or BF16
};

const SimdKernels& scalarKernels();
const SimdKernels& avx2Kernels();   // the scalar table where the build has no AVX2 code
const SimdKernels& avx512Kernels(); // the AVX2 table where the build has no AVX-512 code
const SimdKernels& kernelsFor(SimdTier tier);

} // namespace hearth::cpu
