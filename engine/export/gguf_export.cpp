// LoadedModel → GGUF with llama.cpp's conventions (names, keys, Q/K order, tied output omitted).
#include "export/gguf_export.h"
#include "io/gguf_keys.h"
#include "model/gguf_hparams.h"
#include "model/tensor_names.h"

#include <cmath>
#include <cstring>
#include <set>

#include "model/quantize_model.h"

namespace hearth {
namespace {

using io::GgufValue;

// Records which keys were written so that verbatim copies from the source do not repeat them.
class Metadata {
public:
    explicit Metadata(io::GgufWriter& writer) : m_writer(writer) {}
    void set(const std::string& key, GgufValue value) {
        m_keys.insert(key);
        m_writer.set(key, std::move(value));
    }
    bool has(const std::string& key) const { return m_keys.count(key) != 0; }

private:
    io::GgufWriter& m_writer;
    std::set<std::string> m_keys;
};

// HF rotate-half rows (i, i + d/2) → GGUF adjacent pairs (2i, 2i+1), as llama.cpp's converter
// permutes llama's Q and K: new row h*d + 2i + c = old row h*d + c*d/2 + i. Whole rows move,
// so this works for any row type.
std::vector<uint8_t> permuteRows(const uint8_t* data, uint64_t rowBytes, int64_t rows, int headDim) {
    std::vector<uint8_t> out(rowBytes * uint64_t(rows));
    const int64_t heads = rows / headDim;
    for (int64_t h = 0; h < heads; ++h)
        for (int64_t i = 0; i < headDim / 2; ++i)
            for (int64_t c = 0; c < 2; ++c) {
                const int64_t from = h * headDim + c * headDim / 2 + i;
                const int64_t to = h * headDim + 2 * i + c;
                std::memcpy(out.data() + uint64_t(to) * rowBytes, data + uint64_t(from) * rowBytes, rowBytes);
            }
    return out;
}

// llama.cpp stores Llama 3 scaling as per-frequency divisors (rope_freqs.weight). They are
// derived from the final table, so GGUF-stored divisors and the llama3 rule both carry over.
std::vector<float> ropeFreqFactors(const RopeParams& rope) {
    if (rope.scaling != RopeScaling::Llama3) return rope.freqFactors;
    const RopeTable table = computeRopeTable(rope);
    std::vector<float> factors(table.inverseFrequencies.size());
    for (size_t i = 0; i < factors.size(); ++i) {
        const double base = 1.0 / std::pow(double(rope.theta), 2.0 * double(i) / rope.dims);
        factors[i] = float(base / table.inverseFrequencies[i]);
    }
    return factors;
}

// SentencePiece vocabularies are llama.cpp's "llama" model (pieces, scores, types); byte-level
// BPE is its "gpt2" model (pieces, types, merges, pre-tokenizer name), without scores.
void writeTokenizer(Metadata& meta, const Tokenizer& t) {
    const std::vector<std::string> merges = t.bpeMerges();
    const bool bpe = !merges.empty();
    const int32_t n = t.vocabSize();
    std::vector<std::string> pieces(static_cast<size_t>(n));
    std::vector<float> scores(static_cast<size_t>(n));
    std::vector<int32_t> kinds(static_cast<size_t>(n));
    int32_t unknown = -1;
    for (int32_t i = 0; i < n; ++i) {
        pieces[size_t(i)] = t.tokenPiece(i);
        scores[size_t(i)] = t.tokenScore(i);
        kinds[size_t(i)] = int32_t(t.tokenKind(i));
        if (unknown < 0 && t.tokenKind(i) == TokenKind::Unknown) unknown = i;
    }
    meta.set(gguf_key::kTokenizerModel, GgufValue::string(bpe ? "gpt2" : "llama"));
    if (bpe && !t.bpePreTokenizerName().empty())
        meta.set(gguf_key::kTokenizerPre, GgufValue::string(t.bpePreTokenizerName()));
    meta.set(gguf_key::kTokens, GgufValue::stringArray(pieces));
    if (!bpe) meta.set(gguf_key::kScores, GgufValue::f32Array(scores));
    meta.set(gguf_key::kTokenTypes, GgufValue::i32Array(kinds));
    if (bpe) meta.set(gguf_key::kMerges, GgufValue::stringArray(merges));
    if (t.bosId() >= 0) meta.set(gguf_key::kBosId, GgufValue::u32(uint32_t(t.bosId())));
    if (t.eosId() >= 0) meta.set(gguf_key::kEosId, GgufValue::u32(uint32_t(t.eosId())));
    if (unknown >= 0) meta.set(gguf_key::kUnknownId, GgufValue::u32(uint32_t(unknown)));
    meta.set(gguf_key::kAddBos, GgufValue::boolean(t.addsBos()));
    meta.set(gguf_key::kAddEos, GgufValue::boolean(t.addsEos()));
    if (!bpe) meta.set(gguf_key::kAddSpacePrefix, GgufValue::boolean(t.stripsLeadingSpace()));
}

class TensorWriter {
public:
    TensorWriter(io::GgufWriter& writer, const ModelConfig& c, bool permuteQk)
        : m_writer(writer), m_config(c), m_permute(permuteQk) {}

