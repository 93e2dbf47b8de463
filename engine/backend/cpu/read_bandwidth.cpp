// measureCpuReadBandwidthGBps (hearth/devices.h): the CPU side of the decode bound. A plain
// multi-threaded read, as a decode step is: every thread streams its own slice once per pass.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <new>
#include <thread>
#include <vector>

#include "base/thread_pool.h"
#include "hearth/devices.h"

namespace hearth {
namespace {

constexpr size_t kBufferBytes = 256ull << 20; // well beyond any last-level cache
constexpr int kPasses = 4;

// Eight independent sums so the loop is bound by loads, not by one add chain.
uint64_t sumSlice(const uint64_t* p, size_t n) {
    uint64_t s[8] = {};
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int l = 0; l < 8; ++l) s[l] += p[i + l];
    for (; i < n; ++i) s[0] += p[i];
    return s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7];
}

} // namespace

double measureCpuReadBandwidthGBps(int threads) {
    std::vector<uint64_t> buffer;
    try {
        buffer.assign(kBufferBytes / sizeof(uint64_t), 1); // written once: the pages exist
    } catch (const std::bad_alloc&) {
        return 0.0;
    }
    ThreadPool pool(threads);
    std::vector<uint64_t> sinks(size_t(pool.size()) * 8); // one cache line per part: no sharing
    double best = 0.0;
    for (int pass = 0; pass < kPasses; ++pass) {
        const auto start = std::chrono::steady_clock::now();
        pool.parallelFor(int64_t(buffer.size()), [&](int64_t begin, int64_t end) {
            const uint64_t s = sumSlice(buffer.data() + begin, size_t(end - begin));
            sinks[size_t(begin * int64_t(pool.size()) / int64_t(buffer.size())) * 8] += s;
        });
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (seconds > 0) best = std::max(best, double(kBufferBytes) / seconds / 1e9);
    }
    // The sums feed nothing else; reading them keeps the compiler from dropping the loads.
    volatile uint64_t keep = 0;
    for (uint64_t s : sinks) keep = keep + s;
    return best;
}

} // namespace hearth
