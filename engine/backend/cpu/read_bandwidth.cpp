// measureCpuReadBandwidthGBps (hearth/devices.h): the CPU side of the decode bound. A plain
// multi-threaded read, as a decode step is: every thread streams its own slice once per pass.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <new>
#include <thread>
#include <unistd.h>
#include <vector>

#include "base/thread_pool.h"
#include "hearth/devices.h"

namespace hearth {
namespace {

constexpr size_t kMinBufferBytes = 256ull << 20;
constexpr int kPasses = 4;

// Twice the last-level cache, at least 256 MiB, at most an eighth of the memory: a buffer the cache
// holds part of between passes measures the cache (the GPU machine's host reports 300 MB of L3,
// a development VM 508 MB, and 256 MiB read 86-133 GB/s there from pass to pass).
size_t bufferBytes() {
    size_t bytes = kMinBufferBytes;
#if defined(_SC_LEVEL3_CACHE_SIZE)
    const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (l3 > 0) bytes = std::max(bytes, 2 * size_t(l3));
#endif
    const long pages = sysconf(_SC_PHYS_PAGES), pageBytes = sysconf(_SC_PAGESIZE);
    if (pages > 0 && pageBytes > 0) bytes = std::min(bytes, std::max(kMinBufferBytes, size_t(pages) * size_t(pageBytes) / 8));
    return bytes;
}

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
    const size_t bytes = bufferBytes();
    try {
        buffer.assign(bytes / sizeof(uint64_t), 1); // written once: the pages exist
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
        if (seconds > 0) best = std::max(best, double(bytes) / seconds / 1e9);
    }
    // The sums feed nothing else; reading them keeps the compiler from dropping the loads.
    volatile uint64_t keep = 0;
    for (uint64_t s : sinks) keep = keep + s;
    return best;
}

} // namespace hearth
