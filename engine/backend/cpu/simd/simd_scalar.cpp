// The portable tier: the fast path's arithmetic (integer dot products against X8 x, one float
// multiply per block) in plain C++, for CPUs without AVX2 and as the readable statement of what
// the SIMD tiers compute.
#include <cstring>

#include "backend/cpu/simd/simd_kernels.h"
#include "quant/blocks.h"
#include "quant/half.h"

namespace hearth::cpu {
namespace {

uint16_t load16(const uint8_t* p) { return uint16_t(p[0] | p[1] << 8); }

float q8_0(const uint8_t* row, const X8Block* x, int64_t n) {
    float sum = 0.0f;
    for (int64_t b = 0; b < n / 32; ++b, row += sizeof(BlockQ8_0)) {
        const auto* qs = reinterpret_cast<const int8_t*>(row + 2);
        int s = 0;
        for (int j = 0; j < 32; ++j) s += qs[j] * x[b].q[j];
        sum += halfToFloat(load16(row)) * x[b].d * float(s);
    }
    return sum;
}

float q4_0(const uint8_t* row, const X8Block* x, int64_t n) {
    float sum = 0.0f;
    for (int64_t b = 0; b < n / 32; ++b, row += sizeof(BlockQ4_0)) {
        const uint8_t* qs = row + 2;
        int s = 0;
        for (int j = 0; j < 16; ++j) s += (qs[j] & 0xF) * x[b].q[j] + (qs[j] >> 4) * x[b].q[j + 16];
        s -= 8 * (x[b].sumLo + x[b].sumHi);
        sum += halfToFloat(load16(row)) * x[b].d * float(s);
    }
    return sum;
}

float q5_0(const uint8_t* row, const X8Block* x, int64_t n) {
    float sum = 0.0f;
    for (int64_t b = 0; b < n / 32; ++b, row += sizeof(BlockQ5_0)) {
        uint32_t qh;
        std::memcpy(&qh, row + 2, 4);
        const uint8_t* qs = row + 6;
        int s = 0;
        for (int j = 0; j < 16; ++j) {
            s += ((qs[j] & 0xF) | ((qh >> j) & 1) << 4) * x[b].q[j];
            s += ((qs[j] >> 4) | ((qh >> (j + 16)) & 1) << 4) * x[b].q[j + 16];
        }
        s -= 16 * (x[b].sumLo + x[b].sumHi);
        sum += halfToFloat(load16(row)) * x[b].d * float(s);
    }
    return sum;
}

// Q4_K/Q5_K: sub-block j of 32 is X8 block j of the super-block.
template <bool Five>
float qk_affine(const uint8_t* row, const X8Block* x, int64_t n) {
    float sum = 0.0f;
    constexpr size_t kBytes = Five ? sizeof(BlockQ5_K) : sizeof(BlockQ4_K);
    for (int64_t b = 0; b < n / 256; ++b, row += kBytes, x += 8) {
        const float d = halfToFloat(load16(row)), dmin = halfToFloat(load16(row + 2));
        const uint8_t* scales = row + 4;
        const uint8_t* qh = row + 16;
        const uint8_t* qs = row + (Five ? 48 : 16);
        for (int c = 0; c < 4; ++c) {
            for (int h = 0; h < 2; ++h) {
                const int j = 2 * c + h;
                uint8_t sc, m;
                unpackScaleMin(scales, j, sc, m);
                int s = 0;
                for (int l = 0; l < 32; ++l) {
                    int q = h ? qs[32 * c + l] >> 4 : qs[32 * c + l] & 0xF;
                    if (Five) q |= ((qh[l] >> j) & 1) << 4;
                    s += q * x[j].q[l];
                }
                sum += d * float(sc) * x[j].d * float(s) - dmin * float(m) * x[j].d * float(x[j].sumLo + x[j].sumHi);
            }
        }
    }
    return sum;
}

// Q6_K: each half of 128 is 4 X8 blocks (elements l, l+32, l+64, l+96 of the half come from the
// same ql/qh bytes); each X8 block's two 16-halves have their own int8 scale.
float q6_k(const uint8_t* row, const X8Block* x, int64_t n) {
    float sum = 0.0f;
    for (int64_t b = 0; b < n / 256; ++b, row += sizeof(BlockQ6_K), x += 8) {
        const float d = halfToFloat(load16(row + 208));
        const auto* scales = reinterpret_cast<const int8_t*>(row + 192);
        for (int half = 0; half < 2; ++half) {
            const uint8_t* ql = row + 64 * half;
            const uint8_t* qh = row + 128 + 32 * half;
            for (int k = 0; k < 4; ++k) {
                const X8Block& xb = x[4 * half + k];
                int s[2] = {0, 0};
                for (int l = 0; l < 32; ++l) {
                    const uint8_t low = k & 1 ? ql[l + 32] : ql[l];
                    const int q = (k < 2 ? low & 0xF : low >> 4) | ((qh[l] >> (2 * k)) & 3) << 4;
                    s[l / 16] += q * xb.q[l];
                }
                const int scLo = scales[8 * half + 2 * k], scHi = scales[8 * half + 2 * k + 1];
                const int total = scLo * (s[0] - 32 * xb.sumLo) + scHi * (s[1] - 32 * xb.sumHi);
                sum += d * xb.d * float(total);
            }
        }
    }
    return sum;
}

float f16(const uint8_t* row, const float* x, int64_t n) {
    float sum = 0.0f;
    for (int64_t i = 0; i < n; ++i) sum += halfToFloat(load16(row + 2 * i)) * x[i];
    return sum;
}

float bf16(const uint8_t* row, const float* x, int64_t n) {
    float sum = 0.0f;
    for (int64_t i = 0; i < n; ++i) sum += bf16ToFloat(load16(row + 2 * i)) * x[i];
    return sum;
}

} // namespace

DotX8 SimdKernels::x8(DType type) const {
    switch (type) {
    case DType::Q8_0: return q8_0;
    case DType::Q4_0: return q4_0;
    case DType::Q5_0: return q5_0;
    case DType::Q4_K: return q4_k;
    case DType::Q5_K: return q5_k;
    case DType::Q6_K: return q6_k;
    default: return nullptr;
    }
}

DotF32 SimdKernels::f32(DType type) const {
    switch (type) {
    case DType::F16: return f16;
    case DType::BF16: return bf16;
    default: return nullptr;
    }
}

const SimdKernels& scalarKernels() {
    static const SimdKernels k{q8_0, q4_0, q5_0, qk_affine<false>, qk_affine<true>, q6_k, f16, bf16};
    return k;
}

const SimdKernels& kernelsFor(SimdTier tier) {
    switch (tier) {
    case SimdTier::Avx512: return avx512Kernels();
    case SimdTier::Avx2: return avx2Kernels();
    case SimdTier::Scalar: break;
    }
    return scalarKernels();
}

} // namespace hearth::cpu
