// ThreadPool: parallelFor's fixed shares and parallelForGuided's claimed ranges cover every index
// once, keep to their grain and part limits, and a thread held up on one guided range leaves the
// rest to the others (the decode step's products rely on it on a busy machine); thousands of jobs
// back to back, with the owner and the workers put to sleep and woken, each cover every index once.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "base/thread_pool.h"
#include "check.h"

using namespace hearth;

namespace {

struct Range {
    int64_t begin, end;
    std::thread::id thread;
};

// Runs one job and returns its ranges sorted by begin (fn may run on several threads at once).
template <class Launch>
std::vector<Range> record(Launch launch) {
    std::mutex m;
    std::vector<Range> ranges;
    launch([&](int64_t b, int64_t e) {
        std::lock_guard lock(m);
        ranges.push_back({b, e, std::this_thread::get_id()});
    });
    std::sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) { return a.begin < b.begin; });
    return ranges;
}

// The ranges tile [0, count) exactly, none empty.
bool tiles(const std::vector<Range>& ranges, int64_t count) {
    int64_t next = 0;
    for (const Range& r : ranges) {
        if (r.begin != next || r.end <= r.begin) return false;
        next = r.end;
    }
    return next == count;
}

size_t threadsUsed(const std::vector<Range>& ranges) {
    std::vector<std::thread::id> ids;
    for (const Range& r : ranges)
        if (std::find(ids.begin(), ids.end(), r.thread) == ids.end()) ids.push_back(r.thread);
    return ids.size();
}

void checkGuided(ThreadPool& pool, int64_t count, int64_t grain, int maxParts) {
    const auto ranges = record([&](auto fn) { pool.parallelForGuided(count, grain, fn, maxParts); });
    CHECK_MSG(tiles(ranges, count), "guided count " << count << " grain " << grain << " threads " << pool.size());
    const int parts = int(std::min<int64_t>({maxParts > 0 ? maxParts : pool.size(), pool.size(), count}));
    CHECK(threadsUsed(ranges) <= size_t(std::max(parts, 1)));
    // A part is count/parts rows cut at whole grains; its thread claims half of what is left of it.
    const int64_t longest = (count / std::max(parts, 1) + grain) / 2 + grain;
    for (size_t i = 0; i < ranges.size(); ++i) {
        CHECK_MSG(ranges[i].begin % grain == 0, "range at " << ranges[i].begin << ", grain " << grain);
        // Whole grains but the last, and at most half a part when the job is split.
        if (ranges[i].end != count) CHECK((ranges[i].end - ranges[i].begin) % grain == 0);
        if (parts > 1)
            CHECK_MSG(ranges[i].end - ranges[i].begin <= longest,
                      "range " << ranges[i].begin << ".." << ranges[i].end << " of " << count << ", parts " << parts);
    }
    if (parts > 1 && count >= 8 * grain * parts) // a large job is cut into more ranges than threads
        CHECK(ranges.size() > size_t(parts));
}

} // namespace

int main() {
    test::announce("thread_pool", "cpu");
    for (int threads : {1, 2, 3, 4}) {
        ThreadPool pool(threads);
        CHECK(pool.size() == threads);
        for (int64_t count : {0, 1, 5, 17, 1000, 100003}) {
            for (int maxParts : {0, 1, 2}) {
                // Fixed shares: one contiguous range per part, then guided, then fixed again (the
                // pool's mode must not leak from one job into the next).
                for (int round = 0; round < 2; ++round) {
                    const auto fixed = record([&](auto fn) { pool.parallelFor(count, fn, maxParts); });
                    CHECK(tiles(fixed, count));
                    const int64_t parts = std::min<int64_t>({maxParts > 0 ? maxParts : threads, threads, count});
                    CHECK(int64_t(fixed.size()) == parts);
                    for (int64_t grain : {1, 16, 64}) checkGuided(pool, count, grain, maxParts);
                }
            }
        }
    }

    // A thread stuck on its first guided range: the other threads finish everything else meanwhile
    // (with fixed halves they could not), and the stuck range is only a share of what was left.
    {
        ThreadPool pool(2);
        const int64_t count = 4096, grain = 16;
        std::mutex m;
        std::condition_variable cv;
        int64_t doneOthers = 0;
        bool sawAllOthers = false;
        int64_t firstLength = 0;
        const auto ranges = record([&](auto rec) {
            pool.parallelForGuided(count, grain, [&](int64_t b, int64_t e) {
                rec(b, e);
                std::unique_lock lock(m);
                if (b == 0) {
                    firstLength = e - b;
                    sawAllOthers = cv.wait_for(lock, std::chrono::seconds(20), [&] { return doneOthers == count - e; });
                } else {
                    doneOthers += e - b;
                    cv.notify_all();
                }
            });
        });
        CHECK(tiles(ranges, count));
        CHECK_MSG(sawAllOthers, "the rest was not finished while the first range was held");
        CHECK_MSG(firstLength <= count / 4 + grain, "first range " << firstLength << " of " << count);
        const std::thread::id stuck = ranges.front().thread;
        for (size_t i = 1; i < ranges.size(); ++i) CHECK(ranges[i].thread != stuck);
    }

    // Back to back, sleeping and waking: 20000 jobs of both kinds on 4 threads cover every index
    // once each time; every 500th job the last part holds its thread (a worker) for 3 ms, so the
    // owner's polling runs out and it sleeps until woken, and every 2000th job comes after a 3 ms
    // pause, so the workers have gone to sleep and must be woken.
    {
        ThreadPool pool(4);
        std::vector<std::atomic<int>> hits(997);
        bool exact = true;
        for (int job = 0; job < 20000 && exact; ++job) {
            if (job % 2000 == 1999) std::this_thread::sleep_for(std::chrono::milliseconds(3));
            const int64_t count = 1 + job % int64_t(hits.size());
            for (int64_t i = 0; i < count; ++i) hits[size_t(i)].store(0, std::memory_order_relaxed);
            auto fn = [&](int64_t b, int64_t e) {
                if (job % 500 == 250 && e == count) std::this_thread::sleep_for(std::chrono::milliseconds(3));
                for (int64_t i = b; i < e; ++i) hits[size_t(i)].fetch_add(1, std::memory_order_relaxed);
            };
            if (job % 2) pool.parallelForGuided(count, 1 + job % 7, fn);
            else pool.parallelFor(count, fn);
            for (int64_t i = 0; i < count; ++i) exact = exact && hits[size_t(i)].load(std::memory_order_relaxed) == 1;
            CHECK_MSG(exact, "job " << job << " (count " << count << ") did not cover every index exactly once");
        }
    }
    return test::finish();
}
