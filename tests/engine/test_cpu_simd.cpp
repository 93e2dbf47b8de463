// The CPU fast path's dot products (backend/cpu/simd) against the reference dotRow, for every
// type with a fast kernel and every SIMD tier this CPU runs: random weights quantized by the
// engine's own quantizer, shapes whose rows are not a multiple of any SIMD width, outputs
// poisoned first; then products of several tokens (prefill) against one product per token, and
// the attention loops of the SIMD tiers.
// Block-quantized types read x as 8-bit X8 (or, for the K types, XK) blocks, so they match the
// fp32 reference within the activation's rounding; the tiers compute the same integer sums and
// must agree with each other to float rounding.
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "backend/cpu/cpu_ops.h"
#include "backend/cpu/simd/fast_matvec.h"
#include "backend/cpu/simd/half_convert.h"
#include "backend/cpu/simd/x8_activation.h"
#include "base/thread_pool.h"
#include "check.h"
#include "quant/dequantize.h"
#include "quant/half.h"
#include "quant/quantize.h"
#include "testdata.h"

using namespace hearth;
using namespace hearth::cpu;

namespace {

struct Case {
    DType type;
    double bound; // ‖fast − reference‖ / ‖scale‖ (scaleOf)
};

// ‖a − ref‖ / ‖scale‖. The scale of each output is Σ|w·x| over its row, not the output itself:
// a dot product of random signs may cancel to near zero, and an error relative to that would
// measure the cancellation, not the kernel.
double relativeError(const std::vector<float>& a, const std::vector<float>& ref, const std::vector<double>& scale) {
    double num = 0, den = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
        num += (double(a[i]) - ref[i]) * (double(a[i]) - ref[i]);
        den += scale[i] * scale[i];
    }
    return std::sqrt(num / std::max(den, 1e-30));
}

std::vector<double> scaleOf(const WeightMatrix& w, const std::vector<float>& x) {
    std::vector<double> scale(size_t(w.rows));
    std::vector<float> row(size_t(w.cols));
    for (int64_t r = 0; r < w.rows; ++r) {
        dequantizeRow(w.type, w.row(r), row.data(), w.cols);
        for (int64_t i = 0; i < w.cols; ++i) scale[size_t(r)] += std::fabs(double(row[size_t(i)]) * x[size_t(i)]);
    }
    return scale;
}

// A rows×cols matrix of `type` from random values (with a few outliers, as real weights have).
WeightMatrix makeMatrix(DType type, int64_t rows, int64_t cols, std::mt19937& rng, std::vector<uint8_t>& storage) {
    std::normal_distribution<float> normal(0.0f, 0.02f);
    std::vector<float> values(size_t(rows * cols));
    for (float& v : values) v = normal(rng);
    for (int i = 0; i < 8; ++i) values[rng() % values.size()] *= 20.0f;
    const uint64_t rowBytes = *hearth::rowBytes(type, uint64_t(cols));
    storage.assign(rowBytes * uint64_t(rows), 0);
    for (int64_t r = 0; r < rows; ++r) quantizeRow(type, values.data() + r * cols, storage.data() + r * rowBytes, cols);
    WeightMatrix m;
    m.name = "test";
    m.type = type;
    m.rows = rows;
    m.cols = cols;
    m.rowBytes = rowBytes;
    m.data = storage.data();
    return m;
}

std::vector<float> reference(const WeightMatrix& w, const std::vector<float>& x) {
    std::vector<float> y(size_t(w.rows));
    for (int64_t r = 0; r < w.rows; ++r) y[size_t(r)] = dotRow(w.type, w.row(r), x.data(), w.cols);
    return y;
}

std::vector<float> fast(ThreadPool& pool, SimdTier tier, const WeightMatrix& w, const std::vector<float>& x) {
    std::vector<float> y(size_t(w.rows), std::numeric_limits<float>::quiet_NaN()); // poisoned
    MatVec mv(pool, true, tier);
    mv.run(y.data(), w, x.data());
    return y;
}

