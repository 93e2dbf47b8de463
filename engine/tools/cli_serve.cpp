// hearth-cli serve: the model behind an OpenAI-compatible HTTP server (server/) until Ctrl-C or
// SIGTERM. stdout gets one JSON line once it listens ({"url", "model", "context_length"}), stderr
// one line per request.
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "hearth/chat.h"
#include "server/access.h"
#include "server/api_server.h"
#include "server/generator.h"
#include "tools/cli_args.h"

namespace hearth::cli {
namespace {

Result<std::string> readTemplate(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return notFound("option --chat-template: cannot read " + path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

void logGeneration(const server::GenerationRecord& r) {
    if (r.status != 200)
        std::fprintf(stderr, "%s: %d %s (%.2f s)\n", r.id.c_str(), r.status, r.error.c_str(), r.seconds);
    else
        std::fprintf(stderr, "%s: %d prompt + %d generated tokens, %s%s (%.2f s)\n", r.id.c_str(),
                     r.usage.promptTokens, r.usage.completionTokens, r.finish.c_str(), r.stream ? ", streamed" : "",
                     r.seconds);
}

// Blocks until SIGINT or SIGTERM (blocked in every thread since the start, so none dies of it).
void waitForStopSignal(const sigset_t& signals) {
    int signal = 0;
    sigwait(&signals, &signal);
}

} // namespace

int serveCommand(const std::vector<std::string>& argv) {
    auto parsed = Args::parse(argv,
                              {"-m", "--host", "--port", "--api-key", "--queue", "--chat-template", "--quant", "--threads",
                               "--ctx", "--device", "--gpu", "--kv-type", "--vram-budget", "--cpu-kernels"},
                              {"--cors", "--allow-long-context"}, {{"--model", "-m"}, {"--type", "--quant"}});
    if (!parsed.isOk()) return usageError(parsed.status().message());
    const Args& args = parsed.value();
    if (!args.value("-m")) return usageError("serve needs -m MODEL");
    auto threads = args.integer("--threads", 0, 0, 1024, "0 = all hardware threads");
    auto ctx = args.integer("--ctx", 0, 0, 1 << 24, "0 = the model's, capped by what fits");
    auto port = args.integer("--port", 8080, 0, 65535, "0 = any free port");
    auto queue = args.integer("--queue", 8, 0, 1024, "requests that may wait while one runs");
    auto quant = readQuantOption(args);
    for (const Status* s : {&threads.status(), &ctx.status(), &port.status(), &queue.status(), &quant.status()})
        if (!s->isOk()) return usageError(s->message());
    server::ServerOptions options;
    options.host = args.value("--host").value_or("127.0.0.1");
    // The environment keeps the key out of the process list other users can read.
    const char* envKey = std::getenv("HEARTH_API_KEY");
    options.apiKey = args.value("--api-key").value_or(envKey ? envKey : "");
    options.port = int(port.value());
    options.maxWaiting = size_t(queue.value());
    options.cors = args.has("--cors");
    if (Status s = server::checkBind(options.host, options.apiKey); !s.isOk()) return usageError(s.message());
    std::string chatTemplate;
    if (auto path = args.value("--chat-template")) {
        auto text = readTemplate(*path);
        if (!text.isOk()) return usageError(text.status().message());
        chatTemplate = text.value();
    }

    // Before any thread exists, so that all of them inherit the mask and sigwait gets the signal.
    sigset_t stopSignals;
    sigemptyset(&stopSignals);
    sigaddset(&stopSignals, SIGINT);
    sigaddset(&stopSignals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr);

    SessionParams sessionParams;
    int exitCode = 0;
    const std::unique_ptr<Model> model =
        loadCommandModel(args, int32_t(threads.value()), quant.value(), int32_t(ctx.value()), sessionParams, exitCode);
    if (!model) return exitCode;
    // TEST ONLY: HEARTH_TEST_DECODE_DELAY_MS slows every decode step, so that a script can leave a
    // reply halfway (tests/server/curl_client.sh, openai_client.cjs).
    if (const char* delay = std::getenv("HEARTH_TEST_DECODE_DELAY_MS"); delay && std::atoi(delay) > 0)
        setTestDecodeDelayMs(std::atoi(delay));
    server::LocalGenerator generator(*model, sessionParams, chatTemplate);
    if (Status s = generator.prepare(); !s.isOk()) return fail(s);

    options.onGeneration = logGeneration;
    options.onAccess = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
    server::ApiServer api(generator, options);
    if (Status s = api.start(); !s.isOk()) return fail(s);
    const std::string id = generator.servedModel()->id;
    const nlohmann::json listening = {{"url", api.url()}, {"model", id}, {"context_length", generator.contextLength()}};
    std::printf("%s\n", listening.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    std::fflush(stdout);
    std::fprintf(stderr, "serving %s on %s (OpenAI API under /v1%s); Ctrl-C stops\n", id.c_str(), api.url().c_str(),
                 options.apiKey.empty() ? "" : ", API key required");
    waitForStopSignal(stopSignals);
    std::fprintf(stderr, "stopping\n");
    api.stop();
    return 0;
}

} // namespace hearth::cli
