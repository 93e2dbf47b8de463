// hearth-cli chat: an interactive terminal chat with streaming output. /reset, /stats, /regen,
// /exit; Ctrl-C stops the current reply without leaving; thinking is shown dimmed.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "hearth/chat.h"
#include "tools/cli_args.h"

namespace hearth::cli {
namespace {

// "temperature 0.6, top-k 20, top-p 0.95, min-p 0, repeat penalty 1"
std::string samplingText(const SamplingParams& s) {
    char text[160];
    std::snprintf(text, sizeof text, "temperature %g, top-k %d, top-p %g, min-p %g, repeat penalty %g",
                  double(s.temperature), int(s.topK), double(s.topP), double(s.minP), double(s.repetitionPenalty));
    return text;
}

std::atomic<bool> g_cancel{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the SIGINT handler needs a lock-free flag");

void onInterrupt(int) { g_cancel.store(true); }

struct LastStats {
    bool valid = false;
    double ttftMs = 0, prefillTokS = -1, decodeTokS = -1;
    int32_t promptTokens = 0, reused = 0, generated = 0, contextUsed = 0;
    std::string stop;
};

void printStats(const LastStats& s, int32_t context) {
    if (!s.valid) {
        std::printf("(no reply yet)\n");
        return;
    }
    char ttft[48] = "n/a";
    if (s.ttftMs >= 0) std::snprintf(ttft, sizeof ttft, "%.0f ms", s.ttftMs);
    std::printf("prompt %d tokens (%d reused), prefill %s, decode %s, time to first token %s, "
                "%d tokens generated (%s), context %d / %d\n",
                s.promptTokens, s.reused, rateText(s.prefillTokS).c_str(), rateText(s.decodeTokS).c_str(), ttft,
                s.generated, s.stop.c_str(), s.contextUsed, context);
}

} // namespace

int chatCommand(const std::vector<std::string>& argv) {
    auto parsed = Args::parse(argv,
                              {"-m", "--system", "--quant", "--threads", "--ctx", "--temp", "--top-k", "--top-p",
                               "--min-p", "--repeat-penalty", "--seed", "-n", "--device", "--gpu", "--kv-type", "--vram-budget", "--cpu-kernels"},
                              {"--no-think", "--drop-old", "--allow-long-context"},
                              {{"--model", "-m"}, {"--type", "--quant"}, {"--temperature", "--temp"}});
    if (!parsed.isOk()) return usageError(parsed.status().message());
    const Args& args = parsed.value();
    if (!args.value("-m")) return usageError("chat needs -m MODEL");
    auto threads = args.integer("--threads", 0, 0, 1024, "0 = all hardware threads");
    auto ctx = args.integer("--ctx", 0, 0, 1 << 24, "0 = the model's, capped by what fits");
    auto maxTokens = args.integer("-n", 1024, 1, 1 << 20, "the longest reply");
    auto quant = readQuantOption(args);
    for (const Status* s : {&threads.status(), &ctx.status(), &maxTokens.status(), &quant.status()})
        if (!s->isOk()) return usageError(s->message());
    // Chat defaults: Qwen's recommended non-thinking settings; a fresh seed per run.
    GenerateParams gen;
    gen.maxTokens = int32_t(maxTokens.value());
    gen.sampling = SamplingParams::chatDefaults();
    gen.sampling.seed = uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
    const SamplingParams defaults = gen.sampling;
    if (Status s = readSamplingOptions(args, gen); !s.isOk()) return usageError(s.message()); // checked before the load

    SessionParams sessionParams;
    int exitCode = 0;
    const std::unique_ptr<Model> model =
        loadCommandModel(args, int32_t(threads.value()), quant.value(), int32_t(ctx.value()), sessionParams, exitCode);
    if (!model) return exitCode;
    // The sampling the model's files recommend (generation_config.json, general.sampling.*) over
    // the chat defaults; what the command line gives over both.
    const SamplingDefaults& recommended = model->info().sampling;
    gen.sampling = recommended.over(defaults);
    if (Status s = readSamplingOptions(args, gen); !s.isOk()) return usageError(s.message());
    if (!recommended.empty())
        std::fprintf(stderr, "sampling: %s (the model's recommendation, where no option says otherwise)\n",
                     samplingText(gen.sampling).c_str());
    ChatOptions options;
    options.systemPrompt = args.value("--system").value_or("");
    options.enableThinking = !args.has("--no-think");
    options.overflow = args.has("--drop-old") ? OverflowPolicy::DropOldest : OverflowPolicy::Refuse;
    auto chat = ChatSession::create(*model, sessionParams, options);
    if (!chat.isOk()) return fail(chat.status());
    ChatSession& c = *chat.value();
    if (!options.systemPrompt.empty() && !c.hasTemplate())
        warn("--system is ignored: this model has no chat template (plain completion mode has no system prompt)");

    struct sigaction sa {};
    sa.sa_handler = onInterrupt; // no SA_RESTART: Ctrl-C at the prompt interrupts the read
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);