// Several tokens in one product (prefill) against one product per token: every output the same
// bits (a (row, token) sum is the same arithmetic in any tile), and close to the reference. Token
// counts and strides that no tile divides; padding between rows of y stays untouched.
void checkTokens(ThreadPool& pool, const std::vector<SimdTier>& tiers, const Case& c, int64_t cols, std::mt19937& rng) {
    for (int64_t rows : {1, 6, 37}) {
        for (int tokens : {2, 3, 7}) {
            std::vector<uint8_t> storage;
            const WeightMatrix w = makeMatrix(c.type, rows, cols, rng, storage);
            const int64_t ldx = cols + 3, ldy = rows + 2;
            std::normal_distribution<float> normal(0.0f, 1.0f);
            std::vector<float> x(size_t(ldx * tokens));
            for (float& v : x) v = normal(rng);
            for (SimdTier tier : tiers) {
                constexpr float kUntouched = 12345.0f;
                std::vector<float> y(size_t(ldy * tokens), kUntouched);
                for (int t = 0; t < tokens; ++t)
                    std::fill(y.begin() + t * ldy, y.begin() + t * ldy + rows, std::numeric_limits<float>::quiet_NaN());
                MatVec mv(pool, true, tier);
                mv.run(y.data(), ldy, w, x.data(), ldx, tokens);
                for (int t = 0; t < tokens; ++t) {
                    const std::vector<float> xt(x.begin() + t * ldx, x.begin() + t * ldx + cols);
                    const std::vector<float> one = fast(pool, tier, w, xt);
                    const std::vector<float> many(y.begin() + t * ldy, y.begin() + t * ldy + rows);
                    CHECK_MSG(many == one, dtypeName(c.type) << " " << simdTierName(tier) << " " << rows << "x" << cols
                                                             << ", token " << t << " of " << tokens
                                                             << ": not the single-token product");
                    const double err = relativeError(many, reference(w, xt), scaleOf(w, xt));
                    CHECK_MSG(rows == 1 || err <= c.bound, dtypeName(c.type) << " " << simdTierName(tier) << " " << tokens
                                                                            << " tokens: error " << err);
                    for (int64_t i = rows; i < ldy; ++i)
                        CHECK_MSG(y[size_t(t * ldy + i)] == kUntouched, "the padding of y was written");
                }
            }
        }
    }
}

