// hearth-cli bench: prefill and decode speed of a model (or a synth model of a real shape) on a
// device, its memory by category, and decode against the bandwidth bound with the one
// definition of docs/ARCHITECTURE.md ("Speed plan"): bytes per token computed from the model.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "hearth/engine.h"
#include "tools/cli_args.h"

namespace hearth::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The H200's bandwidth as the bound uses it: a plain read kernel measured 4.48-4.52 TB/s there;
// NVIDIA's spec figure is printed beside it. The CPU: measured by the bench itself. Other GPUs:
// unknown unless --bandwidth-gbps.
constexpr double kH200MeasuredGBps = 4500;
constexpr double kH200SpecGBps = 4800;

struct BenchOptions {
    int32_t prompt = 512, decode = 128, depth = 0, reps = 5;
    double bandwidthGBps = 0; // 0: not given
    std::string synthShape;
};

// A synth model written for the run and removed after it, whatever happens.
struct TempModel {
    std::string path;
    ~TempModel() {
        std::error_code ec;
        if (!path.empty()) fs::remove(path, ec);
    }
};

double median(std::vector<double> values) {
    if (values.empty()) return -1;
    std::sort(values.begin(), values.end());
    const size_t mid = values.size() / 2;
    return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

std::vector<int32_t> seededIds(size_t count, int32_t vocab, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int32_t> pick(0, vocab - 1);
    std::vector<int32_t> ids(count);
    for (int32_t& id : ids) id = pick(rng);
    return ids;
}

json rateOrNull(double rate) { return rate < 0 ? json(nullptr) : json(rate); }

Status readBenchOptions(const Args& args, BenchOptions& o, ModelParams& model, SessionParams& session) {
    HEARTH_ASSIGN(const int64_t p, args.integer("-p", o.prompt, 1, 1 << 20));
    HEARTH_ASSIGN(const int64_t n, args.integer("-n", o.decode, 2, 1 << 20, "tokens generated per run; 2 or more"));
    HEARTH_ASSIGN(const int64_t depth, args.integer("--depth", p, 1, 1 << 24, "default: -p"));
    HEARTH_ASSIGN(const int64_t reps, args.integer("--reps", o.reps, 1, 1000));
    HEARTH_ASSIGN(const int64_t threads, args.integer("--threads", 0, 0, 1024, "0 = all hardware threads"));
    HEARTH_ASSIGN(o.bandwidthGBps, args.number("--bandwidth-gbps", 0, 0, 1e9, true, "the device's memory bandwidth"));
    o.prompt = int32_t(p), o.decode = int32_t(n), o.depth = int32_t(depth), o.reps = int32_t(reps);
    model.threads = int32_t(threads);
    HEARTH_TRY(readDeviceOptions(args, model, &session));
    HEARTH_ASSIGN(model.quant, readQuantOption(args));
    if (args.has("-m") == args.has("--synth")) return invalidArgument("bench needs exactly one of -m MODEL or --synth SHAPE");
    if (auto shape = args.value("--synth")) {
        const std::vector<std::string> shapes = synthShapes();
        if (std::find(shapes.begin(), shapes.end(), *shape) == shapes.end()) {
            std::string names;
            for (const std::string& s : shapes) names += (names.empty() ? "" : ", ") + s;
            return invalidArgument("option --synth: unknown shape '" + *shape + "'; expected one of " + names);
        }
        o.synthShape = *shape;
    } else {
        model.path = *args.value("-m");
    }
    return Status::ok();
}

// The bound: bytes a decode step reads at `depth`, the bandwidth (measured, given or unknown)
// and the fraction of the bound the measured rate reached; the spec figure beside it.
json boundJson(const DecodeBytes& bytes, int32_t depth, const MemoryReport& memory, double givenGBps,
               double decodeTokPerS, int threads) {
    const uint64_t total = bytes.at(depth);
    const bool h200 = memory.device.kind == DeviceKind::Cuda && memory.device.name.find("H200") != std::string::npos;
    const bool cpu = memory.device.kind == DeviceKind::Cpu;
    // On the CPU the bandwidth is measured here, with the bench's threads, after the runs.
    const double cpuGbps = givenGBps <= 0 && cpu ? measureCpuReadBandwidthGBps(threads) : 0;
    const double gbps = givenGBps > 0 ? givenGBps : h200 ? kH200MeasuredGBps : cpuGbps;
    const double specGbps = h200 ? kH200SpecGBps : 0;
    auto boundAt = [&](double bandwidth) { return bandwidth > 0 ? json(bandwidth * 1e9 / double(total)) : json(nullptr); };
    auto fractionAt = [&](double bandwidth) {
        return bandwidth > 0 && decodeTokPerS > 0 ? json(decodeTokPerS / (bandwidth * 1e9 / double(total)))
                                                  : json(nullptr);
    };
    return {{"bytes_per_token", total},
            {"weight_bytes", bytes.weights},
            {"kv_bytes", bytes.kvPerPosition * uint64_t(depth)},
            {"recurrent_bytes", 2 * bytes.recurrentState},
            {"depth", depth},
            {"bandwidth_gbps", gbps > 0 ? json(gbps) : json(nullptr)},
            {"bandwidth_source", givenGBps > 0 ? "given"
                                 : h200        ? "measured on the H200"
                                 : cpuGbps > 0 ? "measured now (a multi-threaded read)"
                                               : "unknown"},
            {"bound_tok_s", boundAt(gbps)},
            {"fraction", fractionAt(gbps)},
            {"spec_bandwidth_gbps", specGbps > 0 ? json(specGbps) : json(nullptr)},
            {"spec_bound_tok_s", boundAt(specGbps)},
            {"spec_fraction", fractionAt(specGbps)}};
}

std::string gib(uint64_t bytes) {
    char buffer[48];
    if (bytes >= (1ull << 30)) std::snprintf(buffer, sizeof buffer, "%.2f GiB", double(bytes) / 1073741824.0);
    else if (bytes >= (1ull << 20)) std::snprintf(buffer, sizeof buffer, "%.1f MiB", double(bytes) / 1048576.0);
    else std::snprintf(buffer, sizeof buffer, "%.1f KiB", double(bytes) / 1024.0);
    return buffer;
}

void printText(const json& j) {
    const json& b = j["bound"];
    const json& m = j["memory"];
    std::printf("bench: %s%s on %s, KV %s, context %d\n", j["model"].get<std::string>().c_str(),
                j["quant"].get<std::string>().empty() ? "" : (" (" + j["quant"].get<std::string>() + ")").c_str(),
                j["device"].get<std::string>().c_str(), j["kv_type"].get<std::string>().c_str(), j["context"].get<int>());
    const int reps = j["reps"].get<int>();
    std::printf("  prefill  %d tokens: %s (median of %d), time to first token %.1f ms\n", j["prompt_tokens"].get<int>(),
                rateText(j["prefill_tok_s"].is_null() ? -1 : j["prefill_tok_s"].get<double>()).c_str(), reps,
                j["ttft_ms"].get<double>());
    std::printf("  load     %.2f s\n", j["load_s"].get<double>());
    std::printf("  decode   %d tokens at depth %d: %s (median of %d)\n", j["decode_tokens"].get<int>(),
                j["depth"].get<int>(), rateText(j["decode_tok_s"].is_null() ? -1 : j["decode_tok_s"].get<double>()).c_str(),
                reps);
    std::printf("  memory   weights %s, KV %s, workspace %s, device context %s; device %s free of %s\n",
                gib(m["weights_bytes"].get<uint64_t>()).c_str(), gib(m["kv_cache_bytes"].get<uint64_t>()).c_str(),
                gib(m["workspace_bytes"].get<uint64_t>()).c_str(), gib(m["device_context_bytes"].get<uint64_t>()).c_str(),
                gib(m["device_free_bytes"].get<uint64_t>()).c_str(), gib(m["device_total_bytes"].get<uint64_t>()).c_str());
    std::printf("  bound    %s per token (weights %s + KV %s at depth %d)", gib(b["bytes_per_token"].get<uint64_t>()).c_str(),
                gib(b["weight_bytes"].get<uint64_t>()).c_str(), gib(b["kv_bytes"].get<uint64_t>()).c_str(),
                b["depth"].get<int>());
    if (b["bandwidth_gbps"].is_null()) {
        std::printf("; bandwidth unknown (give it with --bandwidth-gbps)\n");
        return;
    }
    auto part = [](const json& gbps, const json& bound, const json& fraction) {
        const double g = gbps.get<double>();
        std::printf(g >= 1000 ? "%.2f TB/s" : "%.1f GB/s", g >= 1000 ? g / 1000 : g);
        std::printf(": bound %.1f tok/s", bound.get<double>());
        if (!fraction.is_null()) std::printf(", reached %.1f %%", 100 * fraction.get<double>());
    };
    std::printf("\n           %s ", b["bandwidth_source"].get<std::string>().c_str());
    part(b["bandwidth_gbps"], b["bound_tok_s"], b["fraction"]);
    if (!b["spec_bandwidth_gbps"].is_null()) {
        std::printf("; spec ");
        part(b["spec_bandwidth_gbps"], b["spec_bound_tok_s"], b["spec_fraction"]);
    }
    std::printf("\n");
}

} // namespace

