// The CPU fast path's 8-bit activations: x quantized once per matrix product, so the dot products
// run on integer multiply-adds. X8: blocks of 32 (the block of Q8_0/Q4_0/Q5_0), one float multiply
// per block, with the integer sums of its two halves for the weights' offsets (Q4_0's −8). The same
// idea as the GPU's X8 (kernels/gemv.h), with a plain array layout. XK: blocks of 256 for the K
// types (below).
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

// The K types' activation: one scale per 256 values (a K super-block), so a super-block's
// sub-block scales stay integers and its whole dot product is one integer sum times one float.
// sums[i] is Σ q over elements 16i..16i+15 (Q6_K's sub-blocks; pairs give Q4_K/Q5_K's), for the
// mins and Q6_K's −32.
struct alignas(32) XKBlock {
    int8_t q[256];
    int16_t sums[16];
    float d; // x ≈ d · q
};
static_assert(sizeof(XKBlock) == 320);

// x[n] (n a multiple of 256) → n/256 blocks, rounded as quantizeX8 rounds.
void quantizeXK(const float* x, int64_t n, XKBlock* out);

// Both with plain scalar code: what the SIMD forms above (AVX2 where the CPU has it and
// HEARTH_CPU_SIMD allows it) are tested against, bit for bit.
void quantizeX8Scalar(const float* x, int64_t n, X8Block* out);
void quantizeXKScalar(const float* x, int64_t n, XKBlock* out);

} // namespace hearth::cpu
