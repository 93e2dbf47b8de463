#include "backend/cpu/simd/fast_matvec.h"

#include <algorithm>

#include "backend/cpu/cpu_ops.h"
#include "base/thread_pool.h"

namespace hearth::cpu {

MatVec::MatVec(ThreadPool& pool, bool fast, SimdTier tier)
    : m_pool(pool), m_kernels(fast ? &kernelsFor(tier) : nullptr) {}

void MatVec::run(float* y, const WeightMatrix& w, const float* x) {
    const DotX8 dotX8 = m_kernels && w.cols % 32 == 0 ? m_kernels->x8(w.type) : nullptr;
    const DotF32 dotF32 = m_kernels ? m_kernels->f32(w.type) : nullptr;
    if (!dotX8 && !dotF32) return matvec(m_pool, y, w, x); // the reference
    if (dotX8) {
        m_x8.resize(size_t(w.cols / 32));
        quantizeX8(x, w.cols, m_x8.data());
    }
    // At least ~64 K weights per thread: below that, waking a thread costs more than it saves.
    const int parts = int(std::max<int64_t>(1, w.rows * w.cols / 65536));
    const X8Block* xq = m_x8.data();
    m_pool.parallelFor(w.rows, [&](int64_t begin, int64_t end) {
        if (dotX8)
            for (int64_t r = begin; r < end; ++r) y[r] = dotX8(w.row(r), xq, w.cols);
        else
            for (int64_t r = begin; r < end; ++r) y[r] = dotF32(w.row(r), x, w.cols);
    }, parts);
}

} // namespace hearth::cpu
