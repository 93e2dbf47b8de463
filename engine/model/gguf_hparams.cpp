#include "model/gguf_hparams.h"

namespace hearth {

std::vector<std::pair<std::string, io::GgufValue>> ggufArchitectureKeys(const ModelConfig& c) {
    using io::GgufValue;
    const std::string a = architectureName(c.arch);
    std::vector<std::pair<std::string, GgufValue>> keys = {
        {a + ".vocab_size", GgufValue::u32(uint32_t(c.vocabSize))},
        {a + ".context_length", GgufValue::u32(uint32_t(c.contextLength))},
        {a + ".embedding_length", GgufValue::u32(uint32_t(c.hidden))},
        {a + ".block_count", GgufValue::u32(uint32_t(c.layers))},
        {a + ".feed_forward_length", GgufValue::u32(uint32_t(c.ffn))},
        {a + ".attention.head_count", GgufValue::u32(uint32_t(c.heads))},
        {a + ".attention.head_count_kv", GgufValue::u32(uint32_t(c.kvHeads))},
        {a + ".attention.key_length", GgufValue::u32(uint32_t(c.headDim))},
        {a + ".attention.value_length", GgufValue::u32(uint32_t(c.headDim))},
        {a + ".attention.layer_norm_rms_epsilon", GgufValue::f32(c.rmsEps)},
        {a + ".rope.freq_base", GgufValue::f32(c.rope.theta)},
        {a + ".rope.dimension_count", GgufValue::u32(uint32_t(c.rope.dims))},
    };
    const std::string s = a + ".rope.scaling.";
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
