// The bounded queue in front of the model: one request runs at a time (batch 1) on the queue's
// own thread, through the Generator; at most `maxWaiting` more wait their turn, and any beyond
// that are refused at once (the HTTP layer answers 503 with Retry-After). Qt-free.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "server/generator.h"
#include "server/job.h"

namespace hearth::server {

class RequestQueue {
public:
    // `onEnded` (may be empty) is called on the queue's thread after each job that ran.
    RequestQueue(Generator& generator, size_t maxWaiting, std::function<void(const Job&)> onEnded = {});
    ~RequestQueue(); // stop()
    RequestQueue(const RequestQueue&) = delete;
    RequestQueue& operator=(const RequestQueue&) = delete;

    enum class Admission { Queued, Full, Stopped };
    // Any thread. Queued: the job will get an ending event.
    Admission submit(std::shared_ptr<Job> job);
    // Cancels the running job and fails the waiting ones, then joins the thread. Any thread but
    // the queue's own; idempotent.
    void stop();
    // Cancels the job that runs now (it ends at its next token); the waiting ones go on. Any thread.
    void cancelRunning();
    // Jobs waiting (not the running one). Any thread.
    size_t waiting() const;

private:
    void run();

    Generator& m_generator;
    const size_t m_maxWaiting;
    const std::function<void(const Job&)> m_onEnded;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<std::shared_ptr<Job>> m_waiting;
    std::shared_ptr<Job> m_running;
    bool m_stopping = false;
    std::thread m_thread;
};

} // namespace hearth::server
