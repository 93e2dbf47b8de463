// hearth-cli synth: a seeded random-weight model of a real shape, written as GGUF, for speed and
// memory measurements at real sizes. JSON summary on stdout.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "synth/synth.h"
#include "tools/cli_args.h"

namespace hearth::cli {
namespace {

const std::set<std::string> kValueOptions = {"--shape", "--config", "--layers", "--tokenizer", "--tokenizer-pre",
                                             "--quant", "--seed", "--threads"};
const std::map<std::string, std::string> kAliases = {{"--type", "--quant"}};

// Args has no positional arguments: take out the one OUT path (a word that is neither an
// option nor an option's value) before parsing the rest.
Result<std::string> takeOutputPath(std::vector<std::string>& argv) {
    std::vector<std::string> rest;
    std::vector<std::string> positional;
    for (size_t i = 0; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (a.size() > 1 && a[0] == '-') {
            rest.push_back(a);
            std::string name = a.substr(0, a.find('='));
            if (auto alias = kAliases.find(name); alias != kAliases.end()) name = alias->second;
            if (kValueOptions.count(name) && a.find('=') == std::string::npos && i + 1 < argv.size())
                rest.push_back(argv[++i]);
        } else {
            positional.push_back(a);
        }
    }
    if (positional.size() != 1)
        return invalidArgument(positional.empty() ? "synth needs an output path OUT.gguf"
                                                  : "synth takes one output path, got " + std::to_string(positional.size()));
    argv = std::move(rest);
    return positional[0];
}

} // namespace

int synthCommand(const std::vector<std::string>& argvIn) {
    std::vector<std::string> argv = argvIn;
    auto out = takeOutputPath(argv);
    if (!out.isOk()) return usageError(out.status().message());
    auto parsed = Args::parse(argv, kValueOptions, {}, kAliases);
    if (!parsed.isOk()) return usageError(parsed.status().message());
    const Args& args = parsed.value();

    SynthParams params;
    params.outputPath = out.value();
    params.shape = args.value("--shape").value_or("");
    params.configPath = args.value("--config").value_or("");
    if (params.shape.empty() == params.configPath.empty())
        return usageError("synth needs exactly one of --shape NAME (" + synthShapeList() + ") or --config config.json");
    if (!args.value("--quant")) return usageError("synth needs --quant PRESET (" + quantPresetList() + ")");
    auto preset = parseQuantPreset(*args.value("--quant"));
    if (!preset)
        return usageError("option --quant: unknown preset '" + *args.value("--quant") + "' (presets: " +
                          quantPresetList() + ")");
    params.preset = *preset;
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

    SynthSummary summary;
    if (Status st = writeSynthModel(params, &summary); !st.isOk()) return fail(st);
    const ModelConfig& c = summary.plan.config;
    std::map<std::string, int> types;
    for (const SynthTensor& t : summary.plan.tensors) ++types[dtypeName(t.type)];
    const nlohmann::json report = {
        {"path", params.outputPath}, {"shape", summary.plan.shapeName}, {"name", c.name},
        {"architecture", architectureName(c.arch)}, {"preset", quantPresetName(params.preset)},
        {"seed", params.seed}, {"layers", c.layers}, {"vocab_size", c.vocabSize},
        {"tensors", summary.plan.tensors.size()}, {"tensor_types", types},
        {"parameters", summary.plan.parameterCount}, {"file_bytes", summary.fileBytes},
        {"seconds", summary.seconds},
    };
    std::printf("%s\n", report.dump().c_str());
    return 0;
}

} // namespace hearth::cli
