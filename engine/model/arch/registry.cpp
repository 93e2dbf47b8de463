#include "model/arch/arch.h"

namespace hearth {
namespace {

const std::vector<ArchSpec>& registry() {
    static const std::vector<ArchSpec> specs = {
        {Architecture::Llama, "llama", {"llama"}, arch::llamaConventions},
        {Architecture::Qwen2, "qwen2", {"qwen2"}, arch::qwen2Conventions},
        {Architecture::Qwen3, "qwen3", {"qwen3"}, arch::qwen3Conventions},
        {Architecture::Qwen35, "qwen35", {"qwen3_5", "qwen3_5_text"}, arch::qwen35Conventions, arch::qwen35GgufKeys},
    };
    return specs;
}

} // namespace

const ArchSpec* findArchByGgufName(std::string_view name) {
    for (const ArchSpec& s : registry())
        if (name == s.name) return &s;
    return nullptr;
}

const ArchSpec* findArchByHfType(std::string_view modelType) {
    for (const ArchSpec& s : registry())
        for (const std::string& t : s.hfModelTypes)
            if (modelType == t) return &s;
    return nullptr;
}

const ArchSpec& archSpec(Architecture arch) {
    for (const ArchSpec& s : registry())
        if (s.arch == arch) return s;
    return registry().front(); // unreachable: every Architecture has an entry
}

const char* architectureName(Architecture arch) { return archSpec(arch).name; }

std::string supportedArchitectures() {
    std::string out;
    for (const ArchSpec& s : registry()) out += (out.empty() ? "" : ", ") + std::string(s.name);
    return out;
}

const char* mixerName(Mixer mixer) {
    switch (mixer) {
    case Mixer::Attention: return "attention";
    case Mixer::GatedDeltaNet: return "gated-deltanet";
    }
    return "unknown";
}

int32_t ModelConfig::attentionLayerCount() const {
    int32_t n = 0;
    for (const LayerKind& k : layerKinds) n += k.mixer == Mixer::Attention ? 1 : 0;
    return n;
}

int32_t ModelConfig::deltaNetLayerCount() const {
    int32_t n = 0;
    for (const LayerKind& k : layerKinds) n += k.mixer == Mixer::GatedDeltaNet ? 1 : 0;
    return n;
}

namespace arch {

void uniformAttentionLayers(ModelConfig& config) {
    config.layerKinds.assign(size_t(config.layers), LayerKind{Mixer::Attention});
}

void hybridLayers(ModelConfig& config, int32_t interval) {
    config.layerKinds.clear();
    for (int32_t i = 0; i < config.layers; ++i)
        config.layerKinds.push_back({(i + 1) % interval == 0 ? Mixer::Attention : Mixer::GatedDeltaNet});
}

Result<bool> hfFlag(const nlohmann::json* hf, const char* key, bool fallback, const std::string& where) {
    if (!hf) return fallback;
    const auto it = hf->find(key);
    if (it == hf->end() || it->is_null()) return fallback;
    if (!it->is_boolean()) return dataLoss(where + ": key " + key + " must be true or false, got " + it->dump());
    return it->get<bool>();
}

} // namespace arch
} // namespace hearth
