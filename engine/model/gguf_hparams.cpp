#include "model/gguf_hparams.h"
#include "io/gguf_keys.h"

namespace hearth {

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
