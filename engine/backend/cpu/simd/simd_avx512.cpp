// The AVX-512 tier: the AVX2 tier's kernels on 256-bit vectors with the byte and scaled word dot
// products as AVX-512 VNNI's vpdpbusd and vpdpwssd (AVX-512 F/BW/VL + VNNI), and 32 registers for
// wider tiles; Q4_K and Q6_K on 512-bit vectors (simd_x86_kquants512.inc). Only the functions
// after the target pragma are compiled for the tier (the headers above it stay baseline code, so no
// inline function of theirs is emitted with instructions another CPU lacks); cpu_features.cpp
// decides at run time whether to call them.
#include "backend/cpu/simd/simd_kernels.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "quant/blocks.h"
#include "quant/half.h"

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")
#endif
#define HEARTH_SIMD_VNNI 1
#if !defined(__clang__)
// GCC 12's 512-bit insert/extract/shuffle/broadcast intrinsics start from _mm512_undefined_*, which
// -Wuninitialized reports once they are inlined here: false positives.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace hearth::cpu {
namespace {
#include "backend/cpu/simd/simd_x86_kernels.inc"
#include "backend/cpu/simd/simd_x86_kquants512.inc"

// Tiles measured on Zen 4 (one thread): decode 4 rows; prefill 2 rows × 4 tokens (F16/BF16: 4 × 4).
constexpr Tiles kQuantTiles{4, 2, 4};

SimdKernels makeKernels() {
    SimdKernels k = x86Kernels<kQuantTiles, kQuantTiles, Tiles{4, 4, 4}>();
    k.q4_k = walk<Q4K512, kQuantTiles>; // two sub-blocks an instruction (simd_x86_kquants512.inc)
    k.q6_k = walk<Q6K512, kQuantTiles>;
    return k;
}
} // namespace

const SimdKernels& avx512Kernels() {
    static const SimdKernels k = makeKernels();
    return k;
}

} // namespace hearth::cpu

#undef HEARTH_SIMD_VNNI
#undef HEARTH_UNROLL
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC diagnostic pop
#pragma GCC pop_options
#endif

#else

namespace hearth::cpu {
const SimdKernels& avx512Kernels() { return avx2Kernels(); }
} // namespace hearth::cpu

#endif
