// Q8_0, Q4_0, Q5_0: 32-element blocks with one fp16 scale. Dequantization follows ggml's
// arithmetic exactly (float(q) · d); quantization is Hearth's own least-squares scale search.
#include <cstring>

#include "quant/blocks.h"
#include "quant/dequantize.h"
#include "quant/quant_fit.h"

namespace hearth::quant {
namespace {

// Candidate divisors per side for the scale search: Q8_0's error is dominated by rounding, so a
// few suffice; 4/5-bit grids gain from trading the extreme element against the rest.
constexpr int kTriesQ8 = 4;
constexpr int kTriesQ4Q5 = 10;

uint32_t loadLe32(const uint8_t* b) {
    return uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
}

void storeLe32(uint32_t v, uint8_t* b) {
    for (int i = 0; i < 4; ++i) b[i] = uint8_t(v >> (8 * i));
}

// The q of every element of a block for scale d (fp16-rounded), clamped to [lo, hi].
void gridValues(const float* x, float d, float lo, float hi, int* q) {
    const float inv = d != 0.0f ? 1.0f / d : 0.0f;
    for (int j = 0; j < kQK; ++j) q[j] = int(clampf(roundNearest(x[j] * inv), lo, hi));
}

} // namespace

void dequantizeQ8_0(const uint8_t* src, float* dst, int64_t blocks) {
    for (int64_t b = 0; b < blocks; ++b, dst += kQK) {
        BlockQ8_0 blk;
        std::memcpy(&blk, src + b * sizeof blk, sizeof blk);
        const float d = halfToFloat(blk.d);
        for (int j = 0; j < kQK; ++j) dst[j] = float(blk.qs[j]) * d;
    }
}

void dequantizeQ4_0(const uint8_t* src, float* dst, int64_t blocks) {
    for (int64_t b = 0; b < blocks; ++b, dst += kQK) {
        BlockQ4_0 blk;
        std::memcpy(&blk, src + b * sizeof blk, sizeof blk);
        const float d = halfToFloat(blk.d);
        for (int j = 0; j < kQK / 2; ++j) {
            dst[j] = float((blk.qs[j] & 0xF) - 8) * d;
            dst[j + 16] = float((blk.qs[j] >> 4) - 8) * d;
        }
    }
}

void dequantizeQ5_0(const uint8_t* src, float* dst, int64_t blocks) {
    for (int64_t b = 0; b < blocks; ++b, dst += kQK) {
        BlockQ5_0 blk;
        std::memcpy(&blk, src + b * sizeof blk, sizeof blk);
        const float d = halfToFloat(blk.d);
        const uint32_t qh = loadLe32(blk.qh);
        for (int j = 0; j < kQK / 2; ++j) {
            const int hi0 = int((qh >> j) & 1) << 4;
            const int hi1 = int((qh >> (j + 16)) & 1) << 4;
            dst[j] = float(((blk.qs[j] & 0xF) | hi0) - 16) * d;
            dst[j + 16] = float(((blk.qs[j] >> 4) | hi1) - 16) * d;
        }
    }
}

void quantizeQ8_0(const float* src, uint8_t* dst, int64_t blocks) {
    for (int64_t b = 0; b < blocks; ++b, src += kQK) {
        BlockQ8_0 blk;
        float d = 0.0f;
        blk.d = storeHalfScale(fitSymmetric(src, kQK, -127, 127, kTriesQ8), d);
        int q[kQK];
        gridValues(src, d, -127.0f, 127.0f, q);
        for (int j = 0; j < kQK; ++j) blk.qs[j] = int8_t(q[j]);
        std::memcpy(dst + b * sizeof blk, &blk, sizeof blk);
    }
}

void quantizeQ4_0(const float* src, uint8_t* dst, int64_t blocks) {
    for (int64_t b = 0; b < blocks; ++b, src += kQK) {
        BlockQ4_0 blk;
        float d = 0.0f;
        blk.d = storeHalfScale(fitSymmetric(src, kQK, -8, 7, kTriesQ4Q5), d);
        int q[kQK];
        gridValues(src, d, -8.0f, 7.0f, q);
        for (int j = 0; j < kQK / 2; ++j) blk.qs[j] = uint8_t((q[j] + 8) | (q[j + 16] + 8) << 4);
        std::memcpy(dst + b * sizeof blk, &blk, sizeof blk);
    }
}

void quantizeQ5_0(const float* src, uint8_t* dst, int64_t blocks) {
    for (int64_t b = 0; b < blocks; ++b, src += kQK) {
        BlockQ5_0 blk;
        float d = 0.0f;
        blk.d = storeHalfScale(fitSymmetric(src, kQK, -16, 15, kTriesQ4Q5), d);
        int q[kQK];
        gridValues(src, d, -16.0f, 15.0f, q);
        uint32_t qh = 0;
        for (int j = 0; j < kQK; ++j) {
            q[j] += 16;
            qh |= uint32_t(q[j] >> 4) << j;
        }
        for (int j = 0; j < kQK / 2; ++j) blk.qs[j] = uint8_t((q[j] & 0xF) | (q[j + 16] & 0xF) << 4);
        storeLe32(qh, blk.qh);
        std::memcpy(dst + b * sizeof blk, &blk, sizeof blk);
    }
}

} // namespace hearth::quant
