// hearth-cli inspect: what a model file is and how much memory it needs (without loading it).
#include <cstdio>
#include <optional>

#include <nlohmann/json.hpp>

#include "hearth/engine.h"
#include "tools/cli_args.h"

namespace hearth::cli {
namespace {

std::string mib(uint64_t bytes) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.2f MiB", double(bytes) / (1024.0 * 1024.0));
    return buffer;
}

nlohmann::json deviceJson(const DeviceInfo& d) {
    return {{"kind", deviceKindName(d.kind)}, {"name", d.name}, {"total_bytes", d.totalBytes},
            {"free_bytes", d.freeBytes}, {"compute_capability", d.computeCapability}};
}

} // namespace

int inspectCommand(const std::vector<std::string>& argv) {
    auto parsed = Args::parse(argv, {"-m", "--ctx", "--kv-type", "--vram-budget", "--quant", "--device", "--gpu"}, {"--json"},
                              {{"--model", "-m"}, {"--type", "--quant"}});
    if (!parsed.isOk()) return usageError(parsed.status().message());
    const Args& args = parsed.value();
    if (!args.value("-m")) return usageError("inspect needs -m MODEL");
    auto ctx = args.integer("--ctx", 0, 0, 1 << 24, "0 = the model's trained context");
    if (!ctx.isOk()) return usageError(ctx.status().message());
    ModelParams where; // the device the estimate is for, as run would choose it
    where.device = DeviceKind::Auto;
    SessionParams cache;
    if (Status s = readDeviceOptions(args, where, &cache); !s.isOk()) return usageError(s.message());
    const KvType kv = cache.kvType;
    auto quant = readQuantOption(args);
    if (!quant.isOk()) return usageError(quant.status().message());

    const std::string path = *args.value("-m");
    auto described = describeModelFile(path);
    if (!described.isOk()) return fail(described.status());
    const ModelInfo& info = described.value();
    const int32_t context = ctx.value() > 0 ? int32_t(ctx.value()) : info.contextLength;
    (void)checkContextLength(info, context, /*allowLong=*/true); // an estimate: a warning is enough
    auto estimate = estimateMemory({.path = path, .contextLength = context, .kvType = kv, .device = where.device,
                                    .gpu = where.gpu, .quant = quant.value(), .budgetBytes = where.vramBudgetBytes});
    if (!estimate.isOk()) return fail(estimate.status());
    const MemoryEstimate& e = estimate.value();
    std::optional<QuantPlan> planned;
    if (!quant.value().empty()) {
        auto plan = planQuantPreset(path, quant.value());
        if (!plan.isOk()) return fail(plan.status());
        planned = plan.value();
    }

    // On the CPU, decode speed is the read bandwidth (measured now, ~0.5 s) over the bytes a token
    // reads, at half the context as a conversation goes: the bound the fast kernels approach.
    const bool cpu = e.device.kind == DeviceKind::Cpu;
    const double cpuGbps = cpu ? measureCpuReadBandwidthGBps() : 0;
    const double cpuBound = cpuGbps > 0 ? cpuGbps * 1e9 / double(e.decode.at(context / 2)) : 0;
    if (args.has("--json")) {
        nlohmann::json out = {
            {"path", info.path}, {"format", info.format}, {"architecture", info.architecture}, {"name", info.name},
            {"license", info.license},
            {"vocab_size", info.vocabSize}, {"hidden", info.hidden}, {"layers", info.layers}, {"heads", info.heads},
            {"kv_heads", info.kvHeads}, {"head_dim", info.headDim}, {"ffn", info.ffn},
            {"context_length", info.contextLength}, {"rope_theta", info.ropeTheta}, {"rms_eps", info.rmsEps},
            {"rope_scaling", info.ropeScaling}, {"rope_pairing", info.ropePairing},
            {"tied_embeddings", info.tiedEmbeddings}, {"parameters", info.parameterCount},
            {"tensor_types", info.tensorTypeCounts}, {"notes", info.notes},
            {"memory",
             {{"context", context}, {"kv_type", kvTypeName(kv)}, {"quant", quant.value()},
              {"weights_bytes", e.weightsBytes}, {"kv_bytes_per_1024_tokens", e.kvBytesPer1024Tokens},
              {"kv_cache_bytes", e.kvCacheBytes}, {"recurrent_state_bytes", e.recurrentStateBytes},
              {"workspace_bytes", e.workspaceBytes}, {"device_context_bytes", e.deviceContextBytes},
              {"total_bytes", e.totalBytes()}, {"device", deviceJson(e.device)}, {"fits", e.fits},
              {"available_bytes", e.availableBytes}, {"largest_context", e.largestContext},
              {"decode_weight_bytes", e.decode.weights}, {"decode_kv_bytes_per_position", e.decode.kvPerPosition},
              {"cpu_read_bandwidth_gbps", cpu ? nlohmann::json(cpuGbps) : nlohmann::json(nullptr)},
              {"cpu_decode_tok_s_bound", cpuBound > 0 ? nlohmann::json(cpuBound) : nlohmann::json(nullptr)}}},
        };
        if (planned)
            out["planned"] = {{"preset", planned->preset}, {"tensor_types", planned->tensorTypeCounts},
                              {"weights_bytes", planned->weightsBytes}};
        std::printf("%s\n", out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
        return 0;
    }
    std::printf("%s (%s, %s)\n", info.path.c_str(), info.format.c_str(), info.architecture.c_str());
    std::printf("  name            %s\n", info.name.c_str());
    if (!info.license.empty()) std::printf("  license         %s\n", info.license.c_str());
    std::printf("  parameters      %llu\n", (unsigned long long)info.parameterCount);
    std::printf("  vocab %d, hidden %d, layers %d, heads %d (kv %d, dim %d), ffn %d\n", info.vocabSize, info.hidden,
                info.layers, info.heads, info.kvHeads, info.headDim, info.ffn);
    std::printf("  context %d, rope theta %g (%s pairs, scaling %s), rms eps %g, tied embeddings %s\n",
                info.contextLength, info.ropeTheta, info.ropePairing.c_str(), info.ropeScaling.c_str(), info.rmsEps,
                info.tiedEmbeddings ? "yes" : "no");
    for (const std::string& note : info.notes) std::printf("  note: %s\n", note.c_str());
    std::printf("  tensor types   ");
    for (const auto& [type, count] : info.tensorTypeCounts) std::printf(" %s x%d", type.c_str(), count);
    std::printf("\n  memory (ctx %d, KV %s%s%s) on %s %d, %s:\n", context, kvTypeName(kv),
                quant.value().empty() ? "" : ", ", quant.value().c_str(), deviceKindName(e.device.kind), e.device.index,
                e.device.name.c_str());
    std::printf("    weights %s, KV %s (%s per 1024 tokens), recurrent %s, workspace %s, device context %s,\n"
                "    total %s (%s; %s free)\n",
                mib(e.weightsBytes).c_str(), mib(e.kvCacheBytes).c_str(), mib(e.kvBytesPer1024Tokens).c_str(),
                mib(e.recurrentStateBytes).c_str(), mib(e.workspaceBytes).c_str(), mib(e.deviceContextBytes).c_str(),
                mib(e.totalBytes()).c_str(), e.fits ? "fits" : "does not fit",
                mib(e.device.freeBytes).c_str());
    std::printf("    %s available%s; the longest context that fits: %d tokens\n", mib(e.availableBytes).c_str(),
                where.vramBudgetBytes ? " (the --vram-budget)" : "", e.largestContext);
    std::printf("  a decode step reads %s of weights, plus %.2f KiB of KV per token of context\n",
                mib(e.decode.weights).c_str(), double(e.decode.kvPerPosition) / 1024.0);
    if (cpuBound > 0)
        std::printf("  on this CPU (%.1f GB/s read, measured now) decode reaches at most about %.1f tok/s at %d tokens\n",
                    cpuGbps, cpuBound, context / 2);
    if (planned) {
        std::printf("  with --quant %s:", planned->preset.c_str());
        for (const auto& [type, count] : planned->tensorTypeCounts) std::printf(" %s x%d", type.c_str(), count);
        std::printf(", weights %s\n", mib(planned->weightsBytes).c_str());
    }
    return 0;
}

} // namespace hearth::cli

