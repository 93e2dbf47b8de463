#include "backend/cpu/simd/half_convert.h"

#include "backend/cpu/simd/cpu_features.h"
#include "quant/half.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HEARTH_HALF_F16C 1
#endif

namespace hearth::cpu {
namespace {

#ifdef HEARTH_HALF_F16C
// vcvtps2ph rounds as floatToHalf does; only a NaN differs (the hardware keeps payload bits), so
// NaN lanes take floatToHalf's pattern. A decode step stores a token's K and V through this at
// every layer, where one value at a time had cost ~5 ns each.
__attribute__((target("avx2,f16c"))) void convertF16c(const float* x, uint16_t* out, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 v = _mm256_loadu_ps(x + i);
        __m128i h = _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        const int nan = _mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), h);
        if (nan)
            for (int l = 0; l < 8; ++l)
                if (nan >> l & 1) out[i + size_t(l)] = floatToHalf(x[i + size_t(l)]);
    }
    for (; i < n; ++i) out[i] = floatToHalf(x[i]);
}
#endif

} // namespace

void floatsToHalves(const float* x, uint16_t* out, size_t n) {
#ifdef HEARTH_HALF_F16C
    static const bool f16c = simdTier() != SimdTier::Scalar; // the AVX2 tier includes F16C
    if (f16c) return convertF16c(x, out, n);
#endif
    for (size_t i = 0; i < n; ++i) out[i] = floatToHalf(x[i]);
}

} // namespace hearth::cpu
