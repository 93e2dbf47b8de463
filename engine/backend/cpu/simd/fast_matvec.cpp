#include "backend/cpu/simd/fast_matvec.h"

#include <algorithm>

#include "backend/cpu/cpu_ops.h"
#include "base/thread_pool.h"
#include "quant/dequantize.h"

namespace hearth::cpu {
namespace {

// Tokens whose activations a thread sweeps while a tile of rows sits in L1: about 256 KiB of them,
// so they stay in L2 as each row tile passes (a wider block re-reads them from further out).
constexpr uint64_t kTokenBlockBytes = 256 << 10;
// Reference rows per tile when several tokens share them (the tile stays in L1 across the tokens).
constexpr int64_t kReferenceRowTile = 8;

uint64_t blocksFor(uint64_t bytes) { return (bytes + sizeof(XKBlock) - 1) / sizeof(XKBlock); }

} // namespace

MatVec::MatVec(ThreadPool& pool, bool fast, SimdTier tier)
    : m_pool(pool), m_kernels(fast ? &kernelsFor(tier) : nullptr) {}

uint64_t MatVec::scratchBytes(int64_t cols, int tokens) {
    // x as X8 and as XK (products of several types may want both); each 1.25 bytes a value.
    const uint64_t n = uint64_t(std::max(tokens, 1));
    return (blocksFor(activationBytes(Activation::X8, (cols + 31) / 32 * 32) * n) +
            blocksFor(activationBytes(Activation::XK, (cols + 255) / 256 * 256) * n)) *
           sizeof(XKBlock);
}

void MatVec::reserve(int64_t cols, int tokens) {
    m_scratch.reserve(scratchBytes(cols, tokens) / sizeof(XKBlock));
}

// Each product's kernel (none: the reference dotRow), and x quantized once into the forms they read.
void MatVec::prepare(std::span<const Product> products, const float* x, int64_t ldx, int tokens) {
    const int64_t cols = products.front().w->cols;
    m_plans.assign(products.size(), Plan{});
    bool wants[3] = {false, false, false}; // by Activation
    for (size_t i = 0; i < products.size(); ++i) {
        const SimdKernel k = m_kernels ? m_kernels->forType(products[i].w->type) : SimdKernel{};
        const int64_t block = k.x == Activation::X8 ? 32 : k.x == Activation::XK ? 256 : 1;
        if (k.run && cols % block == 0) m_plans[i].k = k, wants[int(k.x)] = true;
    }
    const uint64_t x8Bytes = activationBytes(Activation::X8, cols), xkBytes = activationBytes(Activation::XK, cols);
    const bool copyF32 = wants[int(Activation::F32)] && ldx != cols && tokens > 1; // fp32 tokens back to back
    const uint64_t x8Blocks = wants[int(Activation::X8)] ? blocksFor(x8Bytes * uint64_t(tokens)) : 0;
    const uint64_t xkBlocks = wants[int(Activation::XK)] ? blocksFor(xkBytes * uint64_t(tokens)) : 0;
    const uint64_t f32Blocks = copyF32 ? blocksFor(uint64_t(cols) * sizeof(float) * uint64_t(tokens)) : 0;
    m_scratch.resize(std::max<size_t>(m_scratch.size(), x8Blocks + xkBlocks + f32Blocks));
    auto* x8 = reinterpret_cast<uint8_t*>(m_scratch.data());
    auto* xk = reinterpret_cast<uint8_t*>(m_scratch.data() + x8Blocks);
    auto* f32 = reinterpret_cast<float*>(m_scratch.data() + x8Blocks + xkBlocks);
    if (x8Blocks + xkBlocks + f32Blocks > 0)
        m_pool.parallelFor(tokens, [&](int64_t begin, int64_t end) {
            for (int64_t t = begin; t < end; ++t) {
                if (x8Blocks) quantizeX8(x + t * ldx, cols, reinterpret_cast<X8Block*>(x8 + t * x8Bytes));
                if (xkBlocks) quantizeXK(x + t * ldx, cols, reinterpret_cast<XKBlock*>(xk + t * xkBytes));
                if (f32Blocks) std::copy(x + t * ldx, x + t * ldx + cols, f32 + t * cols);
            }
        }, tokens);
    for (Plan& p : m_plans) {
        p.x = p.k.x == Activation::X8   ? x8
              : p.k.x == Activation::XK ? xk
              : copyF32                 ? reinterpret_cast<const uint8_t*>(f32)
                                        : reinterpret_cast<const uint8_t*>(x);
        p.xBytes = activationBytes(p.k.x, cols);
    }
}

// Rows [lo, hi) of product i for every token.
void MatVec::rows(size_t i, const Product& product, int64_t lo, int64_t hi, const float* x, int64_t ldx,
                  int tokens) const {
    const WeightMatrix& w = *product.w;
    const int64_t cols = w.cols, ldy = product.ldy;
    float* y = product.y;
    const Plan& p = m_plans[i];
    if (!p.k.run) { // the reference, rows in small tiles that every token passes over
        for (int64_t r0 = lo; r0 < hi; r0 += kReferenceRowTile)
            for (int t = 0; t < tokens; ++t)
                for (int64_t r = r0; r < std::min(hi, r0 + kReferenceRowTile); ++r)
                    y[t * ldy + r] = dotRow(w.type, w.row(r), x + t * ldx, cols);
        return;
    }
    int tokenBlock = int(std::clamp<uint64_t>(kTokenBlockBytes / std::max<uint64_t>(p.xBytes, 1), 1, uint64_t(tokens)));
    if (tokenBlock < tokens) tokenBlock = std::max(4, tokenBlock - tokenBlock % 4); // whole prefill tiles
    for (int t = 0; t < tokens; t += tokenBlock)
        p.k.run(w.row(lo), w.rowBytes, hi - lo, p.x + uint64_t(t) * p.xBytes, std::min(tokenBlock, tokens - t), cols,
                y + t * ldy + lo, ldy);
}

// The rows of all the products, claimed by the threads as they go (long ranges first, short ones at
// the end): on a shared machine the threads stream at different speeds from one product to the next,
// and with equal halves one waited for the other 8-16 % of a decode step (2-core VM, 1.9 B shape;
// with claimed ranges ~1.5 %). Ranges: whole 16-row tiles of >= ~32 K weights; at least ~64 K
// weights a thread (below that, waking a thread costs more than it saves).
void MatVec::shareRows(int64_t rows, int64_t weightsPerRow, const std::function<void(int64_t, int64_t)>& fn) {
    const int parts = int(std::max<int64_t>(1, rows * weightsPerRow / 65536));
    const int64_t grain = ((32768 + weightsPerRow - 1) / weightsPerRow + 15) / 16 * 16;
    m_pool.parallelForGuided(rows, grain, fn, parts);
}

void MatVec::run(std::span<const Product> products, const float* x, int64_t ldx, int tokens) {
    prepare(products, x, ldx, tokens);
    int64_t totalRows = 0;
    for (const Product& p : products) totalRows += p.w->rows;
    shareRows(totalRows, products.front().w->cols * tokens, [&](int64_t begin, int64_t end) {
        int64_t first = 0; // the first row of product i in the joint numbering
        for (size_t i = 0; i < products.size(); first += products[i].w->rows, ++i) {
            const int64_t lo = std::max(begin, first) - first, hi = std::min(end, first + products[i].w->rows) - first;
            if (lo < hi) rows(i, products[i], lo, hi, x, ldx, tokens);
        }
    });
}

void MatVec::runSwiGlu(float* h, int64_t ldh, const WeightMatrix& gate, const WeightMatrix& up, float* upOut,
                       const float* x, int64_t ldx, int tokens) {
    const Product products[2] = {{h, ldh, &gate}, {upOut, ldh, &up}};
    prepare(products, x, ldx, tokens);
    // A range is a pair of row ranges, gate's and up's, that its thread also combines.
    shareRows(gate.rows, 2 * gate.cols * tokens, [&](int64_t lo, int64_t hi) {
        rows(0, products[0], lo, hi, x, ldx, tokens);
        rows(1, products[1], lo, hi, x, ldx, tokens);
        for (int t = 0; t < tokens; ++t)
            for (int64_t r = lo; r < hi; ++r) h[t * ldh + r] = silu(h[t * ldh + r]) * upOut[t * ldh + r];
    });
}

} // namespace hearth::cpu
