// Hugging Face folder → ModelConfig (config.json) + tensors (safetensors, single or sharded).
#include <cmath>
#include <filesystem>
#include <fstream>

#include "io/json_file.h"
#include "io/safetensors.h"
#include "model/arch/arch.h"
#include "model/model_loader.h"
#include "model/sampling_defaults.h"

namespace hearth {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

struct ConfigReader {
    const json& j;
    std::string file;

    Result<int32_t> dim(const std::string& key, int64_t maxValue = 1 << 24) const {
        auto it = j.find(key);
        if (it == j.end()) return notFound(file + ": missing key " + key);
        if (!it->is_number_integer() || it->get<int64_t>() <= 0 || it->get<int64_t>() > maxValue)
            return dataLoss(file + ": key " + key + " must be a positive integer, got " + it->dump());
        return static_cast<int32_t>(it->get<int64_t>());
    }
    Result<int32_t> dimOr(const std::string& key, int32_t fallback, int64_t maxValue = 1 << 24) const {
        auto it = j.find(key);
        if (it == j.end() || it->is_null()) return fallback;
        return dim(key, maxValue);
    }
    static Result<double> number(const json& obj, const std::string& key, double fallback, const std::string& where) {
        auto it = obj.find(key);
        if (it == obj.end() || it->is_null()) return fallback;
        if (!it->is_number()) return dataLoss(where + ": key " + key + " must be a number, got " + it->dump());
        return it->get<double>();
    }
    static Result<bool> flag(const json& obj, const std::string& key, bool fallback, const std::string& where) {
        auto it = obj.find(key);
        if (it == obj.end() || it->is_null()) return fallback;
        if (!it->is_boolean()) return dataLoss(where + ": key " + key + " must be true or false, got " + it->dump());
        return it->get<bool>();
    }
};

// rope_scaling (transformers 4) or rope_parameters (transformers 5) → RopeParams.
Status readRope(const json& j, const std::string& file, RopeParams& rope) {
    HEARTH_ASSIGN(double theta, ConfigReader::number(j, "rope_theta", 10000.0, file));
    rope.theta = float(theta);
    const json* scaling = nullptr;
    for (const char* key : {"rope_scaling", "rope_parameters"})
        if (auto it = j.find(key); it != j.end() && it->is_object()) scaling = &*it;
    if (!scaling) return Status::ok();
    const std::string where = file + ": rope_scaling";
    HEARTH_ASSIGN(double innerTheta, ConfigReader::number(*scaling, "rope_theta", theta, where));
    rope.theta = float(innerTheta);
    std::string type = "default";
    for (const char* key : {"rope_type", "type"})
        if (auto it = scaling->find(key); it != scaling->end() && it->is_string()) type = it->get<std::string>();
    // "mrope" (multimodal RoPE): for text every section sees the same position, so it is the
    // plain rotation of its frequencies.
    if (type == "default" || type == "none" || type == "mrope") return Status::ok();
    if (type == "linear") rope.scaling = RopeScaling::Linear;
    else if (type == "llama3") rope.scaling = RopeScaling::Llama3;
    else if (type == "yarn") rope.scaling = RopeScaling::Yarn;
    else return unsupported(file + ": rope_scaling: unknown RoPE scaling type '" + type + "'");
    HEARTH_ASSIGN(double factor, ConfigReader::number(*scaling, "factor", 1.0, where));
    if (!(factor > 0)) return dataLoss(where + ": factor must be positive");
    rope.factor = float(factor);
    double original = 0;
    HEARTH_ASSIGN(original, ConfigReader::number(*scaling, "original_max_position_embeddings", 0, where));
    if (original <= 0) {
        HEARTH_ASSIGN(original, ConfigReader::number(j, "original_max_position_embeddings", 0, file));
    }
    if (original <= 0 && rope.scaling != RopeScaling::Linear)
        return notFound(where + ": missing original_max_position_embeddings");
    rope.originalContext = int32_t(original);
    HEARTH_ASSIGN(double low, ConfigReader::number(*scaling, "low_freq_factor", 1.0, where));
    HEARTH_ASSIGN(double high, ConfigReader::number(*scaling, "high_freq_factor", 4.0, where));
    HEARTH_ASSIGN(double betaFast, ConfigReader::number(*scaling, "beta_fast", 32.0, where));
    HEARTH_ASSIGN(double betaSlow, ConfigReader::number(*scaling, "beta_slow", 1.0, where));
    if (rope.scaling == RopeScaling::Llama3 && !(high > low))
        return dataLoss(where + ": high_freq_factor must exceed low_freq_factor");
    rope.lowFreqFactor = float(low);
    rope.highFreqFactor = float(high);
    rope.yarnBetaFast = float(betaFast);
    rope.yarnBetaSlow = float(betaSlow);
    if (rope.scaling == RopeScaling::Yarn) {
        // An explicit attention_factor wins; DeepSeek-style mscale/mscale_all_dim give a ratio.
        HEARTH_ASSIGN(double attention, ConfigReader::number(*scaling, "attention_factor", 0.0, where));
        HEARTH_ASSIGN(double mscale, ConfigReader::number(*scaling, "mscale", 0.0, where));
        HEARTH_ASSIGN(double mscaleAllDim, ConfigReader::number(*scaling, "mscale_all_dim", 0.0, where));
        auto yarnScale = [&](double m) { return factor <= 1.0 ? 1.0 : 0.1 * m * std::log(factor) + 1.0; };
        if (attention > 0) rope.yarnAttentionFactor = float(attention);
        else if (mscale > 0 && mscaleAllDim > 0) rope.yarnAttentionFactor = float(yarnScale(mscale) / yarnScale(mscaleAllDim));
        if (auto t = scaling->find("truncate"); t != scaling->end() && t->is_boolean() && !t->get<bool>())
            return unsupported(where + ": yarn with truncate=false is not supported");
    }
    return Status::ok();
}

Result<ModelConfig> configFromHf(const json& j, const std::string& file) {
    if (!j.is_object()) return dataLoss(file + ": expected a JSON object");
    ModelConfig c;
    auto type = j.find("model_type");
    if (type == j.end() || !type->is_string()) return notFound(file + ": missing key model_type");
    const std::string arch = type->get<std::string>();
    const ArchSpec* spec = findArchByHfType(arch);
    if (!spec)
        return unsupported(file + ": unsupported architecture '" + arch + "' (supported: " + supportedArchitectures() + ")");
    c.arch = spec->arch;
    c.name = fs::path(file).parent_path().filename().string();
    // A vision-language wrapper (qwen3_5) keeps the language model's keys in text_config; the
    // vision tower's are not needed for text.
    const auto text = j.find("text_config");
    const json& t = text != j.end() && text->is_object() ? *text : j;
    ConfigReader r{t, file};
    HEARTH_ASSIGN(c.vocabSize, r.dim("vocab_size"));
    HEARTH_ASSIGN(c.hidden, r.dim("hidden_size"));
    HEARTH_ASSIGN(c.layers, r.dim("num_hidden_layers", 4096));
    HEARTH_ASSIGN(c.ffn, r.dim("intermediate_size"));
    HEARTH_ASSIGN(c.heads, r.dim("num_attention_heads", 65536));
    HEARTH_ASSIGN(c.kvHeads, r.dimOr("num_key_value_heads", c.heads, 65536));
    HEARTH_ASSIGN(c.headDim, r.dimOr("head_dim", c.hidden / c.heads, 65536));
    HEARTH_ASSIGN(c.contextLength, r.dimOr("max_position_embeddings", 4096, 1 << 30));
    HEARTH_ASSIGN(double eps, ConfigReader::number(t, "rms_norm_eps", 1e-6, file));
    c.rmsEps = float(eps);
    HEARTH_ASSIGN(c.tiedEmbeddings, ConfigReader::flag(t.contains("tie_word_embeddings") ? t : j, "tie_word_embeddings", false, file));
    if (auto act = t.find("hidden_act"); act != t.end() && act->is_string() && *act != "silu")
        return unsupported(file + ": hidden_act '" + act->get<std::string>() + "' is not supported (only silu)");
    // partial_rotary_factor at the top level, or (transformers 5) inside rope_parameters.
    const auto ropeParameters = t.find("rope_parameters");
    const json& rotary = t.contains("partial_rotary_factor") || ropeParameters == t.end() || !ropeParameters->is_object()
                             ? t : *ropeParameters;
    HEARTH_ASSIGN(double rotaryFraction, ConfigReader::number(rotary, "partial_rotary_factor", 1.0, file));
    c.rope.dims = int32_t(std::lround(c.headDim * rotaryFraction));
    if (!(rotaryFraction > 0 && rotaryFraction <= 1) || c.rope.dims % 2 != 0)
        return dataLoss(file + ": partial_rotary_factor " + std::to_string(rotaryFraction) +
                        " must give an even number of rotated dimensions of the " + std::to_string(c.headDim));
    HEARTH_TRY(readRope(t, file, c.rope));
    HEARTH_TRY(spec->conventions(c, ModelFormat::HuggingFace, &t, file));
    return c;
}

TensorSource tensorSourceFromSafetensors(const io::SafetensorsModel& model, const std::string& folder) {
    TensorSource source;
    source.fileName = folder;
    source.ggmlOrder = false;
    for (const auto& [name, t] : model.tensors()) {
        SourceTensor s;
        s.name = name;
        s.type = t.type;
        s.dimCount = int(t.shape.size());
        s.cols = t.shape.empty() ? 1 : int64_t(t.shape.back());
        s.rows = 1;
        for (size_t i = 0; i + 1 < t.shape.size(); ++i) s.rows *= int64_t(t.shape[i]);
        s.shapeText = "[";
        for (size_t i = 0; i < t.shape.size(); ++i) s.shapeText += (i ? "," : "") + std::to_string(t.shape[i]);
        s.shapeText += "]";
        s.data = t.data;
        s.bytes = t.bytes;
        source.tensors.emplace(name, std::move(s));
    }
    return source;
}

} // namespace

