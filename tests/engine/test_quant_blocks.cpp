// GGUF block types Q8_0, Q4_0, Q5_0, Q4_K, Q5_K, Q6_K on the CPU: hand-built blocks decode to
// hand-computed values (read straight off engines.md §3b, element by element, independently of
// the engine's loops), quantizers stay under a per-type error bound on random data, dotRow agrees
// with a double-precision reference and is deterministic, and validateBlocks rejects non-finite
// scales naming the row and block.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "check.h"
#include "quant/blocks.h"
#include "quant/dequantize.h"
#include "quant/quantize.h"
#include "quant/types.h"

using namespace hearth;

namespace {

constexpr DType kBlockTypes[] = {DType::Q8_0, DType::Q4_0, DType::Q5_0,
                                 DType::Q4_K, DType::Q5_K, DType::Q6_K};
constexpr DType kAllTypes[] = {DType::F32,  DType::F16,  DType::BF16, DType::Q8_0, DType::Q4_0,
                               DType::Q5_0, DType::Q4_K, DType::Q5_K, DType::Q6_K};

// Relative RMS error bound ‖deq − x‖/‖x‖ on N(0,1) data: the worst measured row (printed by the
// test) plus 3-5 %. These formats cannot do much better on Gaussian data: a brute-force search
// over every per-block scale gives Q4_0 0.0808, Q5_0 0.0399, a 4-bit affine grid per 32 (Q4_K
// before its 6-bit scales) 0.0694, 5-bit 0.0336, Q6_K's 16-element grid 0.0164.
double errorBound(DType type) {
    switch (type) {
    case DType::F32: return 0.0;
    case DType::F16: return 0.0003;
    case DType::BF16: return 0.0018;
    case DType::Q8_0: return 0.0052;
    case DType::Q6_K: return 0.0175;
    case DType::Q5_K: return 0.036;
    case DType::Q5_0: return 0.042;
    case DType::Q4_K: return 0.073;
    case DType::Q4_0: return 0.085;
    default: return 0.0;
    }
}

std::vector<float> gaussian(int64_t n, uint32_t seed, float scale) {
    std::mt19937 rng(seed);
    std::vector<float> v(static_cast<size_t>(n));
    // Box-Muller on the raw generator, so the data is the same with every standard library.
    for (int64_t i = 0; i < n; i += 2) {
        const double u1 = (double(rng()) + 1.0) / 4294967297.0;
        const double u2 = double(rng()) / 4294967296.0;
        const double r = std::sqrt(-2.0 * std::log(u1));
        v[size_t(i)] = float(scale * r * std::cos(6.283185307179586 * u2));
        if (i + 1 < n) v[size_t(i + 1)] = float(scale * r * std::sin(6.283185307179586 * u2));
    }
    return v;
}

std::vector<uint8_t> quantize(DType type, const std::vector<float>& x) {
    std::vector<uint8_t> out(*rowBytes(type, x.size()));
    quantizeRow(type, x.data(), out.data(), int64_t(x.size()));
    return out;
}

std::vector<float> dequantize(DType type, const std::vector<uint8_t>& q, int64_t n) {
    std::vector<float> out(static_cast<size_t>(n));
    dequantizeRow(type, q.data(), out.data(), n);
    return out;
}

double relativeError(const std::vector<float>& x, const std::vector<float>& y) {
    double num = 0.0, den = 0.0;
    for (size_t i = 0; i < x.size(); ++i) {
        num += (double(y[i]) - x[i]) * (double(y[i]) - x[i]);
        den += double(x[i]) * x[i];
    }
    return den > 0.0 ? std::sqrt(num / den) : std::sqrt(num);
}

template <typename Block>
std::vector<float> decode(DType type, const Block& block, int n) {
    std::vector<uint8_t> bytes(sizeof block);
    std::memcpy(bytes.data(), &block, sizeof block);
    return dequantize(type, bytes, n);
}

// ---- hand-built blocks --------------------------------------------------------------------

void testLegacyBlocks() {
    BlockQ8_0 q8{};
    q8.d = 0x3800; // 0.5
    for (int j = 0; j < 32; ++j) q8.qs[j] = int8_t(j * 8 - 128); // -128, -120, ..., 120
    std::vector<float> y = decode(DType::Q8_0, q8, 32);
    CHECK_EQ(y[0], -64.0f); // 0.5 · −128
    CHECK_EQ(y[15], -4.0f); // 0.5 · −8
    CHECK_EQ(y[31], 60.0f); // 0.5 · 120
    for (int j = 0; j < 32; ++j) CHECK_EQ(y[size_t(j)], 0.5f * float(q8.qs[j]));

    BlockQ4_0 q4{};
    q4.d = 0x4000; // 2.0
    for (int j = 0; j < 16; ++j) q4.qs[j] = uint8_t(j | (15 - j) << 4);
    y = decode(DType::Q4_0, q4, 32);
    CHECK_EQ(y[0], -16.0f);  // low nibble 0: 2·(0−8)
    CHECK_EQ(y[15], 14.0f);  // low nibble 15
    CHECK_EQ(y[16], 14.0f);  // high nibble of qs[0] = 15
    CHECK_EQ(y[31], -16.0f); // high nibble of qs[15] = 0
    CHECK_EQ(y[9], 2.0f);

    BlockQ5_0 q5{};
    q5.d = 0x3400; // 0.25
    // qh little-endian: bits 0, 9, 16 and 31 set.
    const uint32_t qh = 1u << 0 | 1u << 9 | 1u << 16 | 1u << 31;
    for (int i = 0; i < 4; ++i) q5.qh[i] = uint8_t(qh >> (8 * i));
    for (int j = 0; j < 16; ++j) q5.qs[j] = uint8_t(0xA | 0x3 << 4);
    y = decode(DType::Q5_0, q5, 32);
    CHECK_EQ(y[0], 2.5f);    // (10 | 16) − 16 = 10 → 2.5
    CHECK_EQ(y[1], -1.5f);   // 10 − 16 = −6
    CHECK_EQ(y[9], 2.5f);    // bit 9
    CHECK_EQ(y[16], 0.75f);  // (3 | 16) − 16 = 3 (bit 16: element 16)
    CHECK_EQ(y[17], -3.25f); // 3 − 16 = −13
    CHECK_EQ(y[31], 0.75f);  // bit 31
}

// Q4_K/Q5_K scales: sub-blocks 0-3 use the plain 6-bit fields, 4-7 the split ones; every
// packed byte below was worked out by hand from engines.md §3b.
constexpr uint8_t kScales[8] = {1, 2, 3, 4, 33, 45, 50, 63};
constexpr uint8_t kMins[8] = {5, 6, 7, 8, 17, 20, 40, 61};
constexpr uint8_t kPacked[12] = {129, 130, 195, 196, 69, 70, 135, 200, 0x11, 0x4D, 0x82, 0xDF};

void testKScalePacking() {
    uint8_t packed[12];
    packScaleMins(kScales, kMins, packed);
    for (int i = 0; i < 12; ++i) CHECK_EQ(int(packed[i]), int(kPacked[i]));
    for (int j = 0; j < 8; ++j) {
        uint8_t sc = 0, m = 0;
        unpackScaleMin(kPacked, j, sc, m);
        CHECK_EQ(int(sc), int(kScales[j]));
        CHECK_EQ(int(m), int(kMins[j]));
    }
}

void testQ4KQ5K() {
    BlockQ5_K q5{};
    q5.d = 0x3C00;    // 1.0
    q5.dmin = 0x3800; // 0.5
    std::memcpy(q5.scales, kPacked, 12);
    for (int i = 0; i < 128; ++i) q5.qs[i] = uint8_t(((i * 7) & 0xF) | ((i * 3 + 5) & 0xF) << 4);
    for (int l = 0; l < 32; ++l) q5.qh[l] = uint8_t(l * 37 + 11);

    BlockQ4_K q4{};
    q4.d = q5.d;
    q4.dmin = q5.dmin;
    std::memcpy(q4.scales, q5.scales, 12);
    std::memcpy(q4.qs, q5.qs, 128);

    const std::vector<float> y4 = decode(DType::Q4_K, q4, 256);
    const std::vector<float> y5 = decode(DType::Q5_K, q5, 256);
    for (int e = 0; e < 256; ++e) {
        // Element e: chunk c = e/64, half = low (0) or high (1) nibble, l within the 32 bytes.
        const int c = e / 64, half = (e % 64) / 32, l = e % 32, sub = 2 * c + half;
        const uint8_t byte = q5.qs[32 * c + l];
        const int q = half ? byte >> 4 : byte & 0xF;
        const int bit = (q5.qh[l] >> (2 * c + half)) & 1;
        CHECK_EQ(y4[size_t(e)], 1.0f * kScales[sub] * q - 0.5f * kMins[sub]);
        CHECK_EQ(y5[size_t(e)], 1.0f * kScales[sub] * (q + 16 * bit) - 0.5f * kMins[sub]);
    }
    // Spot values by hand. Element 0: qs[0] low = 0, sub 0 (sc 1, m 5) → −2.5; Q5_K: qh[0] = 11
    // has bit 0 set → 1·16 − 2.5 = 13.5.
    CHECK_EQ(y4[0], -2.5f);
    CHECK_EQ(y5[0], 13.5f);
    // Element 255: chunk 3, high half, l = 31, sub 7 (sc 63, m 61); qs[127] high nibble =
    // (127·3+5)&15 = 2; qh[31] = (31·37 + 11) & 255 = 134 = 0b10000110, bit 7 set → +16 in Q5_K.
    CHECK_EQ(y4[255], 63.0f * 2 - 30.5f);
    CHECK_EQ(y5[255], 63.0f * 18 - 30.5f);
    // Element 129: chunk 2, low half, l = 1, sub 4 (sc 33, m 17: the split fields); qs[65] low
    // = 455&15 = 7; qh[1] = 48 = 0b00110000, bit 4 set.
    CHECK_EQ(y4[129], 33.0f * 7 - 8.5f);
    CHECK_EQ(y5[129], 33.0f * 23 - 8.5f);
    // Element 224 (chunk 3, high half, l = 0): qs[96] high = (96·3+5)&15 = 5, sub 7; qh[0] = 11 =
    // 0b00001011: bit 7 clear. Element 192 (chunk 3, low half, l = 0): qs[96] low = 672&15 = 0,
    // sub 6 (sc 50, m 40); bit 6 clear. Element 32 (chunk 0, high half): qs[0] high = 5, sub 1
    // (sc 2, m 6), qh[0] bit 1 set → Q5_K 2·21 − 3.
    CHECK_EQ(y4[224], 63.0f * 5 - 30.5f);
    CHECK_EQ(y5[192], -20.0f);
    CHECK_EQ(y5[32], 39.0f);
}

void testQ6K() {
    BlockQ6_K b{};
    b.d = 0x3800; // 0.5
    const int8_t scales[16] = {1, -2, 3, -4, 5, -6, 7, -128, 127, -1, 2, -3, 4, -5, 6, -7};
    std::memcpy(b.scales, scales, 16);
    for (int i = 0; i < 128; ++i) b.ql[i] = uint8_t(i * 13 + 7);
    for (int i = 0; i < 64; ++i) b.qh[i] = uint8_t(i * 29 + 3);
    const std::vector<float> y = decode(DType::Q6_K, b, 256);
    for (int e = 0; e < 256; ++e) {
        // Half h, quarter k (0..3) of 32 elements, position l. Quarters 0/1 take the low
        // nibbles of ql[l] / ql[l+32], quarters 2/3 their high nibbles; qh[l] bits 2k, 2k+1.
        const int h = e / 128, k = (e % 128) / 32, l = e % 32;
        const uint8_t lowByte = b.ql[64 * h + l + (k % 2 ? 32 : 0)];
        const int low = k < 2 ? lowByte & 0xF : lowByte >> 4;
        const int high = (b.qh[32 * h + l] >> (2 * k)) & 3;
        const int q = (low | high << 4) - 32;
        CHECK_EQ(y[size_t(e)], 0.5f * float(scales[e / 16]) * float(q));
    }
    // Element 0: ql[0] = 7, qh[0] = 3 → (7 | 3<<4) − 32 = 23, scale 1 → 11.5.
    CHECK_EQ(y[0], 11.5f);
    // Element 96 (quarter 3): ql[32] = 423 & 255 = 167 → high nibble 10; qh[0] bits 6-7 = 0
    // → 10 − 32 = −22; scale index 6 → 7 → 0.5·7·−22 = −77.
    CHECK_EQ(y[96], -77.0f);
    // Element 112 (quarter 3, l = 16): scale index 7 = −128; ql[48] = 631&255 = 119 → high 7;
    // qh[16] = 467&255 = 211 = 0b11010011 → bits 6-7 = 3 → (7 | 48) − 32 = 23 → 0.5·−128·23.
    CHECK_EQ(y[112], -1472.0f);
    // Element 160 (second half, quarter 1, l = 0): ql[64+32] = 96·13+7 = 1255&255 = 231 → low 7;
    // qh[32] = 931&255 = 163 = 0b10100011 → bits 2-3 = 0 → 7 − 32 = −25; scale index 10 → 2.
    CHECK_EQ(y[160], -25.0f);
    // Element 64 (quarter 2): ql[0] = 7 → high nibble 0; qh[0] = 3 → bits 4-5 = 0 → −32;
    // scale index 4 → 5 → 0.5·5·−32.
    CHECK_EQ(y[64], -80.0f);
}

// ---- quantizers -------------------------------------------------------------------------

void testQuantizeError() {
    constexpr int64_t kN = 8192;
    const float scales[] = {1.0f, 0.001f, 40.0f};
    for (DType type : kAllTypes) {
        double worst = 0.0;
        for (uint32_t seed = 1; seed <= 3; ++seed) {
            for (float scale : scales) {
                const std::vector<float> x = gaussian(kN, seed * 7919u, scale);
                const double err = relativeError(x, dequantize(type, quantize(type, x), kN));
                worst = std::max(worst, err);
                CHECK_MSG(err <= errorBound(type), dtypeName(type) << " seed " << seed << " scale "
                                                                   << scale << ": error " << err);
            }
        }
        std::printf("  %-5s relative RMS error (worst of 9 rows) %.5f (bound %.4f)\n", dtypeName(type),
                    worst, errorBound(type));

        // All zeros: exact zeros back, finite scales.
        const std::vector<float> zeros(kN, 0.0f);
        const std::vector<uint8_t> qz = quantize(type, zeros);
        for (float v : dequantize(type, qz, kN)) CHECK_EQ(v, 0.0f);
        CHECK_OK(validateBlocks(type, qz.data(), 1, kN, "zeros"));

        // One large outlier: it survives (to 1 %), and the super-blocks it is not in keep
        // their accuracy.
        std::vector<float> x = gaussian(kN, 99, 1.0f);
        const size_t at = 1000; // inside elements 768..1023
        x[at] = 300.0f;
        const std::vector<float> y = dequantize(type, quantize(type, x), kN);
        CHECK_MSG(std::fabs(y[at] - 300.0f) <= 3.0f, dtypeName(type) << " outlier gave " << y[at]);
        std::vector<float> xRest(x.begin(), x.begin() + 768), yRest(y.begin(), y.begin() + 768);
        xRest.insert(xRest.end(), x.begin() + 1024, x.end());
        yRest.insert(yRest.end(), y.begin() + 1024, y.end());
        const double rest = relativeError(xRest, yRest);
        CHECK_MSG(rest <= errorBound(type), dtypeName(type) << " away from outlier: " << rest);
        std::printf("  %-5s with a 300σ outlier: %.5f elsewhere, outlier %.2f\n", dtypeName(type), rest,
                    y[at]);
    }
}

// Q4_0/Q5_0 keep ggml's sign convention: the scale's sign puts the largest-magnitude element on
// the extra negative level (stored value 0), whichever sign that element has.
void testSignConvention() {
    for (float sign : {1.0f, -1.0f}) {
        std::vector<float> x = gaussian(32, 5, 0.3f);
        x[7] = 4.0f * sign;
        const std::vector<uint8_t> q4 = quantize(DType::Q4_0, x);
        BlockQ4_0 b4;
        std::memcpy(&b4, q4.data(), sizeof b4);
        CHECK_EQ(b4.qs[7] & 0xF, 0);
        CHECK(std::signbit(halfToFloat(b4.d)) == (sign > 0));
        const std::vector<uint8_t> q5 = quantize(DType::Q5_0, x);
        BlockQ5_0 b5;
        std::memcpy(&b5, q5.data(), sizeof b5);
        CHECK_EQ((b5.qs[7] & 0xF) | (b5.qh[0] >> 7 & 1) << 4, 0);
        // Least squares may pull d off max/−16 a little: the extreme stays within half a step.
        CHECK_NEAR(dequantize(DType::Q5_0, q5, 32)[7], x[7], 0.5 * std::fabs(halfToFloat(b5.d)));
    }
}

// ---- dot products -----------------------------------------------------------------------

void testDotRow() {
    constexpr int64_t kN = 4096;
    for (DType type : kAllTypes) {
        for (uint32_t seed = 11; seed <= 13; ++seed) {
            const std::vector<uint8_t> row = quantize(type, gaussian(kN, seed, 0.05f));
            const std::vector<float> x = gaussian(kN, seed + 100, 1.0f);
            const std::vector<float> w = dequantize(type, row, kN);
            double ref = 0.0, magnitude = 0.0;
            for (int64_t i = 0; i < kN; ++i) {
                ref += double(w[size_t(i)]) * x[size_t(i)];
                magnitude += std::fabs(double(w[size_t(i)]) * x[size_t(i)]);
            }
            const float dot = dotRow(type, row.data(), x.data(), kN);
            // Relative to Σ|w·x|, the scale float rounding works at (the sum itself may cancel).
            CHECK_MSG(std::fabs(dot - ref) <= 1e-5 * magnitude,
                      dtypeName(type) << ": dot " << dot << " vs " << ref);
            const float again = dotRow(type, row.data(), x.data(), kN);
            CHECK(std::memcmp(&dot, &again, sizeof dot) == 0);
        }
    }
    // Deterministic quantizers too: the same input gives the same bytes.
    const std::vector<float> x = gaussian(1024, 3, 1.0f);
    for (DType type : kBlockTypes) CHECK(quantize(type, x) == quantize(type, x));
}

// ---- validation and type sets -----------------------------------------------------------

void testValidateBlocks() {
    constexpr int64_t kRows = 4, kCols = 512;
    const std::vector<float> x = gaussian(kRows * kCols, 21, 1.0f);
    for (DType type : kBlockTypes) {
        const uint64_t rowSize = *rowBytes(type, kCols);
        std::vector<uint8_t> data(rowSize * kRows);
        for (int64_t r = 0; r < kRows; ++r)
            quantizeRow(type, x.data() + r * kCols, data.data() + r * rowSize, kCols);
        CHECK_OK(validateBlocks(type, data.data(), kRows, kCols, "blk.0.ffn_up.weight"));

        const uint32_t blockBytes = dtypeTraits(uint32_t(type))->blockBytes;
        const size_t dOffset = type == DType::Q6_K ? offsetof(BlockQ6_K, d) : 0;
        const int64_t block = type == DType::Q4_K || type == DType::Q5_K || type == DType::Q6_K ? 1 : 3;
        uint8_t* target = data.data() + 2 * rowSize + block * blockBytes;
        const std::string where = "row 2 block " + std::to_string(block);
        for (uint16_t bad : {uint16_t(0x7E00), uint16_t(0x7C00), uint16_t(0xFC00)}) {
            uint16_t saved;
            std::memcpy(&saved, target + dOffset, 2);
            std::memcpy(target + dOffset, &bad, 2);
            const Status st = validateBlocks(type, data.data(), kRows, kCols, "blk.0.ffn_up.weight");
            CHECK_ERR(st, StatusCode::DataLoss, "blk.0.ffn_up.weight");
            CHECK_ERR(st, StatusCode::DataLoss, where);
            std::memcpy(target + dOffset, &saved, 2);
        }
        if (type == DType::Q4_K || type == DType::Q5_K) {
            const uint16_t nan = 0x7E00;
            std::memcpy(target + 2, &nan, 2); // dmin
            CHECK_ERR(validateBlocks(type, data.data(), kRows, kCols, "t"), StatusCode::DataLoss,
                      where + " has a non-finite scale (dmin is nan)");
        }
    }
    // Plain float tensors are not scanned, even with NaN inside.
    const uint16_t nanHalf[4] = {0x7E00, 0x7E00, 0x7E00, 0x7E00};
    CHECK_OK(validateBlocks(DType::F16, reinterpret_cast<const uint8_t*>(nanHalf), 2, 2, "f16"));
    const uint8_t dummy[84] = {};
    CHECK_ERR(validateBlocks(DType::Q2_K, dummy, 1, 256, "q2k"), StatusCode::Unsupported, "Q2_K");
}

void testTypeSets() {
    int supported = 0;
    for (uint32_t id = 0; id < 64; ++id) {
        if (!dtypeTraits(id)) continue;
        const DType type = DType(id);
        bool expected = false;
        for (DType t : kAllTypes) expected = expected || t == type;
        CHECK_MSG(isComputeSupported(type) == expected, dtypeName(type));
        CHECK_MSG(isQuantizable(type) == expected, dtypeName(type));
        supported += expected ? 1 : 0;
    }
    CHECK_EQ(supported, 9);
    CHECK_EQ(*rowBytes(DType::Q8_0, 64), 2 * sizeof(BlockQ8_0));
    CHECK_EQ(*rowBytes(DType::Q4_0, 64), 2 * sizeof(BlockQ4_0));
    CHECK_EQ(*rowBytes(DType::Q5_0, 64), 2 * sizeof(BlockQ5_0));
    CHECK_EQ(*rowBytes(DType::Q4_K, 512), 2 * sizeof(BlockQ4_K));
    CHECK_EQ(*rowBytes(DType::Q5_K, 512), 2 * sizeof(BlockQ5_K));
    CHECK_EQ(*rowBytes(DType::Q6_K, 512), 2 * sizeof(BlockQ6_K));
}

// Not a timed test: prints quantization throughput so regressions show up in the log.
void reportSpeed() {
    constexpr int64_t kN = 1 << 20;
    const std::vector<float> x = gaussian(kN, 8, 1.0f);
    for (DType type : kBlockTypes) {
        std::vector<uint8_t> out(*rowBytes(type, kN));
        const auto start = std::chrono::steady_clock::now();
        quantizeRow(type, x.data(), out.data(), kN);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("  %-5s quantize %.1f M elements/s (one thread)\n", dtypeName(type), kN / s / 1e6);
    }
}

} // namespace

int main() {
    hearth::test::announce("quant_blocks", "cpu");
    testLegacyBlocks();
    testKScalePacking();
    testQ4KQ5K();
    testQ6K();
    testQuantizeError();
    testSignConvention();
    testDotRow();
    testValidateBlocks();
    testTypeSets();
    reportSpeed();
    return hearth::test::finish();
}
