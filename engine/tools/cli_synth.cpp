// hearth-cli synth: a seeded random-weight model of a real shape, written as GGUF, for speed and
// memory measurements at real sizes. JSON summary on stdout.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "hearth/synth.h"
#include "tools/cli_args.h"

namespace hearth::cli {
namespace {

const std::set<std::string> kValueOptions = {"--shape", "--config", "--layers", "--tokenizer", "--tokenizer-pre",
                                             "--quant", "--seed", "--threads"};
const std::map<std::string, std::string> kAliases = {{"--type", "--quant"}};

std::string shapeNames() {
    std::string names;
    for (const std::string& shape : synthShapes()) names += (names.empty() ? "" : ", ") + shape;
    return names;
}

} // namespace

int synthCommand(const std::vector<std::string>& argv) {
    std::vector<std::string> options, positionals;
    Args::splitPositionals(argv, kValueOptions, kAliases, options, positionals);
    if (positionals.size() != 1)
        return usageError(positionals.empty() ? "synth needs an output path OUT.gguf"
                                              : "synth takes one output path, got " + std::to_string(positionals.size()));
    auto parsed = Args::parse(options, kValueOptions, {}, kAliases);
    if (!parsed.isOk()) return usageError(parsed.status().message());
    const Args& args = parsed.value();

    SynthModelParams params;
    params.outputPath = positionals[0];
    params.shape = args.value("--shape").value_or("");
    params.configPath = args.value("--config").value_or("");
    if (params.shape.empty() == params.configPath.empty())
        return usageError("synth needs exactly one of --shape NAME (" + shapeNames() + ") or --config config.json");
    if (!args.value("--quant")) return usageError("synth needs --quant PRESET (" + presetNames() + ")");
    auto preset = readQuantOption(args);
    if (!preset.isOk()) return usageError(preset.status().message());
    params.preset = preset.value();
    if (!args.value("--seed")) return usageError("synth needs --seed S (the same seed gives the same bytes)");
    auto seed = args.unsignedInteger("--seed", 0);
    if (!seed.isOk()) return usageError(seed.status().message());
    params.seed = seed.value();
    auto layers = args.integer("--layers", 0, 1, 4096, "default: the shape's");
    if (!layers.isOk()) return usageError(layers.status().message());
    params.layers = int32_t(layers.value());
    auto threads = args.integer("--threads", 0, 0, 4096, "0 = all hardware threads");
    if (!threads.isOk()) return usageError(threads.status().message());
    params.threads = int32_t(threads.value());
    params.tokenizerPath = args.value("--tokenizer").value_or("");
    params.tokenizerPre = args.value("--tokenizer-pre").value_or("");

    auto written = synthesizeModel(params);
    if (!written.isOk()) return fail(written.status());
    const SynthModelResult& r = written.value();
    const nlohmann::json report = {
        {"path", params.outputPath}, {"shape", r.shape}, {"name", r.name}, {"architecture", r.architecture},
        {"preset", r.preset}, {"seed", params.seed}, {"layers", r.layers}, {"vocab_size", r.vocabSize},
        {"tensors", r.tensorCount}, {"tensor_types", r.tensorTypeCounts}, {"parameters", r.parameterCount},
        {"file_bytes", r.fileBytes}, {"seconds", r.seconds},
    };
    std::printf("%s\n", report.dump().c_str());
    return 0;
}

} // namespace hearth::cli