// Attention's loops over the cached positions (the fast path's, where a tier has them) against
// the plain loops, for each cache type: head widths with and without a tail of 8, position
// counts that no group of four divides.
void checkAttention(const std::vector<SimdTier>& tiers, std::mt19937& rng) {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    int checked = 0;
    for (const DType type : {DType::F32, DType::F16, DType::BF16}) {
        for (const int dim : {64, 72}) {
            const int32_t count = 37;
            const int64_t stride = 3 * dim; // rows of the cache hold other heads too
            std::vector<float> q(static_cast<size_t>(dim)), widened(static_cast<size_t>(count * stride)),
                weights(static_cast<size_t>(count));
            std::vector<uint8_t> cache(size_t(count * stride) * (type == DType::F32 ? 4 : 2));
            for (float& v : q) v = normal(rng);
            for (float& v : weights) v = std::fabs(normal(rng));
            for (size_t i = 0; i < widened.size(); ++i) { // stored as `type`, and what it reads back as
                const float v = normal(rng);
                if (type == DType::F32) std::memcpy(&cache[4 * i], &v, 4), widened[i] = v;
                const uint16_t h = type == DType::F16 ? floatToHalf(v) : floatToBf16(v);
                if (type != DType::F32) std::memcpy(&cache[2 * i], &h, 2), widened[i] = type == DType::F16 ? halfToFloat(h) : bf16ToFloat(h);
            }
            std::vector<float> scores(static_cast<size_t>(count)), mixed(static_cast<size_t>(dim), 0.0f);
            double scoreScale = 0, mixScale = 0;
            for (int32_t p = 0; p < count; ++p) {
                for (int i = 0; i < dim; ++i) scores[size_t(p)] += q[size_t(i)] * widened[size_t(p * stride + i)];
                scores[size_t(p)] *= 0.125f;
                scoreScale = std::max(scoreScale, std::fabs(double(scores[size_t(p)])));
                for (int i = 0; i < dim; ++i) mixed[size_t(i)] += weights[size_t(p)] * widened[size_t(p * stride + i)];
            }
            for (float v : mixed) mixScale = std::max(mixScale, std::fabs(double(v)));
            for (SimdTier tier : tiers) {
                const AttnKernels k = kernelsFor(tier).attention(type);
                if (!k.scores || !k.mix) continue;
                ++checked;
                std::vector<float> s(static_cast<size_t>(count), std::numeric_limits<float>::quiet_NaN());
                std::vector<float> o(static_cast<size_t>(dim), std::numeric_limits<float>::quiet_NaN());
                k.scores(q.data(), cache.data(), stride, dim, count, 0.125f, s.data());
                k.mix(weights.data(), cache.data(), stride, dim, count, o.data());
                double worstScore = 0, worstMix = 0;
                for (int32_t p = 0; p < count; ++p)
                    worstScore = std::max(worstScore, std::fabs(double(s[size_t(p)]) - scores[size_t(p)]) / scoreScale);
                for (int i = 0; i < dim; ++i)
                    worstMix = std::max(worstMix, std::fabs(double(o[size_t(i)]) - mixed[size_t(i)]) / mixScale);
                CHECK_MSG(worstScore <= 1e-5 && worstMix <= 1e-5, "attention " << dtypeName(type) << " " << simdTierName(tier)
                                                                               << " dim " << dim << ": scores " << worstScore
                                                                               << ", values " << worstMix);
            }
        }
    }
    std::printf("attention loops: %d cases of the SIMD tiers checked\n", checked);
    CHECK_MSG(checked > 0 || tiers.size() == 1, "a SIMD tier has no attention loops");
}

} // namespace

// The activation quantizers (SIMD where this CPU has it) against their scalar definition, bit for
// bit: random blocks of several magnitudes, exact ties (x·127/max|x| = k + ½ rounds away from zero),
// an all-zero block, a NaN (skipped by the maximum) and denormals.
template <class Block>
void checkQuantizerBlocks(const char* name, int blockSize, void (*best)(const float*, int64_t, Block*),
                          void (*scalar)(const float*, int64_t, Block*), std::mt19937& rng) {
    const int blocks = 6;
    std::vector<float> x(size_t(blockSize * blocks));
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (size_t i = 0; i < x.size(); ++i) x[i] = normal(rng) * (i / blockSize == 1 ? 1e-3f : 3.0f);
    float* ties = x.data() + 2 * blockSize; // max|x| = 127: x itself is scaled by 1
    for (int i = 0; i < blockSize; ++i) ties[i] = float(int(rng() % 253) - 126) + (i % 3 == 0 ? 0.5f : i % 3 == 1 ? -0.5f : 0.25f);
    ties[0] = 127.0f;
    std::fill_n(x.data() + 3 * blockSize, blockSize, 0.0f);
    x[size_t(4 * blockSize + 5)] = std::numeric_limits<float>::quiet_NaN();
    for (int i = 0; i < blockSize; ++i) x[size_t(5 * blockSize + i)] = float(i % 5) * 1e-40f;
    std::vector<Block> got(static_cast<size_t>(blocks)), want(static_cast<size_t>(blocks));
    std::memset(got.data(), 0x5a, got.size() * sizeof(Block)); // poisoned
    best(x.data(), int64_t(x.size()), got.data());
    scalar(x.data(), int64_t(x.size()), want.data());
    for (int b = 0; b < blocks; ++b) {
        const Block& g = got[size_t(b)];
        const Block& w = want[size_t(b)];
        CHECK_MSG(std::memcmp(g.q, w.q, sizeof w.q) == 0 && std::memcmp(&g.d, &w.d, sizeof w.d) == 0,
                  name << " block " << b << ": the values or the scale differ from the scalar quantizer");
        if constexpr (sizeof(Block) == sizeof(X8Block))
            CHECK_MSG(g.sumLo == w.sumLo && g.sumHi == w.sumHi, name << " block " << b << ": the sums differ");
        else
            CHECK_MSG(std::memcmp(g.sums, w.sums, sizeof w.sums) == 0, name << " block " << b << ": the sums differ");
    }
    CHECK_MSG(want[2].q[0] == 127 && want[2].q[1] == int8_t(std::lround(ties[1])),
              name << ": a tie did not round away from zero");
}

