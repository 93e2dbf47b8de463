// timeCpuMatVec (hearth/devices.h): one of the CPU backend's matrix products, timed alone, so a
// kernel's speed can be set beside the read bandwidth and beside other engines' kernels shape by
// shape; timeCpuPoolJobs: what the thread pool costs a product before any weight is read.
#include <algorithm>
#include <chrono>
#include <new>
#include <random>
#include <vector>

#include "backend/cpu/simd/fast_matvec.h"
#include "base/thread_pool.h"
#include "hearth/devices.h"
#include "quant/blocks.h"
#include "quant/quantize.h"
#include "quant/types.h"

namespace hearth {
namespace {

constexpr int64_t kDistinctRows = 64; // random rows, repeated down the matrix (quantizing all would take seconds)

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

} // namespace

Result<CpuMatVecTiming> timeCpuMatVec(const std::string& typeName, int64_t rows, int64_t cols, int tokens,
                                      int threads, bool fastKernels, int reps) {
    const std::optional<DType> type = parseDType(typeName);
    if (!type || !isQuantizable(*type)) // the types the CPU computes with, and can make random rows of
        return invalidArgument("the CPU kernels do not take type '" + typeName + "'");
    if (rows < 1 || rows > (1 << 24) || cols < 1 || cols > (1 << 24) || tokens < 1 || tokens > 4096 || reps < 1 ||
        threads < 0)
        return invalidArgument("rows and cols must be 1 to 16777216, tokens 1 to 4096, reps at least 1");
    const std::optional<uint64_t> rowBytes = hearth::rowBytes(*type, uint64_t(cols));
    if (!rowBytes) return invalidArgument(std::string(dtypeName(*type)) + " rows need a multiple of its block");

    std::vector<uint8_t> weights;
    std::vector<float> x(size_t(cols) * size_t(tokens)), y(size_t(rows) * size_t(tokens));
    try {
        weights.resize(*rowBytes * uint64_t(rows));
    } catch (const std::bad_alloc&) {
        return outOfMemory("the matrix needs " + std::to_string((*rowBytes * uint64_t(rows)) >> 20) + " MiB");
    }
    std::mt19937 rng(1);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> values(static_cast<size_t>(cols));
    for (int64_t r = 0; r < std::min(rows, kDistinctRows); ++r) {
        for (float& v : values) v = 0.02f * normal(rng);
        quantizeRow(*type, values.data(), weights.data() + uint64_t(r) * *rowBytes, cols);
    }
    for (int64_t r = kDistinctRows; r < rows; ++r)
        std::copy_n(weights.data() + uint64_t(r % kDistinctRows) * *rowBytes, *rowBytes,
                    weights.data() + uint64_t(r) * *rowBytes);
    for (float& v : x) v = normal(rng);

    WeightMatrix w;
    w.name = "timed";
    w.type = *type;
    w.rows = rows;
    w.cols = cols;
    w.rowBytes = *rowBytes;
    w.data = weights.data();
    ThreadPool pool(threads);
    cpu::MatVec matvec(pool, fastKernels);
    matvec.reserve(cols, tokens);
    std::vector<double> times;
    for (int run = -2; run < reps; ++run) { // two warm-up runs
        const auto start = std::chrono::steady_clock::now();
        matvec.run(y.data(), rows, w, x.data(), cols, tokens);
        const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
        if (run >= 0) times.push_back(us);
    }
    CpuMatVecTiming t;
    t.medianMicroseconds = median(times);
    t.bestMicroseconds = *std::min_element(times.begin(), times.end());
    t.weightBytes = *rowBytes * uint64_t(rows);
    return t;
}

Result<CpuPoolTiming> timeCpuPoolJobs(int threads, int reps) {
    if (reps < 1 || threads < 0) return invalidArgument("reps must be at least 1 and threads at least 0");
    ThreadPool pool(threads);
    constexpr int64_t kRows = 768, kGrain = 16; // the claimed job: a small-100m product's rows
    // Each range writes its length to its own line: work the compiler cannot drop, and no sharing.
    struct alignas(64) Slot {
        int64_t value = 0;
    };
    std::vector<Slot> slots(size_t(std::max<int64_t>(pool.size(), kRows / kGrain)));
    std::vector<double> fixed, claimed;
    for (int run = -2; run < reps; ++run) { // two warm-up jobs of each kind
        auto start = std::chrono::steady_clock::now();
        pool.parallelFor(pool.size(), [&](int64_t begin, int64_t end) { slots[size_t(begin)].value += end - begin; });
        const double fixedUs = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
        start = std::chrono::steady_clock::now();
        pool.parallelForGuided(kRows, kGrain,
                               [&](int64_t begin, int64_t end) { slots[size_t(begin / kGrain)].value += end - begin; });
        const double claimedUs = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
        if (run >= 0) fixed.push_back(fixedUs), claimed.push_back(claimedUs);
    }
    return CpuPoolTiming{median(fixed), median(claimed)};
}

} // namespace hearth