Result<ModelConfig> configFromHfFile(const std::string& configPath) {
    HEARTH_ASSIGN(json j, io::readJsonFile(configPath));
    return configFromHf(j, configPath);
}

// The `license:` line of README.md's YAML front matter (the Hub's model card), or "".
static std::string licenseFromModelCard(const std::string& folder) {
    std::ifstream in(fs::path(folder) / "README.md");
    std::string line;
    if (!std::getline(in, line) || line.rfind("---", 0) != 0) return {};
    while (std::getline(in, line) && line.rfind("---", 0) != 0) {
        if (line.rfind("license:", 0) != 0) continue;
        std::string value = line.substr(8);
        const size_t first = value.find_first_not_of(" \t\"'");
        const size_t last = value.find_last_not_of(" \t\r\"'");
        return first == std::string::npos ? std::string() : value.substr(first, last - first + 1);
    }
    return {};
}

Result<ModelDescription> describeHfFolder(const std::string& folder) {
    const std::string configPath = (fs::path(folder) / "config.json").string();
    std::error_code ec;
    if (!fs::exists(configPath, ec))
        return notFound(folder + ": no config.json in this folder (expected a Hugging Face model folder)");
    HEARTH_ASSIGN(json j, io::readJsonFile(configPath));
    ModelDescription d;
    d.path = folder;
    d.format = ModelFormat::HuggingFace;
    HEARTH_ASSIGN(d.config, configFromHf(j, configPath));
    d.config.license = licenseFromModelCard(folder);
    addSamplingBeside(folder, d.config.sampling);
    auto model = io::SafetensorsModel::openFolder(folder);
    if (!model.isOk()) return model.status();
    d.tensors = tensorSourceFromSafetensors(model.value(), folder);
    HEARTH_TRY(selectTextTensors(d.tensors, d.config.notes));
    // The SafetensorsModel owns the mappings; keep it alive with the views.
    d.tensors.storage.push_back(std::make_shared<io::SafetensorsModel>(std::move(model).value()));
    return d;
}

} // namespace hearth