// The KV cache's fp16 conversion (F16C where this CPU has it) against floatToHalf, bit for bit:
// ordinary values, ties between two halves, values that round to a subnormal half, to zero, to the
// largest half or to infinity, infinities and NaNs with payloads, and a count that is no multiple of 8.
void checkHalfConversion(std::mt19937& rng) {
    std::vector<float> x;
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (int i = 0; i < 200; ++i) x.push_back(normal(rng) * (i % 4 == 0 ? 1e4f : i % 4 == 1 ? 1e-6f : 1.0f));
    const uint32_t bits[] = {0x3f801000u, 0x3f803000u, 0x477fe000u, 0x477ff000u, 0x477fefffu, 0x33000000u, 0x33000001u,
                             0x387fc000u, 0x38800000u, 0x00000001u, 0x80000000u, 0x7f800000u, 0xff800000u,
                             0x7fc00000u, 0x7f800001u, 0xffc12345u, 0x7fbfffffu};
    for (uint32_t b : bits) {
        float f;
        std::memcpy(&f, &b, 4);
        x.push_back(f);
    }
    std::vector<uint16_t> got(x.size(), 0x5a5a);
    floatsToHalves(x.data(), got.data(), x.size());
    for (size_t i = 0; i < x.size(); ++i)
        CHECK_MSG(got[i] == floatToHalf(x[i]), "fp16 of value " << i << " (" << x[i] << "): " << got[i] << " instead of "
                                                                  << floatToHalf(x[i]));
}

// The gated pair in one product equals gate and up apart, then silu(gate)·up, bit for bit, on the
// reference and on the fast kernels, for one token and several.
void checkSwiGlu(ThreadPool& pool, std::mt19937& rng) {
    for (const bool fastPath : {false, true})
        for (const int tokens : {1, 5}) {
            std::vector<uint8_t> gs, us;
            const WeightMatrix gate = makeMatrix(DType::Q4_K, 211, 512, rng, gs);
            const WeightMatrix up = makeMatrix(DType::Q6_K, 211, 512, rng, us);
            std::normal_distribution<float> normal(0.0f, 1.0f);
            std::vector<float> x(size_t(tokens) * 512);
            for (float& v : x) v = normal(rng);
            MatVec mv(pool, fastPath);
            std::vector<float> g(size_t(tokens) * 211), u(g.size());
            const MatVec::Product products[2] = {{g.data(), 211, &gate}, {u.data(), 211, &up}};
            mv.run(products, x.data(), 512, tokens);
            for (size_t i = 0; i < g.size(); ++i) g[i] = silu(g[i]) * u[i];
            std::vector<float> h(g.size(), std::numeric_limits<float>::quiet_NaN()), upOut(g.size());
            mv.runSwiGlu(h.data(), 211, gate, up, upOut.data(), x.data(), 512, tokens);
            CHECK_MSG(h == g, (fastPath ? "fast" : "reference") << " SwiGLU, " << tokens
                                                                << " token(s): differs from the products apart");
        }
}

