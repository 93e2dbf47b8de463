// Tensor names per file format and shape-checked binding to LayerWeights.
#include "model/model_loader.h"
#include "model/weights_binding.h"
#include "model/tensor_names.h"
#include "model/quantize_model.h"
#include "quant/quantize.h"

namespace hearth {

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

std::vector<WeightMatrix*> LayerWeights::matrices() {
    if (mixer == Mixer::GatedDeltaNet) {
        DeltaNetWeights& d = deltaNet;
        return {&d.qkv, &d.gate, &d.beta, &d.alpha, &d.out, &ffn.gate, &ffn.up, &ffn.down};
    }
    AttentionWeights& a = attention;
    return {&a.q, &a.k, &a.v, &a.o, &ffn.gate, &ffn.up, &ffn.down};
}

std::vector<const WeightMatrix*> LayerWeights::matrices() const {
    std::vector<WeightMatrix*> all = const_cast<LayerWeights*>(this)->matrices();
    return {all.begin(), all.end()};
}

std::vector<const std::vector<float>*> LayerWeights::vectors() const {
    if (mixer == Mixer::GatedDeltaNet) {
        const DeltaNetWeights& d = deltaNet;
        return {&d.norm, &d.conv, &d.dtBias, &d.negExpA, &d.outNorm, &ffn.norm};
    }
    const AttentionWeights& a = attention;
    return {&a.norm, &a.qBias, &a.kBias, &a.vBias, &a.qNorm, &a.kNorm, &ffn.norm};
}

uint64_t ModelWeights::totalBytes() const {
    uint64_t total = tokenEmbedding.bytes();
    if (output.data != tokenEmbedding.data) total += output.bytes();
    for (const LayerWeights& l : layers) {
        for (const WeightMatrix* m : l.matrices()) total += m->bytes();
        for (const std::vector<float>* v : l.vectors()) total += v->size() * sizeof(float);
    }
    return total + outputNorm.size() * sizeof(float);
}

namespace {

// One layer's attention block: q/k/v/o, optional biases and q/k norms.
Result<AttentionWeights> bindAttention(const ModelConfig& c, const TensorSource& source, ModelFormat format,
                                       ScaleCheck scales, int i) {
    auto name = [&](TensorRole role) { return tensorName(role, format, i); };
    auto matrix = [&](TensorRole role, int64_t rows, int64_t cols) {
        return bindMatrix(scales, source, name(role), tensorName(role, ModelFormat::Gguf, i), rows, cols);
    };
    const int64_t qRows = int64_t(c.heads) * c.headDim;
    const int64_t kvRows = int64_t(c.kvHeads) * c.headDim;
    AttentionWeights a;
    HEARTH_ASSIGN(a.norm, source.vector(name(TensorRole::AttnNorm), c.hidden));
    HEARTH_ASSIGN(a.q, matrix(TensorRole::Q, c.attnOutputGate ? 2 * qRows : qRows, c.hidden));
    HEARTH_ASSIGN(a.k, matrix(TensorRole::K, kvRows, c.hidden));
    HEARTH_ASSIGN(a.v, matrix(TensorRole::V, kvRows, c.hidden));
    HEARTH_ASSIGN(a.o, matrix(TensorRole::O, c.hidden, qRows));
    if (c.attnBias) {
        HEARTH_ASSIGN(a.qBias, source.vector(name(TensorRole::QBias), qRows));
        HEARTH_ASSIGN(a.kBias, source.vector(name(TensorRole::KBias), kvRows));
        HEARTH_ASSIGN(a.vBias, source.vector(name(TensorRole::VBias), kvRows));
    }
    if (c.qkNorm) {
        HEARTH_ASSIGN(a.qNorm, source.vector(name(TensorRole::QNorm), c.headDim));
        HEARTH_ASSIGN(a.kNorm, source.vector(name(TensorRole::KNorm), c.headDim));
    }
    return a;
}

Result<FfnWeights> bindFfn(const ModelConfig& c, const TensorSource& source, ModelFormat format, ScaleCheck scales,
                           int i) {
    auto matrix = [&](TensorRole role, int64_t rows, int64_t cols) {
        return bindMatrix(scales, source, tensorName(role, format, i), tensorName(role, ModelFormat::Gguf, i), rows, cols);
    };
    FfnWeights f;
    HEARTH_ASSIGN(f.norm, source.vector(tensorName(ffnNormRole(c), format, i), c.hidden));
    HEARTH_ASSIGN(f.gate, matrix(TensorRole::Gate, c.ffn, c.hidden));
    HEARTH_ASSIGN(f.up, matrix(TensorRole::Up, c.ffn, c.hidden));
    HEARTH_ASSIGN(f.down, matrix(TensorRole::Down, c.hidden, c.ffn));
    return f;
}

// Gains stored as w for a norm that multiplies by 1 + w become 1 + w (what a GGUF stores), in
// fp32 as transformers adds them. The Gated DeltaNet's output norm is a plain gain.
void addUnitOffset(ModelWeights& w) {
    auto add = [](std::vector<float>& v) { for (float& x : v) x += 1.0f; };
    add(w.outputNorm);
    for (LayerWeights& l : w.layers) {
        add(l.attention.norm);
        add(l.attention.qNorm);
        add(l.attention.kNorm);
        add(l.deltaNet.norm);
        add(l.ffn.norm);
    }
}

} // namespace

Result<ModelWeights> bindWeights(const ModelConfig& c, const TensorSource& source, ModelFormat format,
                                 ScaleCheck scales) {
    ModelWeights w;
    w.storage = source.storage;
    if (c.heads % c.kvHeads != 0)
        return dataLoss(source.fileName + ": " + std::to_string(c.heads) + " attention heads are not a multiple of " +
                        std::to_string(c.kvHeads) + " key/value heads");
    if (c.headDim % 2 != 0) return dataLoss(source.fileName + ": head dimension must be even for RoPE");
    if (c.layerKinds.size() != size_t(c.layers))
        return dataLoss(source.fileName + ": " + std::to_string(c.layerKinds.size()) + " layer kinds for " +
                        std::to_string(c.layers) + " layers");

    const std::string gguf = tensorName(TensorRole::TokenEmbedding, ModelFormat::Gguf);
    HEARTH_ASSIGN(w.tokenEmbedding, bindMatrix(scales, source, tensorName(TensorRole::TokenEmbedding, format), gguf,
                                               c.vocabSize, c.hidden));
    HEARTH_ASSIGN(w.outputNorm, source.vector(tensorName(TensorRole::OutputNorm, format), c.hidden));
    const std::string headName = tensorName(TensorRole::Output, format);
    if (source.find(headName)) {
        HEARTH_ASSIGN(w.output, bindMatrix(scales, source, headName, tensorName(TensorRole::Output, ModelFormat::Gguf),
                                           c.vocabSize, c.hidden));
    } else if (c.tiedEmbeddings || format == ModelFormat::Gguf) {
        w.output = w.tokenEmbedding;
    } else {
        return notFound(source.fileName + ": missing tensor " + headName +
                        " (the config says the embeddings are not tied)");
    }

    w.layers.resize(c.layers);
    for (int i = 0; i < c.layers; ++i) {
        LayerWeights& l = w.layers[i];
        l.mixer = c.layerKinds[size_t(i)].mixer;
        switch (l.mixer) {
        case Mixer::Attention: {
            HEARTH_ASSIGN(l.attention, bindAttention(c, source, format, scales, i));
            break;
        }
        case Mixer::GatedDeltaNet: {
            HEARTH_ASSIGN(l.deltaNet, bindDeltaNet(c, source, format, scales, i));
            break;
        }
        }
        HEARTH_ASSIGN(l.ffn, bindFfn(c, source, format, scales, i));
    }
    if (c.unitOffsetNorms) addUnitOffset(w);
    return w;
}

} // namespace hearth
