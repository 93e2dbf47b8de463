#include "server/response_stream.h"

#include <deque>

namespace hearth::server {
namespace {

using Millis = std::chrono::milliseconds;
constexpr Millis kPoll{100}; // how often a silent generation checks that its client is still there

// Pulls the job's events for a content provider: the early ones first, then what arrives.
struct EventSource {
    std::shared_ptr<Job> job;
    std::deque<JobEvent> pending;

    std::vector<JobEvent> next() {
        if (!pending.empty()) {
            std::vector<JobEvent> out(std::make_move_iterator(pending.begin()), std::make_move_iterator(pending.end()));
            pending.clear();
            return out;
        }
        return job->take(kPoll);
    }
};

// A provider step that wrote nothing: keeps going while the client is there, else cancels.
bool stillThere(EventSource& source, httplib::DataSink& sink) {
    if (sink.is_writable()) return true;
    source.job->cancel();
    return false;
}

// stream: true. Opening chunk (chat), a chunk per piece, the finish chunk, the usage chunk when
// asked for, then [DONE]; an error after the start is an event with the error object.
struct SseWriter {
    EventSource source;
    bool opened = false;

    bool operator()(size_t, httplib::DataSink& sink) {
        const Job& job = *source.job;
        const ResponseHead& head = job.head();
        const bool usage = job.request().includeUsage;
        std::string out;
        if (!opened && head.kind == ApiRequest::Kind::Chat) out = sseEvent(openingChunk(head, usage));
        opened = true;
        const std::vector<JobEvent> events = out.empty() ? source.next() : std::vector<JobEvent>{};
        if (out.empty() && events.empty()) return stillThere(source, sink);
        bool ended = false;
        for (const JobEvent& e : events) {
            switch (e.kind) {
            case JobEvent::Kind::Reasoning:
            case JobEvent::Kind::Content:
                out += sseEvent(textChunk(head, e.text, e.kind == JobEvent::Kind::Reasoning, usage));
                break;
            case JobEvent::Kind::Finished:
                out += sseEvent(finishChunk(head, e.finish, usage));
                if (usage) out += sseEvent(usageChunk(head, e.usage));
                out += kSseDone;
                ended = true;
                break;
            case JobEvent::Kind::Failed:
                out += "data: " + errorBody(e.error) + "\n\n";
                ended = true;
                break;
            case JobEvent::Kind::Started: break;
            }
        }
        if (!out.empty() && !sink.write(out.data(), out.size())) {
            source.job->cancel();
            return false;
        }
        if (ended) sink.done();
        return true;
    }
};

// stream: false. Gathers the reply and writes it whole; a failure after the start (the status is
// sent by then) drops the connection, which clients report as an error.
struct WholeWriter {
    EventSource source;
    Usage usage;
    std::string content, reasoning;

    bool operator()(size_t, httplib::DataSink& sink) {
        const std::vector<JobEvent> events = source.next();
        for (const JobEvent& e : events) {
            if (e.kind == JobEvent::Kind::Content) content += e.text;
            if (e.kind == JobEvent::Kind::Reasoning) reasoning += e.text;
            if (e.kind == JobEvent::Kind::Failed) return false;
            if (e.kind == JobEvent::Kind::Finished) {
                const std::string body = jsonText(completionJson(source.job->head(), content, reasoning, e.finish, e.usage));
                if (!sink.write(body.data(), body.size())) return false;
                sink.done();
                return true;
            }
        }
        return stillThere(source, sink); // nothing is written until the end: look at the connection
    }
};

} // namespace

void sendError(httplib::Response& res, const ApiError& error) {
    res.status = error.status;
    res.set_content(errorBody(error), "application/json");
}

void answerWithEvents(httplib::Response& res, std::shared_ptr<Job> job, const JobEvent& started,
                      std::vector<JobEvent> early) {
    res.status = 200;
    EventSource source{job, std::deque<JobEvent>(early.begin(), early.end())};
    // The response ends (written, failed or abandoned): a generation still running has no reader.
    auto release = [job](bool) { job->cancel(); };
    if (job->request().stream) {
        res.set_header("Cache-Control", "no-cache");
        res.set_header("X-Accel-Buffering", "no"); // a proxy in front must not hold the events back
        res.set_chunked_content_provider("text/event-stream", SseWriter{std::move(source)}, release);
    } else {
        res.set_chunked_content_provider("application/json", WholeWriter{std::move(source), started.usage}, release);
    }
}

} // namespace hearth::server
