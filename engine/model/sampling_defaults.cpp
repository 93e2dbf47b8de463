// Recommended sampling from generation_config.json and a GGUF's general.sampling.* keys.
#include "model/sampling_defaults.h"

#include <cmath>
#include <filesystem>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "io/gguf.h"
#include "io/json_file.h"

namespace hearth {
namespace {
namespace fs = std::filesystem;

enum class Knob { Temperature, TopK, TopP, MinP, RepetitionPenalty };

// One recommended value: its names in both formats and the values SamplingParams accepts.
struct KnobRule {
    Knob knob;
    const char* jsonKey;
    const char* ggufKey;
    double low, high;
    bool lowOpen; // low itself is outside
    bool whole;   // a count
    const char* allowed;
};

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr KnobRule kRules[] = {
    {Knob::Temperature, "temperature", "general.sampling.temp", 0, kInf, false, false, "a number >= 0"},
    {Knob::TopK, "top_k", "general.sampling.top_k", 0, std::numeric_limits<int32_t>::max(), false, true,
     "a whole number >= 0"},
    {Knob::TopP, "top_p", "general.sampling.top_p", 0, 1, true, false, "a number in (0, 1]"},
    {Knob::MinP, "min_p", "general.sampling.min_p", 0, 1, false, false, "a number in [0, 1]"},
    {Knob::RepetitionPenalty, "repetition_penalty", "general.sampling.penalty_repeat", 0, kInf, true, false,
     "a number > 0"},
};

bool isSet(const SamplingHints& h, Knob k) {
    switch (k) {
    case Knob::Temperature: return h.temperature.has_value();
    case Knob::TopK: return h.topK.has_value();
    case Knob::TopP: return h.topP.has_value();
    case Knob::MinP: return h.minP.has_value();
    case Knob::RepetitionPenalty: return h.repetitionPenalty.has_value();
    }
    return false;
}

void note(SamplingHints& h, const std::string& problem) {
    h.problems += (h.problems.empty() ? "" : "; ") + problem;
}

std::string numberText(double v) {
    std::ostringstream out;
    out << v; // "1.5", "1e+30", "inf"
    return out.str();
}

// Keeps `value` when the rule allows it; else says why in `problems`. `where`: "file: key".
void accept(SamplingHints& h, const KnobRule& rule, double value, const std::string& where) {
    const bool inRange = std::isfinite(value) && (rule.lowOpen ? value > rule.low : value >= rule.low) &&
                         value <= rule.high && (!rule.whole || value == std::floor(value));
    if (!inRange) {
        note(h, where + " must be " + rule.allowed + ", got " + numberText(value) + " (left out)");
        return;
    }
    switch (rule.knob) {
    case Knob::Temperature: h.temperature = float(value); break;
    case Knob::TopK: h.topK = int32_t(value); break;
    case Knob::TopP: h.topP = float(value); break;
    case Knob::MinP: h.minP = float(value); break;
    case Knob::RepetitionPenalty: h.repetitionPenalty = float(value); break;
    }
}

} // namespace

SamplingHints samplingHintsFromGguf(const io::GgufFile& file) {
    SamplingHints h;
    for (const KnobRule& rule : kRules) {
        const io::GgufValue* value = file.find(rule.ggufKey);
        if (!value) continue;
        const std::string where = file.path() + ": key " + rule.ggufKey;
        if (const std::optional<double> number = value->asFloat()) accept(h, rule, *number, where);
        else note(h, where + " must be " + rule.allowed + ", got a " + ggufValueTypeName(value->type) + " (left out)");
    }
    return h;
}

void addGenerationConfigSampling(const nlohmann::json& config, const std::string& file, SamplingHints& h) {
    if (!config.is_object()) {
        note(h, file + ": expected a JSON object (left out)");
        return;
    }
    // transformers samples only with do_sample true; false means greedy whatever else is set.
    if (auto it = config.find("do_sample"); it != config.end() && !it->is_null()) {
        if (!it->is_boolean()) note(h, file + ": do_sample must be true or false, got " + it->dump() + " (left out)");
        else if (!it->get<bool>() && !h.temperature) h.temperature = 0.0f;
    }
    for (const KnobRule& rule : kRules) {
        auto it = config.find(rule.jsonKey);
        if (isSet(h, rule.knob) || it == config.end() || it->is_null()) continue;
        const std::string where = file + ": " + rule.jsonKey;
        if (it->is_number()) accept(h, rule, it->get<double>(), where);
        else note(h, where + " must be " + rule.allowed + ", got " + it->dump() + " (left out)");
    }
}

void addSamplingBeside(const std::string& modelPath, SamplingHints& h) {
    std::error_code ec;
    const fs::path folder = fs::is_directory(modelPath, ec) ? fs::path(modelPath) : fs::path(modelPath).parent_path();
    const fs::path config = (folder.empty() ? fs::path(".") : folder) / "generation_config.json";
    if (!fs::is_regular_file(config, ec)) return;
    auto json = io::readJsonFile(config.string());
    if (!json.isOk()) {
        note(h, json.status().message() + " (sampling defaults left out)");
        return;
    }
    addGenerationConfigSampling(json.value(), config.string(), h);
}

} // namespace hearth
