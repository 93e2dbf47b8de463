#include "base/thread_pool.h"

#include <algorithm>

namespace hearth {

ThreadPool::ThreadPool(int threads) {
    if (threads <= 0) threads = std::max(1u, std::thread::hardware_concurrency());
    for (int i = 1; i < threads; ++i) m_workers.emplace_back([this, i] { workerLoop(i); });
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    for (auto& t : m_workers) t.join();
}

void ThreadPool::runShare(int index) {
    if (index >= m_parts) return;
    const int64_t n = m_parts;
    const int64_t begin = m_count * index / n;
    const int64_t end = m_count * (index + 1) / n;
    if (begin < end) (*m_job)(begin, end);
}

void ThreadPool::workerLoop(int index) {
    uint64_t seen = 0;
    for (;;) {
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [&] { return m_stop || m_generation != seen; });
            if (m_stop) return;
            seen = m_generation;
        }
        runShare(index);
        {
            std::lock_guard lock(m_mutex);
            if (--m_pending == 0) m_done.notify_one();
        }
    }
}

void ThreadPool::parallelFor(int64_t count, const std::function<void(int64_t, int64_t)>& fn, int maxParts) {
    if (count <= 0) return;
    const int parts = int(std::min<int64_t>({maxParts > 0 ? maxParts : size(), size(), count}));
    if (parts <= 1) {
        fn(0, count);
        return;
    }
    {
        std::lock_guard lock(m_mutex);
        m_job = &fn;
        m_count = count;
        m_parts = parts;
        m_pending = int(m_workers.size());
        ++m_generation;
    }
    m_wake.notify_all();
    runShare(0);
    std::unique_lock lock(m_mutex);
    m_done.wait(lock, [&] { return m_pending == 0; });
    m_job = nullptr;
}

} // namespace hearth