    const bool tty = isatty(STDOUT_FILENO);
    const char* dim = tty ? "\x1b[2m" : "";
    const char* plain = tty ? "\x1b[0m" : "";
    std::fprintf(stderr, "%s (%s) on %s — /reset, /regen, /stats, /exit; Ctrl-C stops a reply\n",
                 model->info().name.c_str(), model->info().architecture.c_str(),
                 (c.session().deviceName() + (model->params().device == DeviceKind::Auto ? " (" + model->placement().why + ")" : "")).c_str());
    if (!c.hasTemplate()) std::fprintf(stderr, "note: %s\n", c.modeNote().c_str());

    gen.cancel = &g_cancel;
    LastStats stats;

    for (;;) {
        std::printf("> ");
        std::fflush(stdout);
        std::string line;
        g_cancel = false;
        if (!std::getline(std::cin, line)) {
            if (std::cin.eof()) break;
            std::cin.clear(); // Ctrl-C at the prompt: a fresh prompt
            std::printf("\n");
            continue;
        }
        if (line.empty()) continue;
        if (line == "/exit" || line == "/quit") break;
        if (line == "/reset") {
            c.reset();
            std::printf("(conversation cleared)\n");
            continue;
        }
        if (line == "/stats") {
            printStats(stats, c.session().contextLength());
            continue;
        }
        if (line[0] == '/' && line != "/regen") {
            std::printf("commands: /reset, /regen, /stats, /exit\n");
            continue;
        }
        const auto start = std::chrono::steady_clock::now();
        double ttft = -1;
        bool inReasoning = false;
        auto firstToken = [&] {
            if (ttft < 0) ttft = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        };
        ChatStream stream;
        stream.onReasoning = [&](std::string_view piece, const GenerateStats&) {
            firstToken();
            if (!inReasoning) std::printf("%s", dim);
            inReasoning = true;
            std::fwrite(piece.data(), 1, piece.size(), stdout);
            std::fflush(stdout);
        };
        stream.onContent = [&](std::string_view piece, const GenerateStats&) {
            firstToken();
            if (inReasoning) std::printf("%s\n\n", plain);
            inReasoning = false;
            std::fwrite(piece.data(), 1, piece.size(), stdout);
            std::fflush(stdout);
        };
        auto reply = line == "/regen" ? c.regenerate(gen, stream) : c.send(line, gen, stream);
        if (inReasoning) std::printf("%s", plain);
        std::printf("\n");
        if (!reply.isOk()) {
            std::fprintf(stderr, "error: %s\n", reply.status().message().c_str());
            continue;
        }
        const GenerateResult& r = reply.value().result;
        if (r.stop == StopReason::Cancel) std::printf("(stopped)\n");
        if (reply.value().droppedMessages > 0)
            std::fprintf(stderr, "(dropped %d old messages to fit the context)\n", reply.value().droppedMessages);
        ++gen.sampling.seed; // /regen and later turns draw fresh samples
        stats = {true, ttft, r.prefillTokPerS, r.decodeTokPerS, r.promptTokens, r.reusedTokens,
                 int32_t(r.outputIds.size()), reply.value().contextUsed, stopReasonName(r.stop)};
    }
    return 0;
}

} // namespace hearth::cli
