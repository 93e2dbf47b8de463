// Converting stored rows to float32 and dotting them with float32 vectors: the CPU reference
// for every weight type. Rows hold whole blocks (checked at load).
#pragma once

#include <cstdint>

#include "quant/types.h"

namespace hearth {

// Converts `n` elements of `type` at `src` into `dst`. `type` must be isComputeSupported().
void dequantizeRow(DType type, const uint8_t* src, float* dst, int64_t n);

// Dot product of one stored row with x[0..n). Summation order is fixed (independent of threads).
float dotRow(DType type, const uint8_t* row, const float* x, int64_t n);

float halfToFloat(uint16_t h);
uint16_t floatToHalf(float f);
float bf16ToFloat(uint16_t b);
uint16_t floatToBf16(float f); // round to nearest even; NaN stays NaN

} // namespace hearth
