// One accepted request on its way through the queue: what was asked, a cancel flag the engine
// checks between tokens, and the events the generating thread posts for the HTTP thread that
// answers (started, pieces of text, finished or failed). Qt-free. Threads: any; events are
// posted by one thread and taken by another.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "server/api_error.h"
#include "server/api_request.h"
#include "server/openai_format.h"

namespace hearth::server {

struct JobEvent {
    enum class Kind {
        Started,   // the prompt fits and is being processed (usage.promptTokens)
        Reasoning, // a piece of thinking (text)
        Content,   // a piece of the answer (text)
        Finished,  // the end (finish, usage); nothing follows
        Failed,    // the end with an error; nothing follows
    };
    Kind kind = Kind::Content;
    std::string text;
    Usage usage;
    const char* finish = "stop";
    ApiError error;

    bool ends() const { return kind == Kind::Finished || kind == Kind::Failed; }
};

class Job {
public:
    Job(ApiRequest request, ResponseHead head)
        : m_request(std::move(request)), m_head(std::move(head)), m_start(std::chrono::steady_clock::now()) {}

    const ApiRequest& request() const { return m_request; }
    const ResponseHead& head() const { return m_head; }
    std::chrono::steady_clock::time_point start() const { return m_start; }
    // The flag GenerateParams::cancel points at.
    const std::atomic<bool>& cancelFlag() const { return m_cancel; }
    void cancel() { m_cancel.store(true); }
    bool cancelled() const { return m_cancel.load(); }

    // From the generating thread. Events after an ending one are dropped.
    void post(JobEvent event);
    // Waits up to `timeout` for events and returns those that arrived (empty: none in time).
    std::vector<JobEvent> take(std::chrono::milliseconds timeout);
    // Whether an ending event was posted.
    bool ended() const;
    // The ending event once there is one (what the log records).
    JobEvent ending() const;

private:
    ApiRequest m_request;
    ResponseHead m_head;
    std::chrono::steady_clock::time_point m_start;
    JobEvent m_ending;
    std::atomic<bool> m_cancel{false};
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<JobEvent> m_events;
    bool m_ended = false;
};

} // namespace hearth::server
