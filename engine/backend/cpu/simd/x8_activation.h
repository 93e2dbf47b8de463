// The CPU fast path's 8-bit activation: x quantized once per matrix-vector product, in blocks of
// 32 (the block of Q8_0/Q4_0/Q5_0 and a sub-block of Q4_K/Q5_K; two sub-blocks of Q6_K), so the
// dot products run on integer multiply-adds with one float multiply per block. Each block keeps
// the integer sums of its two halves, which fold the weights' offsets (Q4_0's −8, Q6_K's −32) and
// the K types' mins into one multiply. The same idea as the GPU's X8 (kernels/gemv.h), with a
// plain array layout.
#pragma once

#include <cstdint>
#include <vector>

namespace hearth::cpu {

struct X8Block {
    float d;         // x ≈ d · q
    int16_t sumLo;   // Σ q over elements 0..15
    int16_t sumHi;   // Σ q over elements 16..31
    int8_t q[32];
};
static_assert(sizeof(X8Block) == 40);

// x[n] (n a multiple of 32) → n/32 blocks: d = max|x|/127, q = round(x/d) (ties away from zero).
void quantizeX8(const float* x, int64_t n, X8Block* out);

} // namespace hearth::cpu
