// A fixed pool of worker threads for the CPU backend. Work is split into contiguous index
// ranges (rows, heads), never across a reduction, so results do not depend on the thread count.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace hearth {

class ThreadPool {
public:
    explicit ThreadPool(int threads); // threads <= 0: hardware concurrency
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int size() const { return int(m_workers.size()) + 1; }
    // Calls fn(begin, end) on disjoint ranges covering [0, count); returns when all are done.
    // At most `maxParts` ranges (<= 0: one per thread), so that small jobs are not spread over
    // threads whose wake-up costs more than the work. Owner thread only (not re-entrant).
    void parallelFor(int64_t count, const std::function<void(int64_t, int64_t)>& fn, int maxParts = 0) {
        run(count, fn, maxParts, 0);
    }
    // Like parallelFor, but each thread claims its part in ranges as it goes (a multiple of
    // `grain`, the last range excepted, each starting at a multiple of it; half of what is left of
    // the part each time), and a thread done with its part takes single grains from what is left
    // of the next parts, so a thread that runs slower (a busy core, a virtual CPU whose host is busy)
    // does less instead of holding the others up. fn may run several times on a thread.
    void parallelForGuided(int64_t count, int64_t grain, const std::function<void(int64_t, int64_t)>& fn,
                           int maxParts = 0) {
        run(count, fn, maxParts, std::max<int64_t>(grain, 1));
    }

private:
    void run(int64_t count, const std::function<void(int64_t, int64_t)>& fn, int maxParts, int64_t grain);
    void workerLoop(int index);
    void runShare(int index);

    std::vector<std::thread> m_workers;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_done;
    const std::function<void(int64_t, int64_t)>* m_job = nullptr;
    int64_t m_count = 0;
    int m_parts = 1;
    int64_t m_grain = 0; // > 0: parallelForGuided's ranges, claimed through m_partRanges
    // Each part's next unclaimed row on its own cache line: its thread claims from it without
    // contention, and only a thread that has finished its own part touches another's (one shared
    // counter cost 10-18 µs a job at 16 threads, docs/PERFORMANCE.md).
    struct alignas(64) PartRange {
        std::atomic<int64_t> next{0};
        int64_t end = 0;
    };
    std::unique_ptr<PartRange[]> m_partRanges;
    void claimRanges(PartRange& part, bool own);
    // Jobs come back to back in a decode step (one per matrix-vector product, ~100 a token):
    // workers and the owner poll these briefly before sleeping, so a job starts and ends without
    // a futex round trip each time.
    std::atomic<uint64_t> m_generation{0};
    // Each worker reports the generation it finished on its own cache line: on 16 threads one
    // shared counter took 15 read-modify-writes of the same line, one after another, every job.
    struct alignas(64) Finished {
        std::atomic<uint64_t> generation{0};
    };
    std::unique_ptr<Finished[]> m_finished;
    bool allFinished(uint64_t generation) const;
    // Set while the owner sleeps for the workers (after polling them in vain); a worker that
    // finishes then wakes it (see run).
    std::atomic<bool> m_ownerWaiting{false};
    bool m_stop = false;
};

} // namespace hearth
