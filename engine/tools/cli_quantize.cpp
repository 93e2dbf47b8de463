// hearth-cli quantize IN OUT.gguf --quant PRESET: applies a preset to a GGUF or HF model and
// writes the result as a GGUF that llama.cpp reads (atomically: no OUT file on error).
#include <chrono>
#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "export/gguf_export.h"
#include "model/model_loader.h"
#include "model/quantize_model.h"
#include "tools/cli_args.h"

namespace hearth::cli {
namespace {

const std::set<std::string> kValueOptions = {"--quant", "--threads"};
const std::set<std::string> kFlags = {"--allow-requantize", "--json"};
const std::map<std::string, std::string> kAliases = {{"--type", "--quant"}};

// Args has no positional arguments: split them off (a word that is not an option or an option's
// value), keeping the options for Args::parse.
void splitPositionals(const std::vector<std::string>& argv, std::vector<std::string>& options,
                      std::vector<std::string>& positionals) {
    for (size_t i = 0; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (a.size() > 1 && a[0] == '-') {
            options.push_back(a);
            std::string name = a.substr(0, a.find('='));
            if (auto alias = kAliases.find(name); alias != kAliases.end()) name = alias->second;
            if (kValueOptions.count(name) && a.find('=') == std::string::npos && i + 1 < argv.size())
                options.push_back(argv[++i]);
        } else {
            positionals.push_back(a);
        }
    }
}

} // namespace

int quantizeCommand(const std::vector<std::string>& argv) {
    std::vector<std::string> options, positionals;
    splitPositionals(argv, options, positionals);
    auto parsed = Args::parse(options, kValueOptions, kFlags, kAliases);
    if (!parsed.isOk()) return usageError(parsed.status().message());
    const Args& args = parsed.value();
    if (positionals.size() != 2) return usageError("quantize needs IN and OUT.gguf (got " + std::to_string(positionals.size()) + " paths)");
    if (!args.value("--quant")) return usageError("quantize needs --quant PRESET (" + quantPresetList() + ")");
    auto threads = args.integer("--threads", 0, 0, 1024, "0 = all hardware threads");
    if (!threads.isOk()) return usageError(threads.status().message());
    if (auto checked = readQuantOption(args); !checked.isOk()) return usageError(checked.status().message());
    auto preset = parsePresetOrError(*args.value("--quant"));
    if (!preset.isOk()) return fail(preset.status());
    const std::string& in = positionals[0];
    const std::string& out = positionals[1];

    const auto start = std::chrono::steady_clock::now();
    auto loaded = loadModel(in);
    if (!loaded.isOk()) return fail(loaded.status());
    LoadedModel& model = loaded.value();
    const bool allow = args.has("--allow-requantize");
    if (allow) {
        for (const PlannedTensor& p : planPreset(model.weights, preset.value()))
            if (p.from != p.to && isBlockQuantized(p.from)) {
                std::fprintf(stderr, "hearth-cli: warning: %s is already quantized (%s); re-quantizing to %s loses quality\n",
                             in.c_str(), dtypeName(p.from), quantPresetName(preset.value()));
                break;
            }
    }
    if (Status s = applyPreset(model, preset.value(), allow, int(threads.value())); !s.isOk()) return fail(s);
    if (Status s = exportGguf(model, preset.value(), out); !s.isOk()) return fail(s);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    std::error_code ec;
    const uint64_t fileBytes = std::filesystem::file_size(out, ec);
    if (args.has("--json")) {
        nlohmann::json j = {{"input", in}, {"output", out}, {"preset", quantPresetName(preset.value())},
                            {"tensor_types", model.tensorTypeCounts}, {"weights_bytes", model.weights.totalBytes()},
                            {"file_bytes", fileBytes}, {"seconds", seconds}};
        std::printf("%s\n", j.dump().c_str());
    } else {
        std::printf("%s -> %s (%s): %.2f MiB in %.1f s; tensor types", in.c_str(), out.c_str(),
                    quantPresetName(preset.value()), double(fileBytes) / (1024.0 * 1024.0), seconds);
        for (const auto& [type, count] : model.tensorTypeCounts) std::printf(" %s x%d", type.c_str(), count);
        std::printf("\n");
    }
    return 0;
}

} // namespace hearth::cli
