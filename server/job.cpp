#include "server/job.h"

namespace hearth::server {

void Job::post(JobEvent event) {
    {
        std::lock_guard lock(m_mutex);
        if (m_ended) return;
        m_ended = event.ends();
        if (m_ended) m_ending = event;
        m_events.push_back(std::move(event));
    }
    m_wake.notify_all();
}

std::vector<JobEvent> Job::take(std::chrono::milliseconds timeout) {
    std::unique_lock lock(m_mutex);
    m_wake.wait_for(lock, timeout, [this] { return !m_events.empty(); });
    std::vector<JobEvent> out(std::make_move_iterator(m_events.begin()), std::make_move_iterator(m_events.end()));
    m_events.clear();
    return out;
}

bool Job::ended() const {
    std::lock_guard lock(m_mutex);
    return m_ended;
}

JobEvent Job::ending() const {
    std::lock_guard lock(m_mutex);
    return m_ending;
}

} // namespace hearth::server
