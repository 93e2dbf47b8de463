// Qwen3.5 / Qwen3.6 (dense): groups of Gated DeltaNet layers closed by a gated full-attention
// layer, (1 + w) RMSNorms, q/k norms, partial rotary (a quarter of each head), no biases.
// Hugging Face: model_type qwen3_5 (the vision-language wrapper, read through its text_config)
// or qwen3_5_text; GGUF: qwen35 (keys in qwen35_gguf.cpp). The two formats differ in the
// value-head order of the DeltaNet weights and in how the norms are stored (ModelConfig).
#include "model/arch/arch.h"

namespace hearth::arch {
namespace {

using nlohmann::json;

// A positive integer of config.json, or `fallback` (transformers' default) when absent.
Result<int32_t> hfCount(const json& hf, const char* key, int32_t fallback, const std::string& where) {
    const auto it = hf.find(key);
    if (it == hf.end() || it->is_null()) return fallback;
    if (!it->is_number_integer() || it->get<int64_t>() <= 0 || it->get<int64_t>() > (1 << 20))
        return dataLoss(where + ": key " + key + " must be a positive integer, got " + it->dump());
    return int32_t(it->get<int64_t>());
}

// layer_types (one "linear_attention" / "full_attention" per layer), else full_attention_interval.
Status readLayerTypes(ModelConfig& c, const json& hf, const std::string& where) {
    const auto types = hf.find("layer_types");
    if (types == hf.end() || types->is_null()) {
        HEARTH_ASSIGN(const int32_t interval, hfCount(hf, "full_attention_interval", 4, where));
        hybridLayers(c, interval);
        return Status::ok();
    }
    if (!types->is_array()) return dataLoss(where + ": key layer_types must be a list, got " + types->dump());
    if (types->size() != size_t(c.layers))
        return dataLoss(where + ": key layer_types has " + std::to_string(types->size()) +
                        " entries but num_hidden_layers is " + std::to_string(c.layers));
    c.layerKinds.clear();
    for (size_t i = 0; i < types->size(); ++i) {
        const json& t = (*types)[i];
        if (t == "linear_attention") c.layerKinds.push_back({Mixer::GatedDeltaNet});
        else if (t == "full_attention") c.layerKinds.push_back({Mixer::Attention});
        else
            return unsupported(where + ": key layer_types[" + std::to_string(i) + "] is " + t.dump() +
                               " (expected \"linear_attention\" or \"full_attention\")");
    }
    return Status::ok();
}

Status readHfKeys(ModelConfig& c, const json& hf, const std::string& where) {
    DeltaNetDims& d = c.deltaNet;
    HEARTH_ASSIGN(d.keyHeads, hfCount(hf, "linear_num_key_heads", 16, where));
    HEARTH_ASSIGN(d.valueHeads, hfCount(hf, "linear_num_value_heads", 32, where));
    HEARTH_ASSIGN(d.keyDim, hfCount(hf, "linear_key_head_dim", 128, where));
    HEARTH_ASSIGN(d.valueDim, hfCount(hf, "linear_value_head_dim", 128, where));
    HEARTH_ASSIGN(d.convKernel, hfCount(hf, "linear_conv_kernel_dim", 4, where));
    HEARTH_ASSIGN(const bool gated, hfFlag(&hf, "attn_output_gate", true, where));
    if (!gated) return unsupported(where + ": attn_output_gate false is not supported (Qwen3.5 gates its attention)");
    HEARTH_ASSIGN(const bool bias, hfFlag(&hf, "attention_bias", false, where));
    if (bias) return unsupported(where + ": attention_bias true is not supported for qwen3_5");
    HEARTH_TRY(readLayerTypes(c, hf, where));
    // mrope_section: kept for the GGUF's rope.dimension_sections (text sees one position).
    const auto rope = hf.find("rope_parameters");
    if (rope != hf.end() && rope->is_object())
        if (const auto s = rope->find("mrope_section"); s != rope->end() && s->is_array() && !s->empty()) {
            c.ropeSections.clear();
            for (const json& v : *s) c.ropeSections.push_back(v.is_number_integer() ? v.get<int32_t>() : 0);
            c.ropeSections.resize(4, 0);
        }
    return Status::ok();
}

// Sizes the forward pass relies on, checked once for every format.
Status checkDeltaNet(const ModelConfig& c, const std::string& where) {
    const DeltaNetDims& d = c.deltaNet;
    if (c.deltaNetLayerCount() == 0) return Status::ok();
    if (d.keyHeads <= 0 || d.valueHeads <= 0 || d.keyDim <= 0 || d.valueDim <= 0 || d.convKernel < 1)
        return dataLoss(where + ": the Gated DeltaNet sizes must be positive (key heads " + std::to_string(d.keyHeads) +
                        ", value heads " + std::to_string(d.valueHeads) + ", key dim " + std::to_string(d.keyDim) +
                        ", value dim " + std::to_string(d.valueDim) + ", conv kernel " +
                        std::to_string(d.convKernel) + ")");
    if (d.valueHeads % d.keyHeads != 0)
        return dataLoss(where + ": " + std::to_string(d.valueHeads) + " linear-attention value heads are not a multiple of " +
                        std::to_string(d.keyHeads) + " key heads");
    return Status::ok();
}

} // namespace

Status qwen35Conventions(ModelConfig& c, ModelFormat format, const nlohmann::json* hf, const std::string& where) {
    c.attnBias = false;
    c.qkNorm = true;
    c.attnOutputGate = true;
    c.rope.pairing = RopePairing::RotateHalf; // of the rotated quarter; llama.cpp's IMROPE pairs the same way
    c.unitOffsetNorms = format == ModelFormat::HuggingFace;
    c.deltaNet.order = format == ModelFormat::Gguf ? ValueHeadOrder::Tiled : ValueHeadOrder::Grouped;
    if (c.ropeSections.empty()) c.ropeSections = {11, 11, 10, 0};
    if (hf) HEARTH_TRY(readHfKeys(c, *hf, where));
    if (c.layerKinds.size() != size_t(c.layers)) hybridLayers(c, 4); // a shape without a layer list
    return checkDeltaNet(c, where);
}

} // namespace hearth::arch
