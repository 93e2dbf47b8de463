// GGUF → ModelConfig: llama.cpp's key names (%s = general.architecture).
#include "io/gguf.h"
#include "io/gguf_keys.h"
#include "model/arch/arch.h"
#include "model/model_loader.h"
#include "model/sampling_defaults.h"
#include "quant/dequantize.h"

namespace hearth {
namespace {

Result<int32_t> readDim(const io::GgufFile& file, const std::string& key, uint64_t maxValue = 1u << 24) {
    HEARTH_ASSIGN(uint64_t value, file.getUInt(key));
    if (value == 0 || value > maxValue)
        return dataLoss(file.path() + ": key " + key + " has implausible value " + std::to_string(value));
    return static_cast<int32_t>(value);
}

Status readRopeScaling(const io::GgufFile& file, const std::string& arch, RopeParams& rope) {
    const std::string prefix = gguf_key::archKey(arch, gguf_key::kRopeScaling);
    if (!file.find(prefix + "type")) return Status::ok();
    HEARTH_ASSIGN(std::string type, file.getString(prefix + "type"));
    if (type == "none") return Status::ok();
    if (type == "linear") rope.scaling = RopeScaling::Linear;
    else if (type == "yarn") rope.scaling = RopeScaling::Yarn;
    else if (type == "llama3") rope.scaling = RopeScaling::Llama3;
    else return unsupported(file.path() + ": key " + prefix + "type: unknown RoPE scaling type '" + type + "'");
    if (file.find(prefix + "factor")) {
        HEARTH_ASSIGN(double factor, file.getFloat(prefix + "factor"));
        if (!(factor > 0)) return dataLoss(file.path() + ": key " + prefix + "factor must be positive");
        rope.factor = float(factor);
    }
    if (file.find(prefix + "original_context_length")) {
        HEARTH_ASSIGN(rope.originalContext, readDim(file, prefix + "original_context_length"));
    } else if (rope.scaling != RopeScaling::Linear) {
        return notFound(file.path() + ": missing key " + prefix + "original_context_length");
    }
    if (file.find(prefix + "yarn_beta_fast")) {
        HEARTH_ASSIGN(double v, file.getFloat(prefix + "yarn_beta_fast"));
        rope.yarnBetaFast = float(v);
    }
    if (file.find(prefix + "attn_factor")) {
        HEARTH_ASSIGN(double v, file.getFloat(prefix + "attn_factor"));
        if (v > 0) rope.yarnAttentionFactor = float(v);
    }
    if (file.find(prefix + "yarn_beta_slow")) {
        HEARTH_ASSIGN(double v, file.getFloat(prefix + "yarn_beta_slow"));
        rope.yarnBetaSlow = float(v);
    }
    return Status::ok();
}

// head_count_kv: one number, or (some hybrid models' files) one per layer with 0 for layers
// without attention; the attention layers must agree.
Result<int32_t> readKvHeads(const io::GgufFile& file, const std::string& key) {
    const io::GgufValue* value = file.find(key);
    const auto* items = value ? value->asArray() : nullptr;
    if (!items) return readDim(file, key, 65536);
    uint64_t heads = 0;
    for (const io::GgufValue& v : *items) {
        const uint64_t n = v.asUInt().value_or(0);
        if (n == 0) continue;
        if (heads != 0 && n != heads)
            return unsupported(file.path() + ": key " + key + " gives the layers different KV head counts (" +
                               std::to_string(heads) + " and " + std::to_string(n) + ")");
        heads = n;
    }
    if (heads == 0 || heads > 65536) return dataLoss(file.path() + ": key " + key + " names no KV head count");
    return int32_t(heads);
}

} // namespace

Result<ModelConfig> configFromGguf(const io::GgufFile& file) {
    ModelConfig c;
    HEARTH_ASSIGN(std::string arch, file.getString(gguf_key::kArchitecture));
    const ArchSpec* spec = findArchByGgufName(arch);
    if (arch == "clip") // llama.cpp's mmproj files: a vision encoder and projector, no text model
        return unsupported(file.path() + ": general.architecture is 'clip': this file holds only a vision encoder "
                           "(an mmproj file), no language model; open the model's main GGUF");
    if (!spec)
        return unsupported(file.path() + ": unsupported architecture '" + arch + "' (supported: " +
                           supportedArchitectures() + ")");
    c.arch = spec->arch;
    if (auto name = file.getString(gguf_key::kName); name.isOk()) c.name = name.value();
    if (auto license = file.getString(gguf_key::kLicense); license.isOk()) c.license = license.value();
    c.sampling = samplingHintsFromGguf(file);

    HEARTH_ASSIGN(c.hidden, readDim(file, gguf_key::archKey(arch, gguf_key::kEmbeddingLength)));
    HEARTH_ASSIGN(c.layers, readDim(file, gguf_key::archKey(arch, gguf_key::kBlockCount), 4096));
    HEARTH_ASSIGN(c.ffn, readDim(file, gguf_key::archKey(arch, gguf_key::kFeedForwardLength)));
    HEARTH_ASSIGN(c.heads, readDim(file, gguf_key::archKey(arch, gguf_key::kHeadCount), 65536));
    c.kvHeads = c.heads;
    if (file.find(gguf_key::archKey(arch, gguf_key::kHeadCountKv))) {
        HEARTH_ASSIGN(c.kvHeads, readKvHeads(file, gguf_key::archKey(arch, gguf_key::kHeadCountKv)));
    }
    HEARTH_ASSIGN(c.contextLength, readDim(file, gguf_key::archKey(arch, gguf_key::kContextLength), 1u << 30));
    c.headDim = c.hidden / c.heads;
    if (file.find(gguf_key::archKey(arch, gguf_key::kKeyLength))) {
        HEARTH_ASSIGN(c.headDim, readDim(file, gguf_key::archKey(arch, gguf_key::kKeyLength), 65536));
    }
    if (file.find(gguf_key::archKey(arch, gguf_key::kValueLength))) {
        HEARTH_ASSIGN(int32_t valueLength, readDim(file, gguf_key::archKey(arch, gguf_key::kValueLength), 65536));
        if (valueLength != c.headDim)
            return unsupported(file.path() + ": key " + arch + ".attention.value_length (" +
                               std::to_string(valueLength) + ") differs from key_length (" +
                               std::to_string(c.headDim) + ")");
    }
    HEARTH_ASSIGN(double eps, file.getFloat(gguf_key::archKey(arch, gguf_key::kRmsEpsilon)));
    c.rmsEps = float(eps);
    if (file.find(gguf_key::archKey(arch, gguf_key::kRopeFreqBase))) {
        HEARTH_ASSIGN(double theta, file.getFloat(gguf_key::archKey(arch, gguf_key::kRopeFreqBase)));
        c.rope.theta = float(theta);
    }
    c.rope.dims = c.headDim;
    if (file.find(gguf_key::archKey(arch, gguf_key::kRopeDimensionCount))) {
        HEARTH_ASSIGN(c.rope.dims, readDim(file, gguf_key::archKey(arch, gguf_key::kRopeDimensionCount), 65536));
        if (c.rope.dims > c.headDim || c.rope.dims % 2 != 0)
            return dataLoss(file.path() + ": key " + arch + ".rope.dimension_count (" + std::to_string(c.rope.dims) +
                            ") must be even and at most the head dimension (" + std::to_string(c.headDim) + ")");
    }
    HEARTH_TRY(readRopeScaling(file, arch, c.rope));

    const io::GgufTensorInfo* embd = file.findTensor("token_embd.weight");
    if (!embd) return notFound(file.path() + ": missing tensor token_embd.weight");
    if (embd->ne.size() != 2)
        return dataLoss(file.path() + ": tensor token_embd.weight must be 2-D");
    c.vocabSize = static_cast<int32_t>(embd->ne[1]);
    if (file.find(gguf_key::archKey(arch, gguf_key::kVocabSize))) {
        HEARTH_ASSIGN(uint64_t vocab, file.getUInt(gguf_key::archKey(arch, gguf_key::kVocabSize)));
        if (vocab != uint64_t(c.vocabSize))
            return dataLoss(file.path() + ": key " + arch + ".vocab_size is " + std::to_string(vocab) +
                            " but token_embd.weight has " + std::to_string(c.vocabSize) + " rows");
    }
    c.tiedEmbeddings = file.findTensor("output.weight") == nullptr;
    if (spec->ggufKeys) HEARTH_TRY(spec->ggufKeys(c, file));
    HEARTH_TRY(spec->conventions(c, ModelFormat::Gguf, nullptr, file.path()));

    // Llama 3.1: per-frequency factors stored as a tensor.
    if (const io::GgufTensorInfo* freqs = file.findTensor("rope_freqs.weight")) {
        if (freqs->type != DType::F32 || freqs->ne.size() != 1 || freqs->ne[0] != uint64_t(c.rope.dims / 2))
            return dataLoss(file.path() + ": tensor rope_freqs.weight must be F32 [" +
                            std::to_string(c.rope.dims / 2) + "]");
        c.rope.freqFactors.resize(c.rope.dims / 2);
        dequantizeRow(DType::F32, freqs->data, c.rope.freqFactors.data(), c.rope.dims / 2);
    }
    return c;
}

TensorSource tensorSourceFromGguf(const io::GgufFile& file) {
    TensorSource source;
    source.fileName = file.path();
    source.ggmlOrder = true;
    for (const auto& part : file.mappings()) source.storage.push_back(part);
    for (const io::GgufTensorInfo& t : file.tensors()) {
        SourceTensor s;
        s.name = t.name;
        s.type = t.type;
        s.dimCount = int(t.ne.size());
        s.cols = int64_t(t.ne[0]);
        s.rows = 1;
        for (size_t i = 1; i < t.ne.size(); ++i) s.rows *= int64_t(t.ne[i]);
        s.shapeText = "[";
        for (size_t i = 0; i < t.ne.size(); ++i) s.shapeText += (i ? "," : "") + std::to_string(t.ne[i]);
        s.shapeText += "]";
        s.data = t.data;
        s.bytes = t.bytes;
        source.tensors.emplace(s.name, std::move(s));
    }
    return source;
}

Result<ModelDescription> describeGguf(const std::string& path) {
    HEARTH_ASSIGN(io::GgufFile file, io::GgufFile::openModel(path));
    ModelDescription d;
    d.path = path;
    d.format = ModelFormat::Gguf;
    HEARTH_ASSIGN(d.config, configFromGguf(file));
    addSamplingBeside(path, d.config.sampling);
    d.tensors = tensorSourceFromGguf(file);
    return d;
}

} // namespace hearth
