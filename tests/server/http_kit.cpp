#include "http_kit.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "check.h"
#include "testdata.h"

namespace hearth::test {

std::string HttpReply::header(const std::string& name) const {
    const auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
}

Json HttpReply::json() const { return Json::parse(body, nullptr, false); }

HttpClient::HttpClient(int port, std::string apiKey) : m_client("127.0.0.1", port), m_apiKey(std::move(apiKey)) {
    m_client.set_read_timeout(60, 0);
}

void HttpClient::setReadTimeoutMs(int ms) { m_client.set_read_timeout(ms / 1000, (ms % 1000) * 1000); }

httplib::Headers HttpClient::headers(const httplib::Headers& extra) const {
    httplib::Headers h = extra;
    if (!m_apiKey.empty() && !h.count("Authorization")) h.emplace("Authorization", "Bearer " + m_apiKey);
    return h;
}

HttpReply HttpClient::send(httplib::Request request) {
    HttpReply reply;
    std::string streamed;
    const bool streaming = bool(request.content_receiver);
    if (!streaming)
        request.content_receiver = [&](const char* data, size_t n, uint64_t, uint64_t) {
            streamed.append(data, n);
            return true;
        };
    httplib::Response response;
    httplib::Error error = httplib::Error::Success;
    m_client.send(request, response, error);
    reply.status = response.status;
    reply.headers = response.headers;
    reply.body = streaming ? response.body : streamed;
    return reply;
}

HttpReply HttpClient::get(const std::string& path, const httplib::Headers& extra) {
    httplib::Request r;
    r.method = "GET";
    r.path = path;
    r.headers = headers(extra);
    return send(std::move(r));
}

HttpReply HttpClient::options(const std::string& path, const httplib::Headers& extra) {
    httplib::Request r;
    r.method = "OPTIONS";
    r.path = path;
    r.headers = headers(extra);
    return send(std::move(r));
}

HttpReply HttpClient::post(const std::string& path, const std::string& body, const std::string& contentType,
                           const httplib::Headers& extra) {
    httplib::Request r;
    r.method = "POST";
    r.path = path;
    r.headers = headers(extra);
    if (!contentType.empty()) r.headers.emplace("Content-Type", contentType);
    r.body = body;
    return send(std::move(r));
}

HttpReply HttpClient::postStreaming(const std::string& path, const std::string& body,
                                    const std::function<bool(std::string_view)>& onData) {
    std::string received;
    httplib::Request r;
    r.method = "POST";
    r.path = path;
    r.headers = headers({{"Content-Type", "application/json"}});
    r.body = body;
    r.content_receiver = [&](const char* data, size_t n, uint64_t, uint64_t) {
        received.append(data, n);
        return onData(std::string_view(data, n));
    };
    HttpReply reply = send(std::move(r));
    reply.body = received;
    return reply;
}

std::vector<std::string> sseData(const std::string& body) {
    std::vector<std::string> out;
    size_t at = 0;
    while (at < body.size()) {
        const size_t end = body.find("\n\n", at);
        const std::string event = body.substr(at, end == std::string::npos ? std::string::npos : end - at);
        if (event.rfind("data: ", 0) == 0) out.push_back(event.substr(6));
        if (end == std::string::npos) break;
        at = end + 2;
    }
    return out;
}

std::string chatBody(const std::string& user, const Json& extra) {
    Json body = extra;
    body["messages"] = Json::array({{{"role", "user"}, {"content", user}}});
    return body.dump();
}

const Model& storiesModel() {
    static std::unique_ptr<Model> model = [] {
        const auto path = requireTestData("models/stories260K/stories260K-f32.gguf");
        auto loaded = Model::load({.path = path.string(), .threads = 2});
        CHECK_OK(loaded);
        if (!loaded.isOk()) std::exit(finish());
        return std::move(loaded).value();
    }();
    return *model;
}

TestServer::TestServer(const Model& model, server::ServerOptions options, int32_t contextLength,
                       std::string chatTemplate) {
    options.host = "127.0.0.1";
    options.port = 0;
    generator = std::make_unique<server::LocalGenerator>(model, SessionParams{.contextLength = contextLength},
                                                         std::move(chatTemplate));
    CHECK_OK(generator->prepare());
    api = std::make_unique<server::ApiServer>(*generator, std::move(options));
    const Status started = api->start();
    CHECK_OK(started);
    if (!started.isOk()) std::exit(finish());
}

TestServer::~TestServer() { api->stop(); }

namespace {

// The first line the child prints, within `seconds`.
std::string readLine(int fd, int seconds) {
    std::string line;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (std::chrono::steady_clock::now() < deadline) {
        pollfd p{fd, POLLIN, 0};
        if (poll(&p, 1, 200) <= 0) continue;
        char c = 0;
        if (read(fd, &c, 1) != 1) break;
        if (c == '\n') return line;
        line += c;
    }
    return {};
}

} // namespace

ServeProcess::ServeProcess(const std::vector<std::string>& args, const std::vector<std::string>& env) {
    const char* exe = std::getenv("HEARTH_CLI");
    if (!exe) skipTest("HEARTH_CLI is not set (run through ctest)");
    int out[2];
    CHECK(pipe(out) == 0);
    m_pid = fork();
    if (m_pid == 0) {
        dup2(out[1], STDOUT_FILENO);
        close(out[0]);
        close(out[1]);
        for (const std::string& e : env) putenv(const_cast<char*>(e.c_str()));
        std::vector<std::string> all = {exe, "serve"};
        all.insert(all.end(), args.begin(), args.end());
        all.insert(all.end(), {"--port", "0"});
        std::vector<char*> argv;
        for (std::string& a : all) argv.push_back(a.data());
        argv.push_back(nullptr);
        execv(exe, argv.data());
        _exit(127);
    }
    close(out[1]);
    const std::string line = readLine(out[0], 120);
    close(out[0]);
    const Json listening = Json::parse(line, nullptr, false);
    CHECK_MSG(listening.is_object() && listening.contains("url"), "hearth-cli serve printed '" << line << "'");
    if (listening.is_object() && listening.contains("url")) {
        m_url = listening["url"].get<std::string>();
        m_model = listening.value("model", "");
    }
}

ServeProcess::~ServeProcess() { stop(); }

int ServeProcess::stop() {
    if (m_pid <= 0) return m_exit;
    kill(m_pid, SIGTERM);
    int status = 0;
    for (int i = 0; i < 200 && waitpid(m_pid, &status, WNOHANG) == 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (waitpid(m_pid, &status, WNOHANG) == 0) { // still there after 10 s: a failure of its own
        CHECK_MSG(false, "hearth-cli serve did not stop on SIGTERM");
        kill(m_pid, SIGKILL);
        waitpid(m_pid, &status, 0);
    }
    m_exit = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    m_pid = -1;
    return m_exit;
}

int runCommand(const std::string& command, const std::vector<std::string>& env) {
    std::string line;
    for (const std::string& e : env) {
        const size_t eq = e.find('=');
        line += e.substr(0, eq) + "='" + e.substr(eq + 1) + "' ";
    }
    line += command;
    std::fflush(stdout);
    const int status = std::system(line.c_str());
    return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

} // namespace hearth::test
