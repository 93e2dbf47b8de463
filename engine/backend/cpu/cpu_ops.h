// The reference maths of the CPU forward pass, small pure functions named after what they
// compute (fp32, one vector at a time). They define what every GPU kernel is tested against.
#pragma once

#include <cmath>
#include <cstdint>

#include "model/model_config.h"

namespace hearth::cpu {

// out = x / rms(x) * weight over n values (the sum of squares in double: order-independent
// enough for a 5120-vector). out may be x.
void rmsnorm(float* out, const float* x, const float* weight, int64_t n, float eps);
// In place: x = softmax(x) over n values.
void softmax(float* x, int64_t n);
inline float silu(float x) { return x / (1.0f + std::exp(-x)); }

// Rotates the first rope.dims dimensions of each of `heads` vectors of headDim at position
// `pos`, pairing dimensions as rope.pairing says (partial rotary leaves the rest unchanged).
void applyRope(float* vec, int heads, int headDim, int32_t pos, const RopeParams& rope, const RopeTable& table);

} // namespace hearth::cpu
