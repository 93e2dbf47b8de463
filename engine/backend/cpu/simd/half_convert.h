// fp32 → fp16 for many values at once (the KV cache's store): F16C where the CPU has it and
// HEARTH_CPU_SIMD allows it, bit for bit floatToHalf (quant/half.h) either way — round to nearest
// even, NaN as its one quiet pattern.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hearth::cpu {

void floatsToHalves(const float* x, uint16_t* out, size_t n);

} // namespace hearth::cpu
