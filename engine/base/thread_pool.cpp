#include "base/thread_pool.h"

#include <algorithm>
#include <chrono>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace hearth {
namespace {

// How long a thread polls before it sleeps: longer than the gaps of a decode step (between its
// jobs, and between its tokens: sampling, detokenizing, ~35 µs), short enough that an idle pool
// sleeps at once. In time, not in pause instructions, whose length differs by an order of
// magnitude between CPU generations: 2000 of them let the 16-core host's workers sleep about twice
// a token, and a futex wake there costs ~20 µs (docs/PERFORMANCE.md, 2026-12-03 eleventh session).
constexpr std::chrono::microseconds kSpin{300};
// Parts after its own that a thread done early takes grains from: enough for one slow thread's
// neighbours to cover it, few enough that the end of a job reads no more than two foreign lines.
constexpr int kStealParts = 2;

void relax() {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#else
    std::this_thread::yield();
#endif
}

// Polls `done` for up to kSpin; whether it came true.
template <class Done>
bool spinUntil(const Done& done) {
    if (done()) return true;
    const auto deadline = std::chrono::steady_clock::now() + kSpin;
    for (;;) {
        for (int i = 0; i < 32; ++i) {
            relax();
            if (done()) return true;
        }
        if (std::chrono::steady_clock::now() >= deadline) return false;
    }
}

} // namespace

ThreadPool::ThreadPool(int threads) {
    if (threads <= 0) threads = std::max(1u, std::thread::hardware_concurrency());
    m_finished = std::make_unique<Finished[]>(size_t(threads));
    m_partRanges = std::make_unique<PartRange[]>(size_t(threads));
    for (int i = 1; i < threads; ++i) m_workers.emplace_back([this, i] { workerLoop(i); });
}

bool ThreadPool::allFinished(uint64_t generation) const {
    for (size_t i = 1; i <= m_workers.size(); ++i)
        if (m_finished[i].generation.load(std::memory_order_acquire) != generation) return false;
    return true;
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    for (auto& t : m_workers) t.join();
}

// The owner takes half of what is left of its part (whole grains), a helper one grain at a time.
void ThreadPool::claimRanges(PartRange& part, bool own) {
    for (;;) {
        const int64_t left = part.end - part.next.load(std::memory_order_relaxed);
        if (left <= 0) return;
        const int64_t size = own ? std::max<int64_t>(1, (left / 2 + m_grain - 1) / m_grain) * m_grain : m_grain;
        const int64_t begin = part.next.fetch_add(size, std::memory_order_relaxed);
        if (begin >= part.end) return;
        (*m_job)(begin, std::min(begin + size, part.end));
    }
}

void ThreadPool::runShare(int index) {
    if (index >= m_parts) return;
    if (m_grain > 0) {
        claimRanges(m_partRanges[size_t(index)], true);
        for (int i = 1; i <= std::min(kStealParts, m_parts - 1); ++i)
            claimRanges(m_partRanges[size_t((index + i) % m_parts)], false);
        return;
    }
    const int64_t n = m_parts;
    const int64_t begin = m_count * index / n;
    const int64_t end = m_count * (index + 1) / n;
    if (begin < end) (*m_job)(begin, end);
}

void ThreadPool::workerLoop(int index) {
    uint64_t seen = 0;
    for (;;) {
        uint64_t now = seen;
        spinUntil([&] { return (now = m_generation.load(std::memory_order_acquire)) != seen; });
        // A job seen while polling starts without the mutex: the acquire load above pairs with
        // the owner's release, and taking the lock here made every worker queue behind the
        // others at each job (on 16 threads that cost more than a small product's work).
        if (now == seen) {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [&] { return m_stop || m_generation.load(std::memory_order_acquire) != seen; });
            if (m_stop) return;
            now = m_generation.load(std::memory_order_acquire);
        }
        seen = now;
        runShare(index);
        // Published, then the owner's flag read (both sequentially consistent, as the owner's
        // flag write and its reads of these): either this worker sees the owner asleep and wakes
        // it, or the owner sees this worker finished before it sleeps.
        m_finished[size_t(index)].generation.store(now, std::memory_order_seq_cst);
        if (m_ownerWaiting.load(std::memory_order_seq_cst)) {
            std::lock_guard lock(m_mutex);
            m_done.notify_one();
        }
    }
}

void ThreadPool::run(int64_t count, const std::function<void(int64_t, int64_t)>& fn, int maxParts, int64_t grain) {
    if (count <= 0) return;
    const int parts = int(std::min<int64_t>({maxParts > 0 ? maxParts : size(), size(), count}));
    if (parts <= 1) {
        fn(0, count);
        return;
    }
    {
        std::lock_guard lock(m_mutex); // sleeping workers re-check the generation under it
        m_job = &fn;
        m_count = count;
        m_parts = parts;
        m_grain = grain;
        if (grain > 0) // parts start at multiples of the grain; published by the generation's release
            for (int i = 0; i < parts; ++i) {
                PartRange& part = m_partRanges[size_t(i)];
                part.next.store(count * i / parts / grain * grain, std::memory_order_relaxed);
                part.end = i + 1 == parts ? count : count * (i + 1) / parts / grain * grain;
            }
        m_generation.fetch_add(1, std::memory_order_release);
    }
    const uint64_t generation = m_generation.load(std::memory_order_relaxed);
    m_wake.notify_all();
    runShare(0);
    if (!spinUntil([&] { return allFinished(generation); })) {
        std::unique_lock lock(m_mutex);
        m_ownerWaiting.store(true, std::memory_order_seq_cst);
        std::atomic_thread_fence(std::memory_order_seq_cst); // the flag before the reads of the workers' generations
        m_done.wait(lock, [&] { return allFinished(generation); });
        m_ownerWaiting.store(false, std::memory_order_relaxed);
    }
    m_job = nullptr;
}

} // namespace hearth
