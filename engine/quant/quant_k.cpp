// Q4_K, Q5_K, Q6_K: 256-element super-blocks whose sub-block scales (and mins) are themselves
// quantized against one fp16 d (and dmin). Dequantization follows ggml's arithmetic exactly
// ((d·sc)·q − dmin·m); quantization is Hearth's own, one super-block at a time in
// quantize_block.h (shared with the GPU quantizer).
#include <cmath>
#include <cstring>

#include "quant/blocks.h"
#include "quant/dequantize.h"
#include "quant/quantize_block.h"

namespace hearth::quant {

void dequantizeQ4_K(const uint8_t* src, float* dst, int64_t blocks) {
    for (int64_t b = 0; b < blocks; ++b) {
        BlockQ4_K blk;
        std::memcpy(&blk, src + b * sizeof blk, sizeof blk);
        const float d = halfToFloat(blk.d);
        const float dmin = halfToFloat(blk.dmin);
        const uint8_t* q = blk.qs;
        for (int c = 0; c < 4; ++c, q += 32, dst += 64) {
            uint8_t sc1, m1, sc2, m2;
            unpackScaleMin(blk.scales, 2 * c, sc1, m1);
            unpackScaleMin(blk.scales, 2 * c + 1, sc2, m2);
            const float d1 = d * float(sc1), o1 = dmin * float(m1);
            const float d2 = d * float(sc2), o2 = dmin * float(m2);
            for (int l = 0; l < 32; ++l) {
                dst[l] = d1 * float(q[l] & 0xF) - o1;
                dst[l + 32] = d2 * float(q[l] >> 4) - o2;
            }
        }
    }
}

void dequantizeQ5_K(const uint8_t* src, float* dst, int64_t blocks) {
    for (int64_t b = 0; b < blocks; ++b) {
        BlockQ5_K blk;
        std::memcpy(&blk, src + b * sizeof blk, sizeof blk);
        const float d = halfToFloat(blk.d);
        const float dmin = halfToFloat(blk.dmin);
        const uint8_t* q = blk.qs;
        for (int c = 0; c < 4; ++c, q += 32, dst += 64) {
            uint8_t sc1, m1, sc2, m2;
            unpackScaleMin(blk.scales, 2 * c, sc1, m1);
            unpackScaleMin(blk.scales, 2 * c + 1, sc2, m2);
            const float d1 = d * float(sc1), o1 = dmin * float(m1);
            const float d2 = d * float(sc2), o2 = dmin * float(m2);
            const int lowBit = 2 * c;
            const int highBit = 2 * c + 1;
            for (int l = 0; l < 32; ++l) {
                const int h1 = ((blk.qh[l] >> lowBit) & 1) << 4;
                const int h2 = ((blk.qh[l] >> highBit) & 1) << 4;
                dst[l] = d1 * float((q[l] & 0xF) + h1) - o1;
                dst[l + 32] = d2 * float((q[l] >> 4) + h2) - o2;
            }
        }
    }
}

void dequantizeQ6_K(const uint8_t* src, float* dst, int64_t blocks) {
    for (int64_t b = 0; b < blocks; ++b) {
        BlockQ6_K blk;
        std::memcpy(&blk, src + b * sizeof blk, sizeof blk);
        const float d = halfToFloat(blk.d);
        for (int half = 0; half < 2; ++half, dst += 128) {
            const uint8_t* ql = blk.ql + 64 * half;
            const uint8_t* qh = blk.qh + 32 * half;
            const int8_t* sc = blk.scales + 8 * half;
            for (int l = 0; l < 32; ++l) {
                const int is = l / 16;
                const int q1 = ((ql[l] & 0xF) | ((qh[l] >> 0) & 3) << 4) - 32;
                const int q2 = ((ql[l + 32] & 0xF) | ((qh[l] >> 2) & 3) << 4) - 32;
                const int q3 = ((ql[l] >> 4) | ((qh[l] >> 4) & 3) << 4) - 32;
                const int q4 = ((ql[l + 32] >> 4) | ((qh[l] >> 6) & 3) << 4) - 32;
                dst[l] = d * float(sc[is]) * float(q1);
                dst[l + 32] = d * float(sc[is + 2]) * float(q2);
                dst[l + 64] = d * float(sc[is + 4]) * float(q3);
                dst[l + 96] = d * float(sc[is + 6]) * float(q4);
            }
        }
    }
}

void quantizeQ4_K(const float* src, uint8_t* dst, int64_t blocks) {
    for (int64_t b = 0; b < blocks; ++b) quantizeBlockQ4_K(src + b * kQKK, dst + b * sizeof(BlockQ4_K));
}

void quantizeQ5_K(const float* src, uint8_t* dst, int64_t blocks) {
    for (int64_t b = 0; b < blocks; ++b) quantizeBlockQ5_K(src + b * kQKK, dst + b * sizeof(BlockQ5_K));
}

void quantizeQ6_K(const float* src, uint8_t* dst, int64_t blocks) {
    for (int64_t b = 0; b < blocks; ++b) quantizeBlockQ6_K(src + b * kQKK, dst + b * sizeof(BlockQ6_K));
}

} // namespace hearth::quant
