#include "quant/presets.h"

#include <algorithm>
#include <cctype>

namespace hearth {
namespace {

struct PresetEntry {
    QuantPreset preset;
    DType base;
    uint32_t fileType;       // llama_ftype
    const char* mixName;     // the mixes' own names; a single-type preset is named by its type
    const char* name() const { return mixName ? mixName : dtypeName(base); }
};

constexpr PresetEntry kPresets[] = {
    {QuantPreset::F32, DType::F32, 0, nullptr},   {QuantPreset::F16, DType::F16, 1, nullptr},
    {QuantPreset::BF16, DType::BF16, 32, nullptr}, {QuantPreset::Q8_0, DType::Q8_0, 7, nullptr},
    {QuantPreset::Q4_0, DType::Q4_0, 2, nullptr},  {QuantPreset::Q5_0, DType::Q5_0, 8, nullptr},
    {QuantPreset::Q4_K, DType::Q4_K, 14, nullptr}, {QuantPreset::Q5_K, DType::Q5_K, 16, nullptr},
    {QuantPreset::Q6_K, DType::Q6_K, 18, nullptr}, {QuantPreset::Q4_K_M, DType::Q4_K, 15, "Q4_K_M"},
    {QuantPreset::Q5_K_M, DType::Q5_K, 17, "Q5_K_M"},
};

const PresetEntry& entry(QuantPreset preset) {
    for (const PresetEntry& e : kPresets)
        if (e.preset == preset) return e;
    return kPresets[0];
}

bool endsWith(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

int layerOf(const std::string& name) { // "blk.12.ffn_down.weight" → 12, else -1
    if (name.rfind("blk.", 0) != 0) return -1;
    return std::atoi(name.c_str() + 4);
}

} // namespace

std::optional<QuantPreset> parseQuantPreset(const std::string& name) {
    std::string upper = name;
    std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return char(std::toupper(c)); });
    for (const PresetEntry& e : kPresets)
        if (upper == e.name()) return e.preset;
    return std::nullopt;
}

const char* quantPresetName(QuantPreset preset) { return entry(preset).name(); }

std::string quantPresetList() {
    std::string out;
    for (const PresetEntry& e : kPresets) out += (out.empty() ? "" : ", ") + std::string(e.name());
    return out;
}

uint32_t ggufFileType(QuantPreset preset) { return entry(preset).fileType; }
DType presetBaseType(QuantPreset preset) { return entry(preset).base; }

bool presetIsQuantized(QuantPreset preset) {
    return preset != QuantPreset::F32 && preset != QuantPreset::F16 && preset != QuantPreset::BF16;
}

bool useMoreBits(int layer, int layers) {
    return layer < layers / 8 || layer >= 7 * layers / 8 || (layer - layers / 8) % 3 == 2;
}

DType fallbackForRow(DType type, int64_t rowLength) {
    auto traits = dtypeTraits(uint32_t(type));
    if (!traits || rowLength % traits->blockElements == 0) return type;
    switch (type) {
    case DType::Q4_K:
    case DType::Q5_K: return rowLength % 32 == 0 ? DType::Q5_0 : DType::F16;
    case DType::Q6_K: return rowLength % 32 == 0 ? DType::Q8_0 : DType::F16;
    default: return DType::F16; // 32-element blocks that do not divide the row
    }
}

PresetPlanner::PresetPlanner(QuantPreset preset, int layers, bool tiedEmbeddings)
    : m_preset(preset), m_layers(layers), m_tied(tiedEmbeddings) {}

DType PresetPlanner::typeFor(const std::string& name, int dims, int64_t rowLength) {
    if (dims < 2) return DType::F32; // norms, biases, rope_freqs
    if (endsWith(name, ".ssm_conv1d.weight")) return DType::F32; // llama.cpp never quantizes the conv kernel
    DType type = presetBaseType(m_preset);
    const bool mixed = m_preset == QuantPreset::Q4_K_M || m_preset == QuantPreset::Q5_K_M;
    if (mixed) {
        const bool isOutput = name == "output.weight" || (m_tied && name == "token_embd.weight");
        if (isOutput) {
            type = DType::Q6_K; // the LM head (or the tied embedding that serves as one)
        } else if (endsWith(name, ".attn_v.weight") || endsWith(name, ".attn_qkv.weight")) {
            // qwen35's Gated DeltaNet qkv counts as an attn_v, on the same counter (llama.cpp)
            if (useMoreBits(m_attnV, m_layers)) type = DType::Q6_K;
            ++m_attnV;
        } else if (endsWith(name, ".ffn_down.weight")) {
            const int layer = layerOf(name);
            if (layer >= 0 && useMoreBits(layer, m_layers)) type = DType::Q6_K;
        }
    }
    return fallbackForRow(type, rowLength);
}

} // namespace hearth
