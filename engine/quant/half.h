// fp16 and bf16 bit conversions (round to nearest even), inline for the host and the GPU: the GPU
// quantizer stores its block scales through these very functions.
#pragma once

#include <cstdint>

#include "quant/host_device.h"

namespace hearth {

HEARTH_HD inline float halfToFloat(uint16_t h) {
    const uint32_t sign = uint32_t(h & 0x8000) << 16;
    const uint32_t exponent = (h >> 10) & 0x1f;
    uint32_t mantissa = h & 0x3ff;
    uint32_t bits;
    if (exponent == 0) {
        if (mantissa == 0) {
            bits = sign;
        } else { // subnormal: normalise
            int e = -1;
            do {
                ++e;
                mantissa <<= 1;
            } while ((mantissa & 0x400) == 0);
            bits = sign | uint32_t(127 - 15 - e) << 23 | (mantissa & 0x3ff) << 13;
        }
    } else if (exponent == 0x1f) {
        bits = sign | 0x7f800000u | mantissa << 13; // inf / nan
    } else {
        bits = sign | (exponent + 127 - 15) << 23 | mantissa << 13;
    }
    return quant::floatFromBits(bits);
}

HEARTH_HD inline uint16_t floatToHalf(float f) {
    const uint32_t x = quant::floatBits(f);
    const uint16_t sign = uint16_t((x >> 16) & 0x8000);
    const uint32_t absx = x & 0x7fffffffu;
    if (absx >= 0x7f800000u) // inf or nan
        return uint16_t(sign | 0x7c00 | (absx > 0x7f800000u ? 0x200 : 0));
    if (absx >= 0x477ff000u) return uint16_t(sign | 0x7c00); // rounds to >= 65520: inf
    if (absx < 0x38800000u) {                                // below the smallest normal half
        if (absx < 0x33000000u) return sign;                 // rounds to zero
        const uint32_t exponent = absx >> 23;
        const uint32_t mantissa = (absx & 0x7fffff) | 0x800000;
        const uint32_t shift = 126 - exponent; // 14..24
        uint32_t half = mantissa >> shift;
        const uint32_t rest = mantissa & ((1u << shift) - 1);
        const uint32_t halfway = 1u << (shift - 1);
        if (rest > halfway || (rest == halfway && (half & 1))) ++half;
        return uint16_t(sign | half);
    }
    uint32_t half = ((absx >> 13) - ((127 - 15) << 10));
    const uint32_t rest = absx & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) ++half;
    return uint16_t(sign | half);
}

HEARTH_HD inline float bf16ToFloat(uint16_t b) { return quant::floatFromBits(uint32_t(b) << 16); }

HEARTH_HD inline uint16_t floatToBf16(float f) {
    uint32_t x = quant::floatBits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return uint16_t((x >> 16) | 0x40); // quiet NaN
    x += 0x7fff + ((x >> 16) & 1);
    return uint16_t(x >> 16);
}

} // namespace hearth
