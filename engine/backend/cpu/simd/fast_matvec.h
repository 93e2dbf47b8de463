// y = W·x for the CPU backend, either way: the fast path (the SIMD tier's kernels against x
// quantized once to X8, simd_kernels.h) for the types that have one, or the reference dotRow (fp32
// x) — for F32, whose reference already streams at memory speed, and for everything when the
// reference is asked for (ModelParams::cpuKernels). Rows are split across the pool's threads;
// each dot product stays on one thread, so results do not depend on the thread count.
#pragma once

#include <vector>

#include "backend/cpu/simd/simd_kernels.h"
#include "model/model_weights.h"

namespace hearth {
class ThreadPool;
}

namespace hearth::cpu {

class MatVec {
public:
    // `fast` false: always the reference. `tier`: which SIMD tier's kernels (tests pick each).
    MatVec(ThreadPool& pool, bool fast, SimdTier tier = simdTier());
    void run(float* y, const WeightMatrix& w, const float* x);
    bool fast() const { return m_kernels != nullptr; }
    // The activation scratch for matrices of up to `cols` inputs (the session's workspace).
    static uint64_t scratchBytes(int64_t cols) { return uint64_t((cols + 31) / 32) * sizeof(X8Block); }

private:
    ThreadPool& m_pool;
    const SimdKernels* m_kernels; // null: the reference
    std::vector<X8Block> m_x8;
};

} // namespace hearth::cpu
