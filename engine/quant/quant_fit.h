// Scale fitting shared by the quantizers: for a short group of floats, the scale (and min) whose
// uniform grid gives the least squared error. Internal to engine/quant.
#pragma once

#include <cstdint>

#include "quant/dequantize.h"

namespace hearth::quant {

// Rounds to the nearest integer (ties to even) for |v| < 2^22, without a libm call so that loops
// over it vectorise at the baseline instruction set.
inline float roundNearest(float v) {
    // Adding 1.5·2^23 pushes the fraction out of the mantissa (the FPU rounds it to even);
    // this relies on the engine never being built with -ffast-math, which could fold it away.
    constexpr float kMagic = 12582912.0f;
    return (v + kMagic) - kMagic;
}

// Written as max-then-min so that it maps onto SIMD max/min instructions.
inline float clampf(float v, float lo, float hi) {
    const float atLeastLo = v < lo ? lo : v;
    return hi < atLeastLo ? hi : atLeastLo;
}

// Stores a block scale as fp16 (saturating at ±65504 rather than becoming Inf, which
// validateBlocks would reject) and returns, in `rounded`, the value readers will see: the
// elements are then quantized against that value, not the unrounded one.
inline uint16_t storeHalfScale(float d, float& rounded) {
    const float kMaxHalf = 65504.0f;
    const uint16_t h = floatToHalf(clampf(d, -kMaxHalf, kMaxHalf));
    rounded = halfToFloat(h);
    return h;
}

// Symmetric grid x ≈ d·q with q in [lo, hi] (lo < 0 < hi). Returns d, signed so that the
// largest-magnitude element lands on `lo` (ggml's convention for Q4_0/Q5_0/Q6_K, which uses the
// extra negative level), or 0 when the group is all zero. `tries` candidate divisors around
// that starting point are compared by least-squares error; each candidate's d is refitted.
float fitSymmetric(const float* x, int n, int lo, int hi, int tries);

// Affine grid x ≈ scale·q − min with q in [0, qmax], scale >= 0, min >= 0 (GGUF's K-type mins
// only shift downwards). Minimises squared error over a small search of grid spacings, each
// refitted by least squares.
void fitAffine(const float* x, int n, int qmax, int tries, float& scale, float& min);

} // namespace hearth::quant
