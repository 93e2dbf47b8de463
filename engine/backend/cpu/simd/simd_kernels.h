// The CPU fast path's dot products, one table per SIMD tier (simd_scalar.cpp, simd_avx2.cpp,
// simd_avx512.cpp): a stored row of a weight type against x, dequantizing in registers.
// Block-quantized rows take x as X8 blocks (integer multiply-adds); F16 and BF16 rows take fp32 x.
// Every tier computes the same sums in its own order: results agree to float rounding, and the
// reference (quant/dequantize.h's dotRow, fp32 x) is what they are tested against.
#pragma once

#include <cstdint>

#include "backend/cpu/simd/cpu_features.h"
#include "backend/cpu/simd/x8_activation.h"
#include "quant/types.h"

namespace hearth::cpu {

using DotX8 = float (*)(const uint8_t* row, const X8Block* x, int64_t n);
using DotF32 = float (*)(const uint8_t* row, const float* x, int64_t n);

struct SimdKernels {
    DotX8 q8_0 = nullptr, q4_0 = nullptr, q5_0 = nullptr, q4_k = nullptr, q5_k = nullptr, q6_k = nullptr;
    DotF32 f16 = nullptr, bf16 = nullptr;
    DotX8 x8(DType type) const;   // null for a type without an X8 kernel
    DotF32 f32(DType type) const; // null for a type without an fp32-x kernel
};

const SimdKernels& scalarKernels();
const SimdKernels& avx2Kernels();   // the scalar table where the build has no AVX2 code
const SimdKernels& avx512Kernels(); // the AVX2 table where the build has no AVX-512 code
const SimdKernels& kernelsFor(SimdTier tier);

} // namespace hearth::cpu
