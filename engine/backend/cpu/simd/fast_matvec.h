// Y = X·Wᵀ for the CPU backend, either way: the fast path (the SIMD tier's kernels against x
// quantized once per product to X8 or XK, simd_kernels.h) for the types that have one, or the
// reference dotRow (fp32 x) — for F32, whose reference already streams at memory speed, and for
// everything when the reference is asked for (ModelParams::cpuKernels). One token is a decode
// step's matrix-vector product; several are prefill's matrix product, where the kernels let the
// tokens share each weight they unpack. Rows are split across the pool's threads; each dot
// product stays on one thread and is the same arithmetic however many tokens come with it, so
// results depend neither on the thread count nor on how the tokens are grouped.
#pragma once

#include <functional>
#include <span>
#include <vector>

#include "backend/cpu/simd/simd_kernels.h"
#include "model/model_weights.h"

namespace hearth {
class ThreadPool;
}

namespace hearth::cpu {

class MatVec {
public:
    // One of several products of the same x: y[t·ldy + r] = row r of w · x_t.
    struct Product {
        float* y;
        int64_t ldy;
        const WeightMatrix* w;
    };

    // `fast` false: always the reference. `tier`: which SIMD tier's kernels (tests pick each).
    MatVec(ThreadPool& pool, bool fast, SimdTier tier = simdTier());
    // y[rows] = W x.
    void run(float* y, const WeightMatrix& w, const float* x) { run(y, w.rows, w, x, w.cols, 1); }
    // For t < tokens: y[t·ldy + r] = row r of W · x[t·ldx ...].
    void run(float* y, int64_t ldy, const WeightMatrix& w, const float* x, int64_t ldx, int tokens) {
        const Product p{y, ldy, &w};
        run(std::span(&p, 1), x, ldx, tokens);
    }
    // Products of matrices with as many columns, of the same x (q, k and v; gate and up): x is
    // quantized once and the rows of all of them are shared out to the threads at once.
    void run(std::span<const Product> products, const float* x, int64_t ldx, int tokens);
    // The feed-forward's gated pair, gate and up of one shape: h[t·ldh + r] = silu(gate row r · x_t)
    // · (up row r · x_t), with upOut (as h) holding up's products. A thread combines the rows it
    // computed, so nothing of the pair is left for one thread after the join (on 16 threads that
    // serial SiLU had cost a small model more than its gate/up product did).
    void runSwiGlu(float* h, int64_t ldh, const WeightMatrix& gate, const WeightMatrix& up, float* upOut,
                   const float* x, int64_t ldx, int tokens);
    bool fast() const { return m_kernels != nullptr; }

    // The activation scratch for matrices of up to `cols` inputs and `tokens` tokens: reserve it
    // up front (the session's workspace), or it grows on demand.
    void reserve(int64_t cols, int tokens);
    static uint64_t scratchBytes(int64_t cols, int tokens);

private:
    // A product's kernel (none: the reference dotRow) and x in the form it reads.
    struct Plan {
        SimdKernel k;
        const uint8_t* x = nullptr;
        uint64_t xBytes = 0;
    };
    void prepare(std::span<const Product> products, const float* x, int64_t ldx, int tokens);
    void rows(size_t i, const Product& product, int64_t lo, int64_t hi, const float* x, int64_t ldx, int tokens) const;
    void shareRows(int64_t rows, int64_t weightsPerRow, const std::function<void(int64_t, int64_t)>& fn);

    ThreadPool& m_pool;
    const SimdKernels* m_kernels; // null: the reference
    std::vector<XKBlock> m_scratch; // the quantized activations (XKBlock: the strictest alignment)
    std::vector<Plan> m_plans;      // the current call's
};

} // namespace hearth::cpu