    void matrix(const WeightMatrix& m, const std::string& name, bool qk) {
        std::vector<uint64_t> ne{uint64_t(m.cols), uint64_t(m.rows)};
        if (qk && m_permute) {
            m_writer.addTensor(name, m.type, ne, permuteRows(m.data, m.rowBytes, m.rows, m_config.headDim));
            return;
        }
        m_writer.addTensorView(name, m.type, ne, m.data, m.bytes());
    }
    void vector(const std::vector<float>& v, const std::string& name, bool qk = false) {
        if (v.empty()) return;
        std::vector<uint8_t> bytes(v.size() * sizeof(float));
        std::memcpy(bytes.data(), v.data(), bytes.size());
        if (qk && m_permute) bytes = permuteRows(bytes.data(), sizeof(float), int64_t(v.size()), m_config.headDim);
        m_writer.addTensor(name, DType::F32, {uint64_t(v.size())}, std::move(bytes));
    }
    // An F32 matrix of `rows` rows of `cols` values held as floats (ssm_conv1d: ne [cols, rows]).
    void floatMatrix(const std::vector<float>& v, int64_t cols, const std::string& name) {
        std::vector<uint8_t> bytes(v.size() * sizeof(float));
        std::memcpy(bytes.data(), v.data(), bytes.size());
        m_writer.addTensor(name, DType::F32, {uint64_t(cols), uint64_t(v.size()) / uint64_t(cols)}, std::move(bytes));
    }

private:
    io::GgufWriter& m_writer;
    const ModelConfig& m_config;
    bool m_permute;
};

// Copies general.* and tokenizer.* keys of a GGUF source that were not written above (license,
// chat_template, merges, ...), so that re-typing a file keeps what it said about itself.
Status copySourceKeys(Metadata& meta, const LoadedModel& model) {
    if (model.format != ModelFormat::Gguf) return Status::ok();
    HEARTH_ASSIGN(io::GgufFile source, io::GgufFile::open(model.path)); // metadata: the first part
    for (const auto& [key, value] : source.metadata()) {
        const bool copied = key.rfind("general.", 0) == 0 || key.rfind("tokenizer.", 0) == 0;
        if (copied && !meta.has(key) && key != gguf_key::kQuantizationVersion) meta.set(key, value);
    }
    return Status::ok();
}

void writeFfn(TensorWriter& t, const FfnWeights& f, const ModelConfig& c, int layer) {
    auto name = [&](TensorRole role) { return tensorName(role, ModelFormat::Gguf, layer); };
    t.vector(f.norm, name(ffnNormRole(c)));
    t.matrix(f.gate, name(TensorRole::Gate), false);
    t.matrix(f.up, name(TensorRole::Up), false);
    t.matrix(f.down, name(TensorRole::Down), false);
}

// A Gated DeltaNet layer with llama.cpp's names; its values already as GGUF holds them (norm
// gains 1 + w, ssm_a = -exp(A_log), value heads tiled).
void writeDeltaNet(TensorWriter& t, const DeltaNetWeights& n, const DeltaNetDims& d, int layer) {
    auto name = [&](TensorRole role) { return tensorName(role, ModelFormat::Gguf, layer); };
    t.vector(n.norm, name(TensorRole::AttnNorm));
    t.matrix(n.qkv, name(TensorRole::DeltaQkv), false);
    t.matrix(n.gate, name(TensorRole::DeltaGate), false);
    t.floatMatrix(n.conv, d.convKernel, name(TensorRole::DeltaConv));
    t.vector(n.dtBias, name(TensorRole::DeltaDtBias));
    t.vector(n.negExpA, name(TensorRole::DeltaA));
    t.matrix(n.beta, name(TensorRole::DeltaBeta), false);
    t.matrix(n.alpha, name(TensorRole::DeltaAlpha), false);
    t.vector(n.outNorm, name(TensorRole::DeltaNorm));
    t.matrix(n.out, name(TensorRole::DeltaOut), false);
}

} // namespace

Result<io::GgufWriter> buildGgufWriter(const LoadedModel& model, QuantPreset preset) {
    const ModelConfig& c = model.config;
    const ModelWeights& w = model.weights;
    const std::string arch = architectureName(c.arch);
    if (!model.tokenizer) return failedPrecondition(model.path + ": the model has no tokenizer to export");
    if (c.deltaNetLayerCount() > 0 && c.deltaNet.order != ValueHeadOrder::Tiled)
        return failedPrecondition(model.path + ": the Gated DeltaNet value heads are in Hugging Face's grouped order; "
                                  "reorder them to llama.cpp's tiled order first (reorderValueHeadsToTiled)");
    io::GgufWriter writer;
    Metadata meta(writer);
    bool quantized = false;
    for (const WeightMatrix* m : {&w.tokenEmbedding, &w.output}) quantized |= isBlockQuantized(m->type);
    for (const LayerWeights& l : w.layers)
        for (const WeightMatrix* m : l.matrices()) quantized |= isBlockQuantized(m->type);

    meta.set(gguf_key::kArchitecture, GgufValue::string(arch));
    meta.set(gguf_key::kName, GgufValue::string(c.name));
    meta.set(gguf_key::kAlignment, GgufValue::u32(32));
    meta.set(gguf_key::kFileType, GgufValue::u32(ggufFileType(preset)));
    if (quantized) meta.set(gguf_key::kQuantizationVersion, GgufValue::u32(2));
    for (auto& [key, value] : ggufArchitectureKeys(c)) meta.set(key, std::move(value));
    writeTokenizer(meta, *model.tokenizer);
    HEARTH_TRY(copySourceKeys(meta, model));

    // An HF llama keeps Q/K in rotate-half order; GGUF llama is read with adjacent pairs.
    const bool permute = c.arch == Architecture::Llama && c.rope.pairing == RopePairing::RotateHalf;
    TensorWriter t(writer, c, permute);
    const std::vector<float> freqFactors = ropeFreqFactors(c.rope);
    constexpr ModelFormat gguf = ModelFormat::Gguf;
    t.vector(freqFactors, tensorName(TensorRole::RopeFreqs, gguf));
    t.matrix(w.tokenEmbedding, tensorName(TensorRole::TokenEmbedding, gguf), false);
    for (size_t i = 0; i < w.layers.size(); ++i) {
        const AttentionWeights& a = w.layers[i].attention;
        const FfnWeights& f = w.layers[i].ffn;
        auto name = [&](TensorRole role) { return tensorName(role, gguf, int(i)); };
        if (w.layers[i].mixer == Mixer::GatedDeltaNet) {
            writeDeltaNet(t, w.layers[i].deltaNet, c.deltaNet, int(i));
            writeFfn(t, f, c, int(i));
            continue;
        }
        t.vector(a.norm, name(TensorRole::AttnNorm));
        t.matrix(a.q, name(TensorRole::Q), true);
        t.vector(a.qBias, name(TensorRole::QBias), true);
        t.matrix(a.k, name(TensorRole::K), true);
        t.vector(a.kBias, name(TensorRole::KBias), true);
        t.matrix(a.v, name(TensorRole::V), false);
        t.vector(a.vBias, name(TensorRole::VBias));
        t.vector(a.qNorm, name(TensorRole::QNorm));
        t.vector(a.kNorm, name(TensorRole::KNorm));
        t.matrix(a.o, name(TensorRole::O), false);
        writeFfn(t, f, c, int(i));
    }
    t.vector(w.outputNorm, tensorName(TensorRole::OutputNorm, gguf));
    // A tied LM head is token_embd: llama.cpp reads a missing output.weight as tied.
    if (w.output.data != w.tokenEmbedding.data) t.matrix(w.output, tensorName(TensorRole::Output, gguf), false);
    return writer;
}

Status exportGguf(const LoadedModel& model, QuantPreset preset, const std::string& path) {
    HEARTH_ASSIGN(io::GgufWriter writer, buildGgufWriter(model, preset));
    return writer.write(path);
}

} // namespace hearth
