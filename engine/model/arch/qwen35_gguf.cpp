// The qwen35 GGUF keys llama.cpp reads (engines.md §3d): the Gated DeltaNet sizes (ssm.*), which
// layers are recurrent (full_attention_interval, or a per-layer attention.recurrent_layers list),
// rope.dimension_sections, and nextn_predict_layers — MTP blocks counted in block_count after
// the model's own layers, which Hearth leaves out until speculative decoding lands.
#include "io/gguf.h"
#include "io/gguf_keys.h"
#include "model/arch/arch.h"

namespace hearth::arch {
namespace {

Result<int32_t> readCount(const io::GgufFile& file, const std::string& key) {
    HEARTH_ASSIGN(const uint64_t value, file.getUInt(key));
    if (value == 0 || value > (1u << 20))
        return dataLoss(file.path() + ": key " + key + " has implausible value " + std::to_string(value));
    return int32_t(value);
}

// attention.recurrent_layers (one bool per layer) when present, else every interval-th layer.
Status readLayerKinds(ModelConfig& c, const io::GgufFile& file, const std::string& arch) {
    const std::string listKey = gguf_key::archKey(arch, gguf_key::kRecurrentLayers);
    if (const io::GgufValue* list = file.find(listKey)) {
        const auto* items = list->asArray();
        if (!items) return dataLoss(file.path() + ": key " + listKey + " must be an array of booleans");
        if (items->size() < size_t(c.layers))
            return dataLoss(file.path() + ": key " + listKey + " has " + std::to_string(items->size()) +
                            " entries for " + std::to_string(c.layers) + " layers");
        c.layerKinds.clear();
        for (int32_t i = 0; i < c.layers; ++i) {
            const auto recurrent = (*items)[size_t(i)].asBool();
            if (!recurrent) return dataLoss(file.path() + ": key " + listKey + " must be an array of booleans");
            c.layerKinds.push_back({*recurrent ? Mixer::GatedDeltaNet : Mixer::Attention});
        }
        return Status::ok();
    }
    int32_t interval = 4; // llama.cpp's default
    const std::string intervalKey = gguf_key::archKey(arch, gguf_key::kFullAttentionInterval);
    if (file.find(intervalKey)) {
        HEARTH_ASSIGN(interval, readCount(file, intervalKey));
    }
    hybridLayers(c, interval);
    return Status::ok();
}

} // namespace

Status qwen35GgufKeys(ModelConfig& c, const io::GgufFile& file) {
    const std::string a = architectureName(c.arch);
    auto key = [&](const char* suffix) { return gguf_key::archKey(a, suffix); };
    const std::string nextnKey = key(gguf_key::kNextnPredictLayers);
    if (file.find(nextnKey)) {
        HEARTH_ASSIGN(const uint64_t mtp, file.getUInt(nextnKey));
        if (mtp >= uint64_t(c.layers))
            return dataLoss(file.path() + ": key " + nextnKey + " (" + std::to_string(mtp) +
                            ") leaves no layers of the " + std::to_string(c.layers) + " in block_count");
        if (mtp > 0) {
            c.layers -= int32_t(mtp);
            c.notes.push_back("the multi-token-prediction block" + std::string(mtp > 1 ? "s" : "") + " (blk." +
                              std::to_string(c.layers) + ".*, " + nextnKey + " = " + std::to_string(mtp) +
                              ") is ignored until speculative decoding lands");
        }
    }
    DeltaNetDims& d = c.deltaNet;
    HEARTH_ASSIGN(d.convKernel, readCount(file, key(gguf_key::kSsmConvKernel)));
    HEARTH_ASSIGN(d.keyDim, readCount(file, key(gguf_key::kSsmStateSize)));
    HEARTH_ASSIGN(d.keyHeads, readCount(file, key(gguf_key::kSsmGroupCount)));
    HEARTH_ASSIGN(d.valueHeads, readCount(file, key(gguf_key::kSsmTimeStepRank)));
    HEARTH_ASSIGN(const int32_t inner, readCount(file, key(gguf_key::kSsmInnerSize)));
    if (inner % d.valueHeads != 0)
        return dataLoss(file.path() + ": key " + key(gguf_key::kSsmInnerSize) + " (" + std::to_string(inner) +
                        ") is not a multiple of " + key(gguf_key::kSsmTimeStepRank) + " (" +
                        std::to_string(d.valueHeads) + " value heads)");
    d.valueDim = inner / d.valueHeads;
    if (const io::GgufValue* sections = file.find(key(gguf_key::kRopeDimensionSections))) {
        const auto* items = sections->asArray();
        if (!items) return dataLoss(file.path() + ": key " + key(gguf_key::kRopeDimensionSections) + " must be an array");
        c.ropeSections.clear();
        for (const io::GgufValue& v : *items) c.ropeSections.push_back(int32_t(v.asInt().value_or(0)));
    }
    return readLayerKinds(c, file, a);
}

} // namespace hearth::arch
