// What the server tests share: an HTTP client on real sockets (cpp-httplib's), the data fields
// of a Server-Sent Events stream, stories260K behind an ApiServer on an ephemeral loopback port,
// and `hearth-cli serve` as a child process for the script clients (curl, the openai package).
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "hearth/model.h"
#include "server/api_server.h"

namespace hearth::test {

using Json = nlohmann::json;

struct HttpReply {
    int status = -1; // -1: no answer (connection failed or was closed)
    std::string body;
    httplib::Headers headers;
    std::string header(const std::string& name) const;
    Json json() const; // null when the body is not JSON
};

class HttpClient {
public:
    explicit HttpClient(int port, std::string apiKey = {});
    HttpReply get(const std::string& path, const httplib::Headers& extra = {});
    HttpReply post(const std::string& path, const std::string& body, const std::string& contentType = "application/json",
                   const httplib::Headers& extra = {});
    HttpReply options(const std::string& path, const httplib::Headers& extra = {});
    // POSTs and hands each piece of the body to `onData` as it arrives; false closes the
    // connection there (the reply then has what came before).
    HttpReply postStreaming(const std::string& path, const std::string& body,
                            const std::function<bool(std::string_view)>& onData);
    // Gives up waiting for an answer after `ms` (and closes the connection).
    void setReadTimeoutMs(int ms);

private:
    HttpReply send(httplib::Request request);
    httplib::Headers headers(const httplib::Headers& extra) const;

    httplib::Client m_client;
    std::string m_apiKey;
};

// The "data:" fields of a Server-Sent Events body, in order.
std::vector<std::string> sseData(const std::string& body);

// A chat request body: one user message and these extra fields.
std::string chatBody(const std::string& user, const Json& extra = Json::object());

// stories260K-f32.gguf, loaded once for the test (skips with 77 when the test data is missing).
const Model& storiesModel();

// An ApiServer on 127.0.0.1 and a port the system picks, over its own LocalGenerator on `model`.
struct TestServer {
    TestServer(const Model& model, server::ServerOptions options, int32_t contextLength = 256,
               std::string chatTemplate = {});
    ~TestServer();
    std::unique_ptr<server::LocalGenerator> generator;
    std::unique_ptr<server::ApiServer> api;
    int port() const { return api->port(); }
};

// `hearth-cli serve ARGS --port 0` as a child process; url() once it printed that it listens.
class ServeProcess {
public:
    // `env`: extra "NAME=value" entries. Fails a check (and url() is empty) when it does not start.
    ServeProcess(const std::vector<std::string>& args, const std::vector<std::string>& env = {});
    ~ServeProcess(); // SIGTERM, then waits
    const std::string& url() const { return m_url; }
    const std::string& modelId() const { return m_model; }
    // Sends SIGTERM and returns the exit code (-1: killed by a signal or not started).
    int stop();

private:
    pid_t m_pid = -1;
    int m_exit = -1;
    std::string m_url, m_model;
};

// Runs a shell command with `env` ("NAME=value") added; returns its exit code (-1 on a signal).
int runCommand(const std::string& command, const std::vector<std::string>& env = {});

} // namespace hearth::test
