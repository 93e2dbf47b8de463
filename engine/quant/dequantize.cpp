#include "quant/dequantize.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "quant/blocks.h"

namespace hearth {

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
