// The AVX2 tier: AVX2, FMA and F16C. Only the functions after the target pragma are compiled for
// the tier (the headers above it stay baseline code, so no inline function of theirs is emitted
// with instructions another CPU lacks); cpu_features.cpp decides at run time whether to call them.
#include "backend/cpu/simd/simd_kernels.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "quant/blocks.h"
#include "quant/half.h"

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma,f16c"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma,f16c")
#endif
#define HEARTH_SIMD_VNNI 0

namespace hearth::cpu {
namespace {
#include "backend/cpu/simd/simd_x86_kernels.inc"
} // namespace

// Tiles measured on Zen 4 (one thread): with 16 registers, Q5_K/Q6_K decode best two rows at a
// time; prefill tiles of 2 rows × 4 tokens (F16/BF16: 4 × 2).
const SimdKernels& avx2Kernels() {
    static const SimdKernels k = x86Kernels<Tiles{4, 2, 4}, Tiles{2, 2, 4}, Tiles{4, 4, 2}>();
    return k;
}

} // namespace hearth::cpu

#undef HEARTH_SIMD_VNNI
#undef HEARTH_UNROLL
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#else

namespace hearth::cpu {
const SimdKernels& avx2Kernels() { return scalarKernels(); }
} // namespace hearth::cpu

#endif
