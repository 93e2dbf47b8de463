// Synthetic models: the tensor plan (llama.cpp names and order, types from the preset planner)
// and the GGUF metadata; synth_writer.cpp streams the result to disk.
#include "synth/synth.h"
#include "io/gguf_keys.h"
#include "model/gguf_hparams.h"

#include <chrono>
#include <filesystem>

#include "synth/synth_internal.h"
#include "model/tensor_names.h"

namespace hearth {
namespace {

using io::GgufValue;

bool synthCanFill(DType type) {
    switch (type) {
    case DType::F32: case DType::F16: case DType::BF16: case DType::Q8_0: case DType::Q4_0:
    case DType::Q5_0: case DType::Q4_K: case DType::Q5_K: case DType::Q6_K: return true;
    default: return false;
    }
}

// The feed-forward block of layer `layer` (its norm under the architecture's name).
template <typename Add>
void planFfn(const ModelConfig& c, int layer, Add& add) {
    const uint64_t hidden = uint64_t(c.hidden), ffn = uint64_t(c.ffn);
    auto name = [&](TensorRole role) { return tensorName(role, ModelFormat::Gguf, layer); };
    add(name(ffnNormRole(c)), {hidden}, SynthFill::Norm);
    add(name(TensorRole::Gate), {hidden, ffn}, SynthFill::Weights);
    add(name(TensorRole::Up), {hidden, ffn}, SynthFill::Weights);
    add(name(TensorRole::Down), {ffn, hidden}, SynthFill::Weights);
}

// A Gated DeltaNet layer's mixer in llama.cpp's shapes. The decay parameters are fixed, as
// transformers initialises them: dt_bias 1 and A spread over (0, 16), ssm_a = -A.
template <typename Add>
void planDeltaNet(const ModelConfig& c, Add add) {
    const DeltaNetDims& d = c.deltaNet;
    const uint64_t hidden = uint64_t(c.hidden), heads = uint64_t(d.valueHeads), values = uint64_t(d.valueWidth());
    add(TensorRole::DeltaQkv, {hidden, uint64_t(d.convChannels())}, SynthFill::Weights);
    add(TensorRole::DeltaGate, {hidden, values}, SynthFill::Weights);
    add(TensorRole::DeltaConv, {uint64_t(d.convKernel), uint64_t(d.convChannels())}, SynthFill::Weights);
    add(TensorRole::DeltaDtBias, {heads}, SynthFill::Fixed).fixedValues.assign(heads, 1.0f);
    std::vector<float> negA(heads);
    for (uint64_t h = 0; h < heads; ++h) negA[h] = -16.0f * (float(h) + 0.5f) / float(heads);
    add(TensorRole::DeltaA, {heads}, SynthFill::Fixed).fixedValues = std::move(negA);
    add(TensorRole::DeltaBeta, {hidden, heads}, SynthFill::Weights);
    add(TensorRole::DeltaAlpha, {hidden, heads}, SynthFill::Weights);
    add(TensorRole::DeltaNorm, {uint64_t(d.valueDim)}, SynthFill::Norm);
    add(TensorRole::DeltaOut, {values, hidden}, SynthFill::Weights);
}

} // namespace

int64_t SynthTensor::rows() const {
    int64_t r = 1;
    for (size_t i = 1; i < ne.size(); ++i) r *= int64_t(ne[i]);
    return r;
}

Result<SynthPlan> planSynthModel(const SynthParams& params) {
    SynthPlan plan;
    HEARTH_ASSIGN(plan.config, synth::resolveConfig(params, plan.shapeName));
    const ModelConfig& c = plan.config;
    PresetPlanner planner(params.preset, c.layers, c.tiedEmbeddings);
    Status problem;
    auto add = [&](std::string name, std::vector<uint64_t> ne, SynthFill fill) -> SynthTensor& {
        SynthTensor t;
        t.type = planner.typeFor(name, int(ne.size()), int64_t(ne[0]));
        t.name = std::move(name);
        t.ne = std::move(ne);
        t.fill = fill;
        if (!synthCanFill(t.type) && problem.isOk())
            problem = unsupported("synth cannot generate " + std::string(dtypeName(t.type)) + " (tensor " + t.name + ")");
        t.bytes = rowBytes(t.type, t.ne[0]).value_or(0) * uint64_t(t.rows());
        plan.parameterCount += t.ne[0] * uint64_t(t.rows());
        plan.tensors.push_back(std::move(t));
        return plan.tensors.back();
    };
    const uint64_t hidden = uint64_t(c.hidden), q = uint64_t(c.heads) * c.headDim, kv = uint64_t(c.kvHeads) * c.headDim;
    const uint64_t vocab = uint64_t(c.vocabSize), headDim = uint64_t(c.headDim);
    constexpr ModelFormat gguf = ModelFormat::Gguf;
    add(tensorName(TensorRole::TokenEmbedding, gguf), {hidden, vocab}, SynthFill::Weights);
    if (c.rope.scaling == RopeScaling::Llama3) {
        SynthTensor& freqs = add(tensorName(TensorRole::RopeFreqs, gguf), {uint64_t(c.rope.dims / 2)}, SynthFill::Fixed);
        freqs.fixedValues = synth::llama3FrequencyFactors(c.rope);
    }
    for (int l = 0; l < c.layers; ++l) {
        auto name = [&](TensorRole role) { return tensorName(role, gguf, l); };
        add(name(TensorRole::AttnNorm), {hidden}, SynthFill::Norm);
        if (!c.isAttention(l)) {
            planDeltaNet(c, [&](TensorRole role, std::vector<uint64_t> ne, SynthFill fill) -> SynthTensor& {
                return add(name(role), std::move(ne), fill);
            });
            planFfn(c, l, add);
            continue;
        }
        add(name(TensorRole::Q), {hidden, c.attnOutputGate ? 2 * q : q}, SynthFill::Weights);
        add(name(TensorRole::K), {hidden, kv}, SynthFill::Weights);
        add(name(TensorRole::V), {hidden, kv}, SynthFill::Weights);
        if (c.attnBias) {
            add(name(TensorRole::QBias), {q}, SynthFill::Bias);
            add(name(TensorRole::KBias), {kv}, SynthFill::Bias);
            add(name(TensorRole::VBias), {kv}, SynthFill::Bias);
        }
        if (c.qkNorm) {
            add(name(TensorRole::QNorm), {headDim}, SynthFill::Norm);
            add(name(TensorRole::KNorm), {headDim}, SynthFill::Norm);
        }
        add(name(TensorRole::O), {q, hidden}, SynthFill::Weights);
        planFfn(c, l, add);
    }
    add(tensorName(TensorRole::OutputNorm, gguf), {hidden}, SynthFill::Norm);
    if (!c.tiedEmbeddings) add(tensorName(TensorRole::Output, gguf), {hidden, vocab}, SynthFill::Weights);
    HEARTH_TRY(problem);

    constexpr uint64_t kAlignment = 32;
    for (SynthTensor& t : plan.tensors) {
        t.offset = plan.dataBytes;
        plan.dataBytes += (t.bytes + kAlignment - 1) / kAlignment * kAlignment;
    }
    return plan;
}

Status writeSynthModel(const SynthParams& params, SynthSummary* summary) {
    const auto start = std::chrono::steady_clock::now();
    if (params.outputPath.empty()) return invalidArgument("no output path given");
    HEARTH_ASSIGN(SynthPlan plan, planSynthModel(params));
    const ModelConfig& c = plan.config;

    synth::Metadata m;
    m.emplace_back(gguf_key::kArchitecture, GgufValue::string(architectureName(c.arch)));
    m.emplace_back(gguf_key::kName, GgufValue::string(c.name));
    m.emplace_back(gguf_key::kFileType, GgufValue::u32(ggufFileType(params.preset)));
    if (presetIsQuantized(params.preset)) m.emplace_back(gguf_key::kQuantizationVersion, GgufValue::u32(2));
    for (auto& [key, value] : ggufArchitectureKeys(c)) m.emplace_back(key, std::move(value));
    HEARTH_TRY(synth::addTokenizer(params, c, m));
    // Provenance: enough to regenerate the same bytes.
    m.emplace_back("hearth.synth.shape", GgufValue::string(plan.shapeName));
    m.emplace_back("hearth.synth.preset", GgufValue::string(quantPresetName(params.preset)));
    m.emplace_back("hearth.synth.seed", GgufValue::u64(params.seed));

    HEARTH_TRY(synth::writeGguf(params.outputPath, m, plan, params.seed, params.threads, params.skipTensorData));
    if (summary) {
        std::error_code ec;
        summary->fileBytes = std::filesystem::file_size(params.outputPath, ec);
        summary->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        summary->plan = std::move(plan);
    }
    return Status::ok();
}

} // namespace hearth
