// The portable tier: the fast path's arithmetic (integer dot products against X8 or XK x, one
// float multiply per block, per super-block for the K types) in plain C++, one (row, token) pair
// at a time, for CPUs without AVX2 and as the readable statement of what the SIMD tiers compute.
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

// Q4_K/Q5_K: sub-block j of 32 is elements 32j..32j+31 of the XK block; the super-block's sums
// stay integers (its scales and mins are integers) until one float step each.
template <bool Five>
float qk_affine(const uint8_t* row, const XKBlock* x, int64_t n) {
    float sum = 0.0f;
    constexpr size_t kBytes = Five ? sizeof(BlockQ5_K) : sizeof(BlockQ4_K);
    for (int64_t b = 0; b < n / 256; ++b, row += kBytes) {
        const float d = halfToFloat(load16(row)), dmin = halfToFloat(load16(row + 2));
        const uint8_t* scales = row + 4;
        const uint8_t* qh = row + 16;
        const uint8_t* qs = row + (Five ? 48 : 16);
        int sumq = 0, summ = 0;
        for (int j = 0; j < 8; ++j) {
            uint8_t sc, m;
            unpackScaleMin(scales, j, sc, m);
            int s = 0;
            for (int l = 0; l < 32; ++l) {
                int q = j % 2 ? qs[32 * (j / 2) + l] >> 4 : qs[32 * (j / 2) + l] & 0xF;
                if (Five) q |= ((qh[l] >> j) & 1) << 4;
                s += q * x[b].q[32 * j + l];
            }
            sumq += sc * s;
            summ += m * (x[b].sums[2 * j] + x[b].sums[2 * j + 1]);
        }
        sum += d * x[b].d * float(sumq) - dmin * x[b].d * float(summ);
    }
    return sum;
}

// Q6_K: each half of 128 is 4 chunks of 32 (elements l, l+32, l+64, l+96 of the half come from
// the same ql/qh bytes); sub-block i of 16 has its own int8 scale; quants are stored plus 32.
float q6_k(const uint8_t* row, const XKBlock* x, int64_t n) {
    float sum = 0.0f;
    for (int64_t b = 0; b < n / 256; ++b, row += sizeof(BlockQ6_K)) {
        const float d = halfToFloat(load16(row + 208));
        const auto* scales = reinterpret_cast<const int8_t*>(row + 192);
        int total = 0;
        for (int half = 0; half < 2; ++half) {
            const uint8_t* ql = row + 64 * half;
            const uint8_t* qh = row + 128 + 32 * half;
            for (int k = 0; k < 4; ++k) {
                const int8_t* xq = x[b].q + 128 * half + 32 * k;
                int s[2] = {0, 0};
                for (int l = 0; l < 32; ++l) {
                    const uint8_t lowBits = k & 1 ? ql[l + 32] : ql[l];
                    const int q = (k < 2 ? lowBits & 0xF : lowBits >> 4) | ((qh[l] >> (2 * k)) & 3) << 4;
                    s[l / 16] += q * xq[l];
                }
                const int i = 8 * half + 2 * k; // this chunk's two sub-blocks of 16
                total += scales[i] * (s[0] - 32 * x[b].sums[i]) + scales[i + 1] * (s[1] - 32 * x[b].sums[i + 1]);
            }
        }
        sum += d * x[b].d * float(total);
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

// Every (row, token) pair as its own dot product.
template <class X, float (*Dot)(const uint8_t*, const X*, int64_t), Activation Kind>
void eachPair(const uint8_t* w, uint64_t rowBytes, int64_t rows, const void* x, int tokens, int64_t n, float* y,
              int64_t ldy) {
    const uint64_t xBytes = activationBytes(Kind, n);
    for (int64_t r = 0; r < rows; ++r)
        for (int t = 0; t < tokens; ++t)
            y[t * ldy + r] = Dot(w + r * rowBytes, reinterpret_cast<const X*>(static_cast<const uint8_t*>(x) + t * xBytes), n);
}

} // namespace

uint64_t activationBytes(Activation kind, int64_t n) {
    switch (kind) {
    case Activation::X8: return uint64_t(n / 32) * sizeof(X8Block);
    case Activation::XK: return uint64_t(n / 256) * sizeof(XKBlock);
    case Activation::F32: return uint64_t(n) * sizeof(float);
    }
    return 0;
}

SimdKernel SimdKernels::forType(DType type) const {
    switch (type) {
    case DType::Q8_0: return {q8_0, Activation::X8};
    case DType::Q4_0: return {q4_0, Activation::X8};
    case DType::Q5_0: return {q5_0, Activation::X8};
    case DType::Q4_K: return {q4_k, Activation::XK};
    case DType::Q5_K: return {q5_k, Activation::XK};
    case DType::Q6_K: return {q6_k, Activation::XK};
    case DType::F16: return {f16, Activation::F32};
    case DType::BF16: return {bf16, Activation::F32};
    default: return {};
    }
}

AttnKernels SimdKernels::attention(DType cacheType) const {
    return cacheType == DType::F32 ? attnF32 : cacheType == DType::F16 ? attnF16 : attnBf16;
}

// The scalar tier leaves attention to the reference loops (its attention kernels stay null).
const SimdKernels& scalarKernels() {
    static const SimdKernels k{eachPair<X8Block, q8_0, Activation::X8>,   eachPair<X8Block, q4_0, Activation::X8>,
                               eachPair<X8Block, q5_0, Activation::X8>,   eachPair<XKBlock, qk_affine<false>, Activation::XK>,
                               eachPair<XKBlock, qk_affine<true>, Activation::XK>, eachPair<XKBlock, q6_k, Activation::XK>,
                               eachPair<float, f16, Activation::F32>,     eachPair<float, bf16, Activation::F32>};
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