int main() {
    test::announce("cpu_simd", "cpu");
    const Case cases[] = {
        {DType::Q8_0, 5e-3}, {DType::Q4_0, 5e-3}, {DType::Q5_0, 5e-3}, {DType::Q4_K, 5e-3},
        {DType::Q5_K, 5e-3}, {DType::Q6_K, 5e-3}, {DType::F16, 1e-6}, {DType::BF16, 1e-6},
    };
    std::vector<SimdTier> tiers;
    for (SimdTier t : {SimdTier::Scalar, SimdTier::Avx2, SimdTier::Avx512})
        if (simdTierAvailable(t)) tiers.push_back(t);
    std::printf("tiers on this CPU:");
    for (SimdTier t : tiers) std::printf(" %s", simdTierName(t));
    std::printf(" (the default: %s)\n", simdTierName(simdTier()));

    ThreadPool pool(2);
    std::mt19937 rng(12345);
    for (const Case& c : cases) {
        double worst = 0;
        const bool kType = c.type == DType::Q4_K || c.type == DType::Q5_K || c.type == DType::Q6_K;
        // Row counts that are no multiple of 8 or 16; widths of one block, several, and odd counts.
        const std::vector<int64_t> widths = kType ? std::vector<int64_t>{256, 768, 2560} : std::vector<int64_t>{32, 96, 1056};
        for (int64_t cols : widths) {
            // One row of few blocks is a statistic of a handful of products: 1-row shapes are
            // checked for being written and for the tiers agreeing, the bound on the others.
            for (int64_t rows : {1, 37, 203}) {
                std::vector<uint8_t> storage;
                const WeightMatrix w = makeMatrix(c.type, rows, cols, rng, storage);
                std::normal_distribution<float> normal(0.0f, 1.0f);
                std::vector<float> x(static_cast<size_t>(cols));
                for (float& v : x) v = normal(rng);
                const std::vector<float> ref = reference(w, x);
                const std::vector<double> scale = scaleOf(w, x);
                std::vector<float> scalar;
                for (SimdTier tier : tiers) {
                    const std::vector<float> y = fast(pool, tier, w, x);
                    bool finite = true;
                    for (float v : y) finite &= std::isfinite(v);
                    CHECK_MSG(finite, dtypeName(c.type) << " " << simdTierName(tier) << " " << rows << "x" << cols
                                                        << ": an output was not written");
                    const double err = relativeError(y, ref, scale);
                    CHECK_MSG(rows == 1 || err <= c.bound, dtypeName(c.type) << " " << simdTierName(tier) << " " << rows << "x"
                                                                << cols << ": error " << err << " > " << c.bound);
                    if (rows > 1) worst = std::max(worst, err);
                    if (tier == SimdTier::Scalar) scalar = y;
                    else
                        CHECK_MSG(relativeError(y, scalar, scale) <= 1e-5, dtypeName(c.type) << " " << simdTierName(tier)
                                                                                     << " differs from the scalar tier");
                }
            }
        }
        checkTokens(pool, tiers, c, widths[1], rng);
        std::printf("%-5s worst error %.2e (bound %.0e)\n", dtypeName(c.type), worst, c.bound);
    }
    checkAttention(tiers, rng);
    checkQuantizerBlocks<X8Block>("X8", 32, quantizeX8, quantizeX8Scalar, rng);
    checkQuantizerBlocks<XKBlock>("XK", 256, quantizeXK, quantizeXKScalar, rng);
    checkSwiGlu(pool, rng);
    checkHalfConversion(rng);
    // F32 and a reference MatVec run the reference dotRow exactly, one token or several.
    for (const bool fastPath : {false, true}) {
        std::vector<uint8_t> storage;
        const WeightMatrix w = makeMatrix(fastPath ? DType::F32 : DType::Q4_K, 19, 256, rng, storage);
        std::vector<float> x(3 * 256);
        for (size_t i = 0; i < x.size(); ++i) x[i] = float(i % 7) * 0.25f - 0.5f;
        std::vector<float> y(3 * 19, std::numeric_limits<float>::quiet_NaN());
        MatVec(pool, fastPath).run(y.data(), 19, w, x.data(), 256, 3);
        for (int t = 0; t < 3; ++t)
            CHECK_MSG(std::vector<float>(y.begin() + 19 * t, y.begin() + 19 * (t + 1)) ==
                          reference(w, std::vector<float>(x.begin() + 256 * t, x.begin() + 256 * (t + 1))),
                      "the reference path was not bit-exact");
    }
    return test::finish();
}
