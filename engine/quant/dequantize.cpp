#include "quant/dequantize.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "quant/blocks.h"

namespace hearth {

float halfToFloat(uint16_t h) {
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
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

uint16_t floatToHalf(float f) {
    uint32_t x;
    std::memcpy(&x, &f, sizeof x);
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

float bf16ToFloat(uint16_t b) {
    const uint32_t bits = uint32_t(b) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

uint16_t floatToBf16(float f) {
    uint32_t x;
    std::memcpy(&x, &f, sizeof x);
    if ((x & 0x7fffffffu) > 0x7f800000u) return uint16_t((x >> 16) | 0x40); // quiet NaN
    x += 0x7fff + ((x >> 16) & 1);
    return uint16_t(x >> 16);
}

void dequantizeRow(DType type, const uint8_t* src, float* dst, int64_t n) {
    switch (type) {
    case DType::F32: std::memcpy(dst, src, size_t(n) * sizeof(float)); return;
    case DType::F16:
        for (int64_t i = 0; i < n; ++i) {
            uint16_t h;
            std::memcpy(&h, src + 2 * i, 2);
            dst[i] = halfToFloat(h);
        }
        return;
    case DType::BF16:
        for (int64_t i = 0; i < n; ++i) {
            uint16_t b;
            std::memcpy(&b, src + 2 * i, 2);
            dst[i] = bf16ToFloat(b);
        }
        return;
    // Block types: n is a whole number of blocks (rows are checked at load).
    case DType::Q8_0: quant::dequantizeQ8_0(src, dst, n / kQK); return;
    case DType::Q4_0: quant::dequantizeQ4_0(src, dst, n / kQK); return;
    case DType::Q5_0: quant::dequantizeQ5_0(src, dst, n / kQK); return;
    case DType::Q4_K: quant::dequantizeQ4_K(src, dst, n / kQKK); return;
    case DType::Q5_K: quant::dequantizeQ5_K(src, dst, n / kQKK); return;
    case DType::Q6_K: quant::dequantizeQ6_K(src, dst, n / kQKK); return;
    default:
        // Callers check isComputeSupported() at load; reaching here is a programming error.
        for (int64_t i = 0; i < n; ++i) dst[i] = std::nanf("");
        return;
    }
}

namespace {

// Eight interleaved partial sums: a fixed order the compiler can vectorise.
struct Dot8 {
    float acc[8] = {};
    void add(const float* a, const float* b, int64_t n) { // n % 8 == 0
        for (int64_t i = 0; i < n; i += 8)
            for (int j = 0; j < 8; ++j) acc[j] += a[i + j] * b[i + j];
    }
    float total() const {
        return ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
    }
};

} // namespace

float dotRow(DType type, const uint8_t* row, const float* x, int64_t n) {
    const int64_t n8 = n - n % 8;
    Dot8 dot;
    float tail = 0.0f;
    if (type == DType::F32) {
        const float* w = reinterpret_cast<const float*>(row); // mappings are 32-byte aligned
        dot.add(w, x, n8);
        for (int64_t i = n8; i < n; ++i) tail += w[i] * x[i];
        return dot.total() + tail;
    }
    // Other types: dequantize a chunk of whole blocks (256 is a multiple of every block size),
    // then the same 8-accumulator dot. The order depends only on n, never on threads.
    constexpr int64_t kChunk = kQKK;
    float buffer[kChunk];
    int64_t done = 0;
    while (done < n8) {
        const int64_t len = std::min<int64_t>(kChunk, n8 - done);
        dequantizeRow(type, row + *rowBytes(type, done), buffer, len); // chunks hold whole blocks
        dot.add(buffer, x + done, len);
        done += len;
    }
    if (n8 < n) {
        dequantizeRow(type, row + *rowBytes(type, n8), buffer, n - n8);
        for (int64_t i = n8; i < n; ++i) tail += buffer[i - n8] * x[i];
    }
    return dot.total() + tail;
}

} // namespace hearth
