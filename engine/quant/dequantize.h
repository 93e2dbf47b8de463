// Converting stored rows to float32 and dotting them with float32 vectors: the CPU reference
// for every weight type. Rows hold whole blocks (checked at load).
#pragma once

#include <cstdint>

#include "quant/half.h" // halfToFloat, floatToHalf, bf16ToFloat, floatToBf16
#include "quant/types.h"

namespace hearth {

// Converts `n` elements of `type` at `src` into `dst`. `type` must be isComputeSupported().
void dequantizeRow(DType type, const uint8_t* src, float* dst, int64_t n);

// Dot product of one stored row with x[0..n). Summation order is fixed (independent of threads).
float dotRow(DType type, const uint8_t* row, const float* x, int64_t n);

} // namespace hearth