int devicesCommand(const std::vector<std::string>& argv) {
    using namespace hearth;
    auto parsed = cli::Args::parse(argv, {}, {"--json"}, {});
    if (!parsed.isOk()) return cli::usageError(parsed.status().message());
    const DeviceReport& report = probeDevices();
    nlohmann::json devices = nlohmann::json::array();
    for (const DeviceInfo& d : report.devices) devices.push_back(cli::deviceJson(d));
    if (parsed.value().has("--json")) {
        nlohmann::json out = {{"devices", devices}, {"cuda_built", report.cudaBuilt},
                              {"cuda_unavailable", cudaUnavailableName(report.cudaUnavailable)},
                              {"cuda_unavailable_reason", report.cudaUnavailableReason}};
        std::printf("%s\n", out.dump().c_str());
        return 0;
    }
    for (const DeviceInfo& d : report.devices)
        std::printf("%s %d: %s, %.1f GiB total, %.1f GiB free%s%s\n", deviceKindName(d.kind), d.index, d.name.c_str(),
                    d.totalBytes / 1073741824.0, d.freeBytes / 1073741824.0,
                    d.computeCapability.empty() ? "" : ", compute ", d.computeCapability.c_str());
    if (!report.cudaUnavailableReason.empty()) std::printf("no CUDA device: %s\n", report.cudaUnavailableReason.c_str());
    return 0;
}
