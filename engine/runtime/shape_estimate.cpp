// The memory estimate of a model that exists only as a shape (hearth/memory.h
// estimateMemoryForShape): the synth planner lays out the tensor table a quantizer of the preset
// would write, and the estimate runs on that table exactly as on a file's.
#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hearth/memory.h"
#include "model/arch/arch.h"
#include "model/quantize_model.h"
#include "runtime/model_info.h"
#include "synth/synth.h"

namespace hearth {
namespace {

Status checkSizes(std::initializer_list<std::pair<const char*, int32_t>> sizes) {
    for (const auto& [name, value] : sizes)
        if (value <= 0) return invalidArgument(std::string("the shape's ") + name + " must be > 0, got " + std::to_string(value));
    return Status::ok();
}

Status checkShape(const ModelShape& s) {
    HEARTH_TRY(checkSizes({{"vocabSize", s.vocabSize}, {"hidden", s.hidden}, {"layers", s.layers}, {"heads", s.heads},
                           {"kvHeads", s.kvHeads}, {"headDim", s.headDim}, {"ffn", s.ffn},
                           {"contextLength", s.contextLength}}));
    if (s.ropeDims < 0 || s.ropeDims > s.headDim || s.ropeDims % 2 != 0)
        return invalidArgument("the shape's ropeDims must be even and at most headDim (" + std::to_string(s.headDim) +
                               "), got " + std::to_string(s.ropeDims));
    return Status::ok();
}

// The Gated DeltaNet sizes of a hybrid shape: each must be given.
Status checkDeltaNetShape(const ModelShape& s) {
    HEARTH_TRY(checkSizes({{"linearKeyHeads", s.linearKeyHeads}, {"linearValueHeads", s.linearValueHeads},
                           {"linearKeyDim", s.linearKeyDim}, {"linearValueDim", s.linearValueDim},
                           {"linearConvKernel", s.linearConvKernel}}));
    if (s.linearValueHeads % s.linearKeyHeads != 0)
        return invalidArgument("the shape's linearValueHeads (" + std::to_string(s.linearValueHeads) +
                               ") must be a multiple of linearKeyHeads (" + std::to_string(s.linearKeyHeads) + ")");
    if (s.fullAttentionInterval < 1 || s.fullAttentionInterval > s.layers)
        return invalidArgument("the shape's fullAttentionInterval must be 1 to layers (" + std::to_string(s.layers) +
                               "), got " + std::to_string(s.fullAttentionInterval));
    return Status::ok();
}

bool hasDeltaNetLayers(const ModelConfig& c) {
    return std::any_of(c.layerKinds.begin(), c.layerKinds.end(),
                       [](const LayerKind& k) { return k.mixer == Mixer::GatedDeltaNet; });
}

Result<ModelConfig> configOf(const ModelShape& s) {
    HEARTH_TRY(checkShape(s));
    const ArchSpec* spec = findArchByGgufName(s.architecture);
    if (!spec)
        return unsupported("architecture '" + s.architecture + "' is not supported (supported: " +
                           supportedArchitectures() + ")");
    ModelConfig c;
    c.arch = spec->arch;
    c.name = s.architecture + " shape";
    c.vocabSize = s.vocabSize;
    c.hidden = s.hidden;
    c.layers = s.layers;
    c.heads = s.heads;
    c.kvHeads = s.kvHeads;
    c.headDim = s.headDim;
    c.ffn = s.ffn;
    c.contextLength = s.contextLength;
    c.tiedEmbeddings = s.tiedEmbeddings;
    c.rope.dims = s.ropeDims > 0 ? s.ropeDims : s.headDim;
    // Whether the architecture has DeltaNet layers: what its conventions make of a shape with no
    // layer list (their status is not asked: they refuse the sizes this probe leaves out).
    ModelConfig probe = c;
    (void)spec->conventions(probe, ModelFormat::Gguf, nullptr, c.name);
    if (hasDeltaNetLayers(probe)) {
        HEARTH_TRY(checkDeltaNetShape(s));
        // As a GGUF of the shape would hold them (value heads tiled), the layer kinds as its
        // full_attention_interval says.
        c.deltaNet = {s.linearKeyHeads, s.linearValueHeads, s.linearKeyDim, s.linearValueDim, s.linearConvKernel,
                      ValueHeadOrder::Tiled};
        arch::hybridLayers(c, s.fullAttentionInterval);
    }
    if (const Status set = spec->conventions(c, ModelFormat::Gguf, nullptr, c.name); !set.isOk())
        return invalidArgument("architecture '" + s.architecture + "' cannot be estimated from this shape: " + set.message());
    return c;
}

// The planned tensors as a file's tensor table. Vectors (norms, biases) point at zeros, since
// binding converts them; each matrix gets an address of its own that is never read (the estimate
// binds with ScaleCheck::Skip) but tells tied and untied heads apart.
TensorSource tableOf(const SynthPlan& plan) {
    TensorSource source;
    source.fileName = plan.shapeName;
    uint64_t longestVector = 0;
    for (const SynthTensor& t : plan.tensors)
        if (t.ne.size() == 1) longestVector = std::max(longestVector, t.bytes);
    auto zeros = std::make_shared<std::vector<uint8_t>>(longestVector, uint8_t(0));
    auto addresses = std::make_shared<std::vector<uint8_t>>(plan.tensors.size(), uint8_t(0));
    for (size_t i = 0; i < plan.tensors.size(); ++i) {
        const SynthTensor& t = plan.tensors[i];
        SourceTensor s;
        s.name = t.name;
        s.type = t.type;
        s.cols = t.rowLength();
        s.rows = t.rows();
        s.dimCount = int(t.ne.size());
        s.bytes = t.bytes;
        s.shapeText = source.shapeText(s.rows, s.cols);
        s.data = t.ne.size() == 1 ? zeros->data() : addresses->data() + i;
        source.tensors.emplace(s.name, s);
    }
    source.storage.push_back(zeros);
    source.storage.push_back(addresses);
    return source;
}

} // namespace

Result<MemoryEstimate> estimateMemoryForShape(const ModelShape& shape, const MemoryEstimateParams& params,
                                              const DeviceInfo& device) {
    if (params.quant.empty()) return invalidArgument("a shape's estimate needs the weights' preset (e.g. Q4_K_M)");
    if (params.contextLength < 0) return invalidArgument("context length must be >= 0");
    if (device.kind == DeviceKind::Auto) return invalidArgument("the device must be the CPU or a CUDA device");
    SynthParams synth;
    HEARTH_ASSIGN(synth.preset, parsePresetOrError(params.quant));
    HEARTH_ASSIGN(synth.config, configOf(shape));
    HEARTH_ASSIGN(const SynthPlan plan, planSynthModel(synth));
    ModelDescription d;
    d.path = plan.shapeName;
    d.format = ModelFormat::Gguf;
    d.config = plan.config;
    d.tensors = tableOf(plan);
    MemoryEstimateParams asPlanned = params;
    asPlanned.quant.clear(); // the table already has the preset's types
    return estimateMemoryOn(d, asPlanned, device);
}

} // namespace hearth
