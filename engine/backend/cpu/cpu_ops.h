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

// A position's rotation: cos and sin (times the table's magnitude) of each pair's angle at `pos`,
// rope.dims / 2 values each. The same for every head and layer, so a pass computes it once a token
// (a small model's sin/cos per head and layer had cost more than its attention).
void ropeRotation(int32_t pos, const RopeParams& rope, const RopeTable& table, float* cosOut, float* sinOut);
// Rotates the first rope.dims dimensions of each of `heads` vectors of headDim by a position's
// rotation, pairing dimensions as rope.pairing says (partial rotary leaves the rest unchanged).
void rotate(float* vec, int heads, int headDim, const RopeParams& rope, const float* cos, const float* sin);
// Both at once: one position's rotation applied to `heads` vectors.
void applyRope(float* vec, int heads, int headDim, int32_t pos, const RopeParams& rope, const RopeTable& table);

} // namespace hearth::cpu