int benchCommand(const std::vector<std::string>& argv) {
    auto parsed = Args::parse(argv,
                              {"-m", "--synth", "--quant", "-p", "-n", "--depth", "--reps", "--kv-type", "--vram-budget", "--device", "--cpu-kernels",
                               "--gpu", "--threads", "--bandwidth-gbps", "--matvec", "--rows", "--cols", "--tokens"},
                              {"--json", "--pool"}, {{"--model", "-m"}, {"--type", "--quant"}});
    if (!parsed.isOk()) return usageError(parsed.status().message());
    const Args& args = parsed.value();
    if (args.has("--matvec")) return benchMatVecCommand(args); // one CPU product alone (cli_bench_matvec.cpp)
    if (args.has("--pool")) return benchPoolCommand(args);     // the CPU pool's cost per job (the same file)
    BenchOptions o;
    ModelParams modelParams;
    modelParams.device = DeviceKind::Auto; // as run: readDeviceOptions' default
    SessionParams sessionParams;
    if (Status s = readBenchOptions(args, o, modelParams, sessionParams); !s.isOk()) return usageError(s.message());

    // --synth: the shape's random weights, written in --quant's types (default F16) to a
    // temporary file that is removed when the run ends.
    TempModel temp;
    if (!o.synthShape.empty()) {
        const fs::path path = fs::temp_directory_path() /
                              ("hearth-bench-" + std::to_string(getpid()) + "-" + o.synthShape + ".gguf");
        SynthModelParams synth{.shape = o.synthShape, .preset = modelParams.quant.empty() ? "F16" : modelParams.quant,
                               .seed = 1, .threads = modelParams.threads, .outputPath = path.string()};
        temp.path = path.string();
        auto written = synthesizeModel(synth);
        if (!written.isOk()) return fail(written.status());
        modelParams.path = path.string();
        modelParams.quant.clear(); // already in the preset's types
    }
    // The load, timed: from a warm page cache it is reading, converting (a --quant preset) and
    // uploading the weights.
    const auto loadStart = std::chrono::steady_clock::now();
    auto model = Model::load(modelParams);
    if (!model.isOk()) return fail(model.status());
    const double loadSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - loadStart).count();
    const Model& m = *model.value();
    const int32_t context = std::max(o.prompt, o.depth + o.decode);
    if (Status s = checkContextLength(m.info(), context, /*allowLong=*/true); !s.isOk()) return fail(s); // warns
    sessionParams.contextLength = context;
    auto created = Session::create(m, sessionParams);
    if (!created.isOk()) return fail(created.status());
    Session& session = *created.value();

    // Random but seeded prompts; nothing stops a run early (no end-of-generation ids).
    const int32_t vocab = m.info().vocabSize;
    const std::vector<int32_t> prompt = seededIds(size_t(o.prompt), vocab, 1);
    const std::vector<int32_t> deep = seededIds(size_t(o.depth), vocab, 2);
    std::vector<double> prefillRates, ttfts, decodeRates;
    for (int r = 0; r < o.reps; ++r) { // a whole prompt each time
        session.reset();
        auto result = session.generate(prompt, {.maxTokens = 1, .useModelStopIds = false});
        if (!result.isOk()) return fail(result.status());
        prefillRates.push_back(result.value().prefillTokPerS);
        ttfts.push_back(result.value().ttftMs);
    }
    session.reset();
    for (int r = 0; r < o.reps; ++r) { // after the first, only the decode runs again
        auto result = session.generate(deep, {.maxTokens = o.decode, .useModelStopIds = false});
        if (!result.isOk()) return fail(result.status());
        decodeRates.push_back(result.value().decodeTokPerS);
    }

    const MemoryReport memory = session.memoryReport();
    const double decodeRate = median(decodeRates);
    json out = {
        {"model", o.synthShape.empty() ? m.info().path : "synth " + o.synthShape},
        {"synth", o.synthShape.empty() ? json(nullptr) : json(o.synthShape)},
        {"quant", args.value("--quant").value_or("")},
        {"device", session.deviceName()},
        {"device_kind", deviceKindName(m.placement().kind)},
        {"placement", m.placement().why},
        {"kv_type", kvTypeName(sessionParams.kvType)},
        {"context", context},
        {"prompt_tokens", o.prompt},
        {"decode_tokens", o.decode},
        {"depth", o.depth},
        {"reps", o.reps},
        {"load_s", loadSeconds},
        {"prefill_tok_s", rateOrNull(median(prefillRates))},
        {"prefill_tok_s_runs", prefillRates},
        {"ttft_ms", median(ttfts)},
        {"decode_tok_s", rateOrNull(decodeRate)},
        {"decode_tok_s_runs", decodeRates},
        {"memory", memoryJson(memory)},
        {"bound", boundJson(session.decodeBytes(), o.depth, memory, o.bandwidthGBps, decodeRate, modelParams.threads)},
    };
    if (args.has("--json")) {
        std::printf("%s\n", out.dump(-1, ' ', false, json::error_handler_t::replace).c_str());
        return 0;
    }
    printText(out);
    return 0;
}

nlohmann::json memoryJson(const MemoryReport& m) {
    return {{"weights_bytes", m.weightsBytes},         {"kv_cache_bytes", m.kvCacheBytes},
            {"recurrent_state_bytes", m.recurrentStateBytes}, {"workspace_bytes", m.workspaceBytes},
            {"device_context_bytes", m.deviceContextBytes}, {"total_bytes", m.totalBytes()},
            {"device_total_bytes", m.device.totalBytes},     {"device_free_bytes", m.device.freeBytes}};
}

} // namespace hearth::cli
