#include "server/request_queue.h"

#include "server/job_runner.h"

namespace hearth::server {
namespace {

JobEvent unavailable(std::string message, const char* code) {
    JobEvent e;
    e.kind = JobEvent::Kind::Failed;
    e.error = {503, "server_error", std::move(message), {}, code};
    return e;
}

} // namespace

RequestQueue::RequestQueue(Generator& generator, size_t maxWaiting, std::function<void(const Job&)> onEnded)
    : m_generator(generator), m_maxWaiting(maxWaiting), m_onEnded(std::move(onEnded)), m_thread([this] { run(); }) {}

RequestQueue::~RequestQueue() { stop(); }

RequestQueue::Admission RequestQueue::submit(std::shared_ptr<Job> job) {
    {
        std::lock_guard lock(m_mutex);
        if (m_stopping) return Admission::Stopped;
        if (m_waiting.size() >= m_maxWaiting) return Admission::Full;
        m_waiting.push_back(std::move(job));
    }
    m_wake.notify_one();
    return Admission::Queued;
}

void RequestQueue::stop() {
    std::deque<std::shared_ptr<Job>> dropped;
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
        dropped.swap(m_waiting);
        if (m_running) m_running->cancel();
    }
    m_wake.notify_one();
    for (const auto& job : dropped) job->post(unavailable("the server is shutting down", "shutting_down"));
    if (m_thread.joinable() && m_thread.get_id() != std::this_thread::get_id()) m_thread.join();
}

void RequestQueue::cancelRunning() {
    std::lock_guard lock(m_mutex);
    if (m_running) m_running->cancel();
}

size_t RequestQueue::waiting() const {
    std::lock_guard lock(m_mutex);
    return m_waiting.size();
}

void RequestQueue::run() {
    for (;;) {
        std::shared_ptr<Job> job;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [this] { return m_stopping || !m_waiting.empty(); });
            if (m_stopping) return;
            job = m_running = std::move(m_waiting.front());
            m_waiting.pop_front();
        }
        const Status status = m_generator.withModel([&](const Model& model, ModelSlot& slot) { runJob(model, slot, *job); });
        if (!status.isOk()) job->post(unavailable(status.message(), "model_unavailable"));
        if (m_onEnded) m_onEnded(*job);
        std::lock_guard lock(m_mutex);
        m_running.reset();
    }
}

} // namespace hearth::server
