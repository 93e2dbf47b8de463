// Q8_0, Q4_0, Q5_0: 32-element blocks with one fp16 scale. Dequantization follows ggml's
// arithmetic exactly (float(q) · d); quantization is Hearth's own least-squares scale search
// (quantize_block.h, shared with the GPU quantizer).
#include <cstring>

#include "quant/blocks.h"
#include "quant/dequantize.h"
#include "quant/quantize_block.h"

namespace hearth::quant {
namespace {

uint32_t loadLe32(const uint8_t* b) {
    return uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
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
    for (int64_t b = 0; b < blocks; ++b) quantizeBlockQ8_0(src + b * kQK, dst + b * sizeof(BlockQ8_0));
}

void quantizeQ4_0(const float* src, uint8_t* dst, int64_t blocks) {
    for (int64_t b = 0; b < blocks; ++b) quantizeBlockQ4_0(src + b * kQK, dst + b * sizeof(BlockQ4_0));
}

void quantizeQ5_0(const float* src, uint8_t* dst, int64_t blocks) {
    for (int64_t b = 0; b < blocks; ++b) quantizeBlockQ5_0(src + b * kQK, dst + b * sizeof(BlockQ5_0));
}

} // namespace hearth::quant
