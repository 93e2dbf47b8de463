// Hearth's OpenAI-compatible HTTP server: GET /health, GET /v1/models, POST /v1/chat/completions
// and /v1/completions (streaming as Server-Sent Events), over a Generator, with cpp-httplib doing
// the HTTP. Safe by default: loopback only unless an API key is set, bodies size-limited, every
// bad request a 4xx with an OpenAI error object, CORS off unless asked for. Qt-free.
// Threading: start/stop from one thread; the callbacks come from the server's threads.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "hearth/status.h"
#include "server/generator.h"
#include "server/openai_format.h"

namespace hearth::server {

// One generation as it ended, for a log.
struct GenerationRecord {
    std::string id;                  // the response's id
    ApiRequest::Kind kind = ApiRequest::Kind::Chat;
    bool stream = false;
    int status = 200;                // 200, or the error's status
    Usage usage;
    std::string finish;              // "stop", "length", "cancelled" (the client went away); empty on error
    std::string error;               // the error's message
    double seconds = 0;              // from acceptance to the end, waiting in the queue included
};

struct ServerOptions {
    std::string host = "127.0.0.1";
    int port = 8080;                   // 0: a free port the system picks (port() says which)
    std::string apiKey;                // empty: none, and then only a loopback host is allowed
    bool cors = false;                 // let web pages of any origin call the API (Access-Control-*)
    size_t maxWaiting = 8;             // requests that may wait while one runs; more get a 503
    size_t maxBodyBytes = 8u << 20;    // larger request bodies get a 413
    std::function<void(const GenerationRecord&)> onGeneration; // each generation's end
    std::function<void(const std::string&)> onAccess;          // "POST /v1/completions 400" per request
};

class ApiServer {
public:
    ApiServer(Generator& generator, ServerOptions options);
    ~ApiServer(); // stop()
    ApiServer(const ApiServer&) = delete;
    ApiServer& operator=(const ApiServer&) = delete;

    // Binds and serves on threads of its own. Errors: InvalidArgument (a host other than
    // loopback without an API key, a key under 8 characters, a port outside 0..65535),
    // FailedPrecondition (the address is in use or cannot be bound, naming it).
    Status start();
    // Cancels the running generation, refuses the waiting ones, closes the socket and waits for
    // the server's threads. Idempotent.
    void stop();
    // Cancels the generation that runs now (it ends at its next token, finish "cancelled"); the
    // waiting requests go on (the app's Stop button). The thread that starts and stops it.
    void cancelRunning();
    bool running() const;
    int port() const;          // the bound port (after start)
    size_t waiting() const;    // requests waiting while one runs
    std::string url() const;   // "http://127.0.0.1:8080"

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace hearth::server
