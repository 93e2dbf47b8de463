// Tensor names per file format and shape-checked binding to LayerWeights.
#include "model/model_loader.h"
#include "model/quantize_model.h"
#include "quant/quantize.h"

namespace hearth {
namespace {

enum class Role { AttnNorm, Q, K, V, O, FfnNorm, Gate, Up, Down, QBias, KBias, VBias, QNorm, KNorm };

std::string ggufName(Role role, int layer) {
    const std::string b = "blk." + std::to_string(layer) + ".";
    switch (role) {
    case Role::AttnNorm: return b + "attn_norm.weight";
    case Role::Q: return b + "attn_q.weight";
    case Role::K: return b + "attn_k.weight";
    case Role::V: return b + "attn_v.weight";
    case Role::O: return b + "attn_output.weight";
    case Role::FfnNorm: return b + "ffn_norm.weight";
    case Role::Gate: return b + "ffn_gate.weight";
    case Role::Up: return b + "ffn_up.weight";
    case Role::Down: return b + "ffn_down.weight";
    case Role::QBias: return b + "attn_q.bias";
    case Role::KBias: return b + "attn_k.bias";
    case Role::VBias: return b + "attn_v.bias";
    case Role::QNorm: return b + "attn_q_norm.weight";
    case Role::KNorm: return b + "attn_k_norm.weight";
    }
    return {};
}

std::string hfName(Role role, int layer) {
    const std::string b = "model.layers." + std::to_string(layer) + ".";
    switch (role) {
    case Role::AttnNorm: return b + "input_layernorm.weight";
    case Role::Q: return b + "self_attn.q_proj.weight";
    case Role::K: return b + "self_attn.k_proj.weight";
    case Role::V: return b + "self_attn.v_proj.weight";
    case Role::O: return b + "self_attn.o_proj.weight";
    case Role::FfnNorm: return b + "post_attention_layernorm.weight";
    case Role::Gate: return b + "mlp.gate_proj.weight";
    case Role::Up: return b + "mlp.up_proj.weight";
    case Role::Down: return b + "mlp.down_proj.weight";
    case Role::QBias: return b + "self_attn.q_proj.bias";
    case Role::KBias: return b + "self_attn.k_proj.bias";
    case Role::VBias: return b + "self_attn.v_proj.bias";
    case Role::QNorm: return b + "self_attn.q_norm.weight";
    case Role::KNorm: return b + "self_attn.k_norm.weight";
    }
    return {};
}

Result<WeightMatrix> bindMatrix(ScaleCheck scales, const TensorSource& source, const std::string& name,
                                const std::string& ggufName,
                                int64_t rows, int64_t cols) {
    HEARTH_ASSIGN(const SourceTensor* t, source.matrix(name, rows, cols));
    WeightMatrix m;
    m.name = name;
    m.ggufName = ggufName;
    m.type = t->type;
    m.rows = rows;
    m.cols = cols;
    m.rowBytes = *rowBytes(t->type, uint64_t(cols)); // whole blocks: checked by the file reader
    m.data = t->data;
    // A NaN/Inf block scale poisons every value of its block; refuse the file here, naming the
    // tensor, rather than produce NaN logits later. Reads one scale per block (cheap, see
    // docs/PERFORMANCE.md).
    if (scales == ScaleCheck::Validate && isBlockQuantized(t->type))
        HEARTH_TRY_CTX(validateBlocks(t->type, t->data, rows, cols, name), source.fileName);
    return m;
}

} // namespace

uint64_t ModelWeights::totalBytes() const {
    uint64_t total = tokenEmbedding.bytes();
    if (output.data != tokenEmbedding.data) total += output.bytes();
    for (const LayerWeights& l : layers) {
        for (const WeightMatrix* m : {&l.wq, &l.wk, &l.wv, &l.wo, &l.wGate, &l.wUp, &l.wDown}) total += m->bytes();
        for (const auto* v : {&l.attnNorm, &l.ffnNorm, &l.qBias, &l.kBias, &l.vBias, &l.qNorm, &l.kNorm})
            total += v->size() * sizeof(float);
    }
    return total + outputNorm.size() * sizeof(float);
}

Result<ModelWeights> bindWeights(const ModelConfig& c, const TensorSource& source, ModelFormat format,
                                 ScaleCheck scales) {
    const bool gguf = format == ModelFormat::Gguf;
    auto name = [&](Role role, int layer) { return gguf ? ggufName(role, layer) : hfName(role, layer); };
    ModelWeights w;
    w.storage = source.storage;
    const int64_t qRows = int64_t(c.heads) * c.headDim;
    const int64_t kvRows = int64_t(c.kvHeads) * c.headDim;
    if (c.heads % c.kvHeads != 0)
        return dataLoss(source.fileName + ": " + std::to_string(c.heads) + " attention heads are not a multiple of " +
                        std::to_string(c.kvHeads) + " key/value heads");
    if (c.headDim % 2 != 0) return dataLoss(source.fileName + ": head dimension must be even for RoPE");

    const std::string embdName = gguf ? "token_embd.weight" : "model.embed_tokens.weight";
    HEARTH_ASSIGN(w.tokenEmbedding, bindMatrix(scales, source, embdName, "token_embd.weight", c.vocabSize, c.hidden));
    HEARTH_ASSIGN(w.outputNorm, source.vector(gguf ? "output_norm.weight" : "model.norm.weight", c.hidden));
    const std::string headName = gguf ? "output.weight" : "lm_head.weight";
    if (source.find(headName)) {
        HEARTH_ASSIGN(w.output, bindMatrix(scales, source, headName, "output.weight", c.vocabSize, c.hidden));
    } else if (c.tiedEmbeddings || gguf) {
        w.output = w.tokenEmbedding;
    } else {
        return notFound(source.fileName + ": missing tensor " + headName +
                        " (the config says the embeddings are not tied)");
    }

    w.layers.resize(c.layers);
    for (int i = 0; i < c.layers; ++i) {
        LayerWeights& l = w.layers[i];
        HEARTH_ASSIGN(l.attnNorm, source.vector(name(Role::AttnNorm, i), c.hidden));
        HEARTH_ASSIGN(l.ffnNorm, source.vector(name(Role::FfnNorm, i), c.hidden));
        HEARTH_ASSIGN(l.wq, bindMatrix(scales, source, name(Role::Q, i), ggufName(Role::Q, i), qRows, c.hidden));
        HEARTH_ASSIGN(l.wk, bindMatrix(scales, source, name(Role::K, i), ggufName(Role::K, i), kvRows, c.hidden));
        HEARTH_ASSIGN(l.wv, bindMatrix(scales, source, name(Role::V, i), ggufName(Role::V, i), kvRows, c.hidden));
        HEARTH_ASSIGN(l.wo, bindMatrix(scales, source, name(Role::O, i), ggufName(Role::O, i), c.hidden, qRows));
        HEARTH_ASSIGN(l.wGate, bindMatrix(scales, source, name(Role::Gate, i), ggufName(Role::Gate, i), c.ffn, c.hidden));
        HEARTH_ASSIGN(l.wUp, bindMatrix(scales, source, name(Role::Up, i), ggufName(Role::Up, i), c.ffn, c.hidden));
        HEARTH_ASSIGN(l.wDown, bindMatrix(scales, source, name(Role::Down, i), ggufName(Role::Down, i), c.hidden, c.ffn));
        if (c.attnBias) {
            HEARTH_ASSIGN(l.qBias, source.vector(name(Role::QBias, i), qRows));
            HEARTH_ASSIGN(l.kBias, source.vector(name(Role::KBias, i), kvRows));
            HEARTH_ASSIGN(l.vBias, source.vector(name(Role::VBias, i), kvRows));
        }
        if (c.qkNorm) {
            HEARTH_ASSIGN(l.qNorm, source.vector(name(Role::QNorm, i), c.headDim));
            HEARTH_ASSIGN(l.kNorm, source.vector(name(Role::KNorm, i), c.headDim));
        }
    }
    return w;
}

} // namespace hearth
