// GGUF quantized blocks, byte for byte as ggml lays them out (ggml-common.h; QK_K = 256), and the
// per-family codecs behind dequantizeRow/dotRow/quantizeRow. Each struct states its layout below.
//
// Blocks sit at arbitrary byte offsets inside a mapped file, so the structs are packed (alignment 1)
// and the codecs copy each block into a local struct before reading it: no unaligned access, no
// aliasing tricks. fp16 fields are raw IEEE half bits (halfToFloat/floatToHalf).
#pragma once

#include <cstddef>
#include <cstdint>

#include "quant/host_device.h"

namespace hearth {

inline constexpr int kQK = 32;   // elements per Q8_0/Q4_0/Q5_0 block
inline constexpr int kQKK = 256; // elements per K-type super-block
inline constexpr int kKScaleBytes = 12;

#pragma pack(push, 1)

// x = d·q
struct BlockQ8_0 {
    uint16_t d;
    int8_t qs[kQK];
};

// Element j<16: low nibble of qs[j]; element j+16: high nibble of qs[j]. x = d·(q−8).
struct BlockQ4_0 {
    uint16_t d;
    uint8_t qs[kQK / 2];
};

// As Q4_0, plus a 5th bit per element: bit j of qh (a little-endian uint32) belongs to element j.
// x = d·(q−16).
struct BlockQ5_0 {
    uint16_t d;
    uint8_t qh[4];
    uint8_t qs[kQK / 2];
};

// 8 sub-blocks of 32. scales packs 8 six-bit scales and 8 six-bit mins (unpackScaleMin).
// qs: 4 chunks of 32 bytes, low nibbles = sub-block 2c, high nibbles = 2c+1. x = d·sc·q − dmin·m.
struct BlockQ4_K {
    uint16_t d;
    uint16_t dmin;
    uint8_t scales[kKScaleBytes];
    uint8_t qs[kQKK / 2];
};

// As Q4_K; the 5th bit of element l of chunk c is bit 2c (low-nibble half) or 2c+1 (high-nibble
// half) of qh[l]. x = d·sc·(q4 + 16·bit) − dmin·m.
struct BlockQ5_K {
    uint16_t d;
    uint16_t dmin;
    uint8_t scales[kKScaleBytes];
    uint8_t qh[kQKK / 8];
    uint8_t qs[kQKK / 2];
};

// 16 sub-blocks of 16 with int8 scales; low 4 bits in ql, high 2 bits in qh, stored minus 32.
// Two halves of 128 elements (engines.md §3b has the quarter layout). x = d·sc·q.
struct BlockQ6_K {
    uint8_t ql[kQKK / 2];
    uint8_t qh[kQKK / 4];
    int8_t scales[kQKK / 16];
    uint16_t d;
};

#pragma pack(pop)

static_assert(sizeof(BlockQ8_0) == 34);
static_assert(sizeof(BlockQ4_0) == 18);
static_assert(sizeof(BlockQ5_0) == 22);
static_assert(sizeof(BlockQ4_K) == 144);
static_assert(sizeof(BlockQ5_K) == 176);
static_assert(sizeof(BlockQ6_K) == 210);
static_assert(offsetof(BlockQ5_K, qh) == 16 && offsetof(BlockQ5_K, qs) == 48);
static_assert(offsetof(BlockQ6_K, scales) == 192 && offsetof(BlockQ6_K, d) == 208);

// Sub-block j (0..7) of a Q4_K/Q5_K scales[12] field: its 6-bit scale and 6-bit min.
HEARTH_HD inline void unpackScaleMin(const uint8_t* s, int j, uint8_t& scale, uint8_t& min) {
    if (j < 4) {
        scale = s[j] & 63;
        min = s[j + 4] & 63;
    } else {
        scale = uint8_t((s[j + 4] & 0xF) | ((s[j - 4] >> 6) << 4));
        min = uint8_t((s[j + 4] >> 4) | ((s[j] >> 6) << 4));
    }
}

// The inverse of unpackScaleMin for all 8 sub-blocks (every value < 64).
HEARTH_HD inline void packScaleMins(const uint8_t scale[8], const uint8_t min[8], uint8_t* s) {
    for (int j = 0; j < 4; ++j) {
        s[j] = uint8_t((scale[j] & 63) | ((scale[j + 4] >> 4) << 6));
        s[j + 4] = uint8_t((min[j] & 63) | ((min[j + 4] >> 4) << 6));
        s[j + 8] = uint8_t((scale[j + 4] & 0xF) | ((min[j + 4] & 0xF) << 4));
    }
}

// Per-family codecs over `blocks` consecutive blocks (quant_legacy.cpp, quant_k.cpp).
namespace quant {
void dequantizeQ8_0(const uint8_t* src, float* dst, int64_t blocks);
void dequantizeQ4_0(const uint8_t* src, float* dst, int64_t blocks);
void dequantizeQ5_0(const uint8_t* src, float* dst, int64_t blocks);
void dequantizeQ4_K(const uint8_t* src, float* dst, int64_t blocks);
void dequantizeQ5_K(const uint8_t* src, float* dst, int64_t blocks);
void dequantizeQ6_K(const uint8_t* src, float* dst, int64_t blocks);

void quantizeQ8_0(const float* src, uint8_t* dst, int64_t blocks);
void quantizeQ4_0(const float* src, uint8_t* dst, int64_t blocks);
void quantizeQ5_0(const float* src, uint8_t* dst, int64_t blocks);
void quantizeQ4_K(const float* src, uint8_t* dst, int64_t blocks);
void quantizeQ5_K(const float* src, uint8_t* dst, int64_t blocks);
void quantizeQ6_K(const float* src, uint8_t* dst, int64_t blocks);
} // namespace quant

} // namespace hearth
