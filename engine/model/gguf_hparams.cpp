#include "model/gguf_hparams.h"
#include "io/gguf_keys.h"

namespace hearth {
namespace {

// The attention interval of a hybrid layer list (every interval-th layer attention), or 0 when
// the list has no such period.
int32_t attentionInterval(const ModelConfig& c) {
    for (int32_t interval = 1; interval <= c.layers + 1; ++interval) { // layers + 1: none is attention
        bool fits = true;
        for (int32_t i = 0; i < c.layers && fits; ++i)
            fits = c.isAttention(i) == ((i + 1) % interval == 0);
        if (fits) return interval;
    }
    return 0;
}

// qwen35: the Gated DeltaNet sizes, the attention layers, the mRoPE sections llama.cpp requires.
void appendQwen35Keys(const ModelConfig& c, const std::string& a,
                      std::vector<std::pair<std::string, io::GgufValue>>& keys) {
    using io::GgufValue;
    const DeltaNetDims& d = c.deltaNet;
    keys.emplace_back(gguf_key::archKey(a, gguf_key::kSsmConvKernel), GgufValue::u32(uint32_t(d.convKernel)));
    keys.emplace_back(gguf_key::archKey(a, gguf_key::kSsmStateSize), GgufValue::u32(uint32_t(d.keyDim)));
    keys.emplace_back(gguf_key::archKey(a, gguf_key::kSsmGroupCount), GgufValue::u32(uint32_t(d.keyHeads)));
    keys.emplace_back(gguf_key::archKey(a, gguf_key::kSsmTimeStepRank), GgufValue::u32(uint32_t(d.valueHeads)));
    keys.emplace_back(gguf_key::archKey(a, gguf_key::kSsmInnerSize), GgufValue::u32(uint32_t(d.valueWidth())));
    const int32_t interval = attentionInterval(c);
    if (interval > 0) {
        keys.emplace_back(gguf_key::archKey(a, gguf_key::kFullAttentionInterval), GgufValue::u32(uint32_t(interval)));
    } else { // a list without a period: say it layer by layer
        std::vector<GgufValue> recurrent;
        for (int32_t i = 0; i < c.layers; ++i) recurrent.push_back(GgufValue::boolean(!c.isAttention(i)));
        keys.emplace_back(gguf_key::archKey(a, gguf_key::kRecurrentLayers),
                          GgufValue::array(io::GgufValueType::Bool, std::move(recurrent)));
    }
    std::vector<int32_t> sections = c.ropeSections;
    sections.resize(4, 0);
    keys.emplace_back(gguf_key::archKey(a, gguf_key::kRopeDimensionSections), GgufValue::i32Array(sections));
}

} // namespace

std::vector<std::pair<std::string, io::GgufValue>> ggufArchitectureKeys(const ModelConfig& c) {
    using io::GgufValue;
    const std::string a = architectureName(c.arch);
    std::vector<std::pair<std::string, GgufValue>> keys = {
        {gguf_key::archKey(a, gguf_key::kVocabSize), GgufValue::u32(uint32_t(c.vocabSize))},
        {gguf_key::archKey(a, gguf_key::kContextLength), GgufValue::u32(uint32_t(c.contextLength))},
        {gguf_key::archKey(a, gguf_key::kEmbeddingLength), GgufValue::u32(uint32_t(c.hidden))},
        {gguf_key::archKey(a, gguf_key::kBlockCount), GgufValue::u32(uint32_t(c.layers))},
        {gguf_key::archKey(a, gguf_key::kFeedForwardLength), GgufValue::u32(uint32_t(c.ffn))},
        {gguf_key::archKey(a, gguf_key::kHeadCount), GgufValue::u32(uint32_t(c.heads))},
        {gguf_key::archKey(a, gguf_key::kHeadCountKv), GgufValue::u32(uint32_t(c.kvHeads))},
        {gguf_key::archKey(a, gguf_key::kKeyLength), GgufValue::u32(uint32_t(c.headDim))},
        {gguf_key::archKey(a, gguf_key::kValueLength), GgufValue::u32(uint32_t(c.headDim))},
        {gguf_key::archKey(a, gguf_key::kRmsEpsilon), GgufValue::f32(c.rmsEps)},
        {gguf_key::archKey(a, gguf_key::kRopeFreqBase), GgufValue::f32(c.rope.theta)},
        {gguf_key::archKey(a, gguf_key::kRopeDimensionCount), GgufValue::u32(uint32_t(c.rope.dims))},
    };
    if (c.arch == Architecture::Qwen35) appendQwen35Keys(c, a, keys);
    const std::string s = gguf_key::archKey(a, gguf_key::kRopeScaling);
    if (c.rope.scaling == RopeScaling::Linear) {
        keys.emplace_back(s + "type", GgufValue::string("linear"));
        keys.emplace_back(s + "factor", GgufValue::f32(c.rope.factor));
    } else if (c.rope.scaling == RopeScaling::Yarn) {
        keys.emplace_back(s + "type", GgufValue::string("yarn"));
        keys.emplace_back(s + "factor", GgufValue::f32(c.rope.factor));
        keys.emplace_back(s + "original_context_length", GgufValue::u32(uint32_t(c.rope.originalContext)));
        keys.emplace_back(s + "yarn_beta_fast", GgufValue::f32(c.rope.yarnBetaFast));
        keys.emplace_back(s + "yarn_beta_slow", GgufValue::f32(c.rope.yarnBetaSlow));
        if (c.rope.yarnAttentionFactor > 0) keys.emplace_back(s + "attn_factor", GgufValue::f32(c.rope.yarnAttentionFactor));
    }
    return keys;
}

} // namespace hearth
