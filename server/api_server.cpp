#include "server/api_server.h"

#include <sys/socket.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "server/access.h"
#include "server/response_stream.h"
#include "server/routes.h"

namespace hearth::server {
namespace {

// What the server says for the statuses cpp-httplib answers itself (no route, body too large,
// a request it cannot parse), in OpenAI's shape.
ApiError libraryError(int status, size_t maxBodyBytes) {
    switch (status) {
    case 404: return {404, "invalid_request_error", "no such endpoint", {}, "not_found"};
    case 413:
        return {413, "invalid_request_error",
                "the request body is too large: at most " + std::to_string(maxBodyBytes) + " bytes of JSON", {},
                "body_too_large"};
    default: return {status, status >= 500 ? "server_error" : "invalid_request_error", "the request was refused", {}, {}};
    }
}

// SO_REUSEADDR only: cpp-httplib's default adds SO_REUSEPORT, which would let a second server
// (ours or anyone's of the same user) share the port silently instead of failing to bind.
void socketOptions(int sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
}

GenerationRecord recordOf(const Job& job) {
    const JobEvent end = job.ending();
    GenerationRecord r;
    r.id = job.head().id;
    r.kind = job.head().kind;
    r.stream = job.request().stream;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - job.start()).count();
    if (end.kind == JobEvent::Kind::Finished) {
        r.usage = end.usage;
        r.finish = end.finish;
    } else {
        r.status = end.error.status;
        r.error = end.error.message;
    }
    return r;
}

} // namespace

struct ApiServer::Impl {
    Generator& generator;
    ServerOptions options;
    httplib::Server http;
    std::unique_ptr<RequestQueue> queue;
    std::unique_ptr<RouteContext> routes;
    std::thread listener;
    std::atomic<bool> listenerDone{false};
    int port = 0;
    bool running = false;

    Impl(Generator& g, ServerOptions o) : generator(g), options(std::move(o)) {}

    void configure() {
        const size_t threads = options.maxWaiting + 1 + 4; // the queue, and room for health and refusals
        http.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
        http.set_socket_options(socketOptions);
        http.set_payload_max_length(options.maxBodyBytes);
        http.set_keep_alive_timeout(1); // idle connections hold a thread, and stop() waits for them
        if (options.cors) http.set_default_headers({{"Access-Control-Allow-Origin", "*"}});
        const size_t maxBody = options.maxBodyBytes;
        using Outcome = httplib::Server::HandlerResponse;
        const httplib::Server::HandlerWithResponse fillError = [maxBody](const httplib::Request&, httplib::Response& res) {
            if (!res.body.empty() || res.is_chunked_content_provider_) return Outcome::Unhandled;
            sendError(res, libraryError(res.status, maxBody));
            return Outcome::Handled;
        };
        http.set_error_handler(fillError);
        http.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
            sendError(res, {500, "server_error", "internal error", {}, {}});
        });
        if (options.onAccess)
            http.set_logger([log = options.onAccess](const httplib::Request& req, const httplib::Response& res) {
                log(req.method + " " + req.path + " " + std::to_string(res.status));
            });
    }
};

ApiServer::ApiServer(Generator& generator, ServerOptions options)
    : m_impl(std::make_unique<Impl>(generator, std::move(options))) {}

ApiServer::~ApiServer() { stop(); }

Status ApiServer::start() {
    Impl& d = *m_impl;
    if (d.running) return Status::ok();
    HEARTH_TRY(checkBind(d.options.host, d.options.apiKey));
    if (d.options.port < 0 || d.options.port > 65535)
        return invalidArgument("port " + std::to_string(d.options.port) + " is outside 0..65535");
    d.configure();
    errno = 0;
    const int bound = d.options.port == 0 ? d.http.bind_to_any_port(d.options.host)
                                          : (d.http.bind_to_port(d.options.host, d.options.port) ? d.options.port : -1);
    if (bound < 0) {
        const int err = errno;
        const std::string where = d.options.host + ":" + std::to_string(d.options.port);
        return failedPrecondition(err == EADDRINUSE ? where + " is in use by another program"
                                                    : "cannot listen on " + where + (err ? std::string(": ") + std::strerror(err) : ""));
    }
    d.port = bound;
    std::function<void(const Job&)> onEnded;
    if (d.options.onGeneration) onEnded = [log = d.options.onGeneration](const Job& job) { log(recordOf(job)); };
    d.queue = std::make_unique<RequestQueue>(d.generator, d.options.maxWaiting, std::move(onEnded));
    d.routes = std::make_unique<RouteContext>(RouteContext{d.generator, *d.queue, d.options,
                                                            d.options.apiKey.empty()});
    installRoutes(d.http, *d.routes);
    d.listenerDone = false;
    d.listener = std::thread([&d] {
        d.http.listen_after_bind();
        d.listenerDone = true;
    });
    // cpp-httplib's stop() does nothing before its loop has started: wait for that, so that a
    // stop() right after this never leaves the loop running.
    while (!d.http.is_running() && !d.listenerDone) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    d.running = true;
    return Status::ok();
}

void ApiServer::stop() {
    Impl& d = *m_impl;
    if (!d.running) return;
    d.running = false;
    d.generator.interrupt();
    d.queue->stop();  // the running generation ends at its next token; waiting ones get 503
    d.http.stop();    // then the connections close and the threads are joined
    if (d.listener.joinable()) d.listener.join();
}

void ApiServer::cancelRunning() {
    if (m_impl->queue) m_impl->queue->cancelRunning();
}

bool ApiServer::running() const { return m_impl->running; }
int ApiServer::port() const { return m_impl->port; }
size_t ApiServer::waiting() const { return m_impl->queue ? m_impl->queue->waiting() : 0; }

std::string ApiServer::url() const {
    const std::string& host = m_impl->options.host;
    const bool v6 = host.find(':') != std::string::npos;
    return "http://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(m_impl->port);
}

} // namespace hearth::server
