// hearth-cli quantize IN OUT.gguf --quant PRESET: applies a preset to a GGUF or HF model and
// writes the result as a GGUF that llama.cpp reads (atomically: no OUT file on error).
#include <chrono>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "hearth/quant.h"
#include "tools/cli_args.h"

namespace hearth::cli {
namespace {

const std::set<std::string> kValueOptions = {"--quant", "--threads"};
const std::set<std::string> kFlags = {"--allow-requantize", "--json"};
const std::map<std::string, std::string> kAliases = {{"--type", "--quant"}};

} // namespace

int quantizeCommand(const std::vector<std::string>& argv) {
    std::vector<std::string> options, positionals;
    Args::splitPositionals(argv, kValueOptions, kAliases, options, positionals);
    auto parsed = Args::parse(options, kValueOptions, kFlags, kAliases);
    if (!parsed.isOk()) return usageError(parsed.status().message());
    const Args& args = parsed.value();
    if (positionals.size() != 2) return usageError("quantize needs IN and OUT.gguf (got " + std::to_string(positionals.size()) + " paths)");
    if (!args.value("--quant")) return usageError("quantize needs --quant PRESET (" + presetNames() + ")");
    auto threads = args.integer("--threads", 0, 0, 1024, "0 = all hardware threads");
    if (!threads.isOk()) return usageError(threads.status().message());
    if (auto checked = readQuantOption(args); !checked.isOk()) return usageError(checked.status().message());
    QuantizeParams q;
    q.inputPath = positionals[0];
    q.outputPath = positionals[1];
    q.preset = *args.value("--quant");
    q.allowRequantize = args.has("--allow-requantize");
    q.threads = int32_t(threads.value());

    const auto start = std::chrono::steady_clock::now();
    if (q.allowRequantize) {
        auto plan = planQuantPreset(q.inputPath, q.preset);
        if (!plan.isOk()) return fail(plan.status());
        if (plan.value().requantizes)
            std::fprintf(stderr, "hearth-cli: warning: %s is already quantized; re-quantizing to %s loses quality\n",
                         q.inputPath.c_str(), plan.value().preset.c_str());
    }
    auto quantized = quantizeModel(q);
    if (!quantized.isOk()) return fail(quantized.status());
    const QuantizeResult& r = quantized.value();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    if (args.has("--json")) {
        nlohmann::json j = {{"input", q.inputPath}, {"output", q.outputPath}, {"preset", r.preset},
                            {"tensor_types", r.tensorTypeCounts}, {"weights_bytes", r.weightsBytes},
                            {"file_bytes", r.fileBytes}, {"seconds", seconds}};
        std::printf("%s\n", j.dump().c_str());
    } else {
        std::printf("%s -> %s (%s): %.2f MiB in %.1f s; tensor types", q.inputPath.c_str(), q.outputPath.c_str(),
                    r.preset.c_str(), double(r.fileBytes) / (1024.0 * 1024.0), seconds);
        for (const auto& [type, count] : r.tensorTypeCounts) std::printf(" %s x%d", type.c_str(), count);
        std::printf("\n");
    }
    return 0;
}

} // namespace hearth::cli
