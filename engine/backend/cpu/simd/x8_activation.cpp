#include "backend/cpu/simd/x8_activation.h"

#include <algorithm>
#include <cmath>

#include "backend/cpu/simd/cpu_features.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace hearth::cpu {
namespace {

// round(v), ties away from zero, without a library call (this runs for every activation value):
// v - trunc(v) is exact, so the comparison with one half is too.
inline int roundAway(float v) {
    const int t = int(v);
    const float f = v - float(t);
    return t + (f >= 0.5f) - (f <= -0.5f);
}

// One block of N values, as both activation forms store it: returns the scale amax / 127 and
// writes the values divided by it, rounded and clamped to int8, and the sum of each 16 of them
// (the integer kernels' correction terms).
template <int N>
float quantizeBlock(const float* x, int8_t* q, int (&sums)[N / 16]) {
    float amax = 0.0f;
    for (int i = 0; i < N; ++i) amax = std::max(amax, std::fabs(x[i]));
    const float inv = amax > 0.0f ? 127.0f / amax : 0.0f;
    for (int s = 0; s < N / 16; ++s) {
        int sum = 0;
        for (int i = 16 * s; i < 16 * s + 16; ++i) {
            const int v = roundAway(x[i] * inv);
            q[i] = int8_t(v < -127 ? -127 : v > 127 ? 127 : v);
            sum += q[i];
        }
        sums[s] = sum;
    }
    return amax / 127.0f;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HEARTH_X8_AVX2 1
// quantizeBlock with AVX2, bit for bit the same (the same float operations, rounding and clamping;
// a NaN is skipped by the maximum as std::max skips it). Decode quantizes x before each product on
// one thread, so scalar code there was a serial share of every step (~1 ns a value).
template <int N>
__attribute__((target("avx2"))) float quantizeBlockAvx2(const float* x, int8_t* q, int (&sums)[N / 16]) {
    const __m256 absMask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    __m256 m = _mm256_setzero_ps();
    for (int i = 0; i < N; i += 8) m = _mm256_max_ps(_mm256_and_ps(_mm256_loadu_ps(x + i), absMask), m);
    __m128 h = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
    h = _mm_max_ps(h, _mm_movehl_ps(h, h));
    h = _mm_max_ss(h, _mm_shuffle_ps(h, h, 1));
    const float amax = _mm_cvtss_f32(h);
    const __m256 inv = _mm256_set1_ps(amax > 0.0f ? 127.0f / amax : 0.0f);
    const __m256 half = _mm256_set1_ps(0.5f), minusHalf = _mm256_set1_ps(-0.5f);
    const __m256i lo = _mm256_set1_epi32(-127), hi = _mm256_set1_epi32(127);
    for (int s = 0; s < N / 16; ++s) {
        __m256i r[2];
        for (int j = 0; j < 2; ++j) {
            const __m256 v = _mm256_mul_ps(_mm256_loadu_ps(x + 16 * s + 8 * j), inv);
            const __m256i t = _mm256_cvttps_epi32(v);
            const __m256 f = _mm256_sub_ps(v, _mm256_cvtepi32_ps(t));
            const __m256i up = _mm256_castps_si256(_mm256_cmp_ps(f, half, _CMP_GE_OQ)); // -1 where f >= 0.5
            const __m256i down = _mm256_castps_si256(_mm256_cmp_ps(f, minusHalf, _CMP_LE_OQ));
            r[j] = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(_mm256_sub_epi32(t, up), down), lo), hi);
        }
        __m256i total = _mm256_add_epi32(r[0], r[1]);
        __m128i t4 = _mm_add_epi32(_mm256_castsi256_si128(total), _mm256_extracti128_si256(total, 1));
        t4 = _mm_add_epi32(t4, _mm_shuffle_epi32(t4, 0x4e));
        t4 = _mm_add_epi32(t4, _mm_shuffle_epi32(t4, 0xb1));
        sums[s] = _mm_cvtsi128_si32(t4);
        // packs interleaves the 128-bit lanes: r0[0..3] r1[0..3] | r0[4..7] r1[4..7] → reorder
        const __m256i words = _mm256_permute4x64_epi64(_mm256_packs_epi32(r[0], r[1]), 0xd8);
        const __m128i bytes = _mm_packs_epi16(_mm256_castsi256_si128(words), _mm256_extracti128_si256(words, 1));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(q + 16 * s), bytes);
    }
    return amax / 127.0f;
}
#endif

#ifdef HEARTH_X8_AVX2
// Whether the AVX2 form runs here (the CPU has it and HEARTH_CPU_SIMD allows it), decided once.
bool avx2Quantizer() {
    static const bool avx2 = simdTier() != SimdTier::Scalar;
    return avx2;
}
#endif

template <int N, class Block, class Quantize>
void quantizeBlocks(const float* x, int64_t n, Block* out, Quantize quantize) {
    for (int64_t b = 0; b < n / N; ++b, x += N) {
        int sums[N / 16];
        out[b].d = quantize(x, out[b].q, sums);
        if constexpr (N == 32) {
            out[b].sumLo = int16_t(sums[0]);
            out[b].sumHi = int16_t(sums[1]);
        } else {
            for (int s = 0; s < N / 16; ++s) out[b].sums[s] = int16_t(sums[s]);
        }
    }
}

} // namespace

void quantizeX8(const float* x, int64_t n, X8Block* out) {
#ifdef HEARTH_X8_AVX2
    if (avx2Quantizer()) return quantizeBlocks<32>(x, n, out, quantizeBlockAvx2<32>);
#endif
    quantizeBlocks<32>(x, n, out, quantizeBlock<32>);
}
void quantizeXK(const float* x, int64_t n, XKBlock* out) {
#ifdef HEARTH_X8_AVX2
    if (avx2Quantizer()) return quantizeBlocks<256>(x, n, out, quantizeBlockAvx2<256>);
#endif
    quantizeBlocks<256>(x, n, out, quantizeBlock<256>);
}
void quantizeX8Scalar(const float* x, int64_t n, X8Block* out) { quantizeBlocks<32>(x, n, out, quantizeBlock<32>); }
void quantizeXKScalar(const float* x, int64_t n, XKBlock* out) { quantizeBlocks<256>(x, n, out, quantizeBlock<256>); }

} // namespace hearth::cpu
