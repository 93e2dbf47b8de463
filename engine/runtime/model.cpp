// Model: a loaded, validated model and what it says about itself.
#include <algorithm>
#include <optional>

#include "backend/backend.h"
#include "hearth/model.h"
#include "model/model_loader.h"
#include "model/quantize_model.h"
#include "runtime/model_info.h"
#include "runtime/model_internal.h"

namespace hearth {

ModelInfo makeModelInfo(const std::string& path, ModelFormat format, const ModelConfig& c,
                        uint64_t parameterCount, const std::map<std::string, int>& typeCounts) {
    ModelInfo info;
    info.path = path;
    info.format = format == ModelFormat::Gguf ? "gguf" : "hf";
    info.architecture = architectureName(c.arch);
    info.name = c.name;
    info.license = c.license;
    info.vocabSize = c.vocabSize;
    info.hidden = c.hidden;
    info.layers = c.layers;
    info.heads = c.heads;
    info.kvHeads = c.kvHeads;
    info.headDim = c.headDim;
    info.ffn = c.ffn;
    info.contextLength = c.contextLength;
    if (c.rope.scaling != RopeScaling::None) {
        const int64_t base = c.rope.originalContext > 0 ? c.rope.originalContext : c.contextLength;
        const int64_t scaled = int64_t(double(base) * c.rope.factor);
        if (scaled > c.contextLength) info.ropeScaledContextLength = int32_t(std::min<int64_t>(scaled, INT32_MAX));
    }
    info.ropeTheta = c.rope.theta;
    info.rmsEps = c.rmsEps;
    info.ropeScaling = ropeScalingName(c.rope.scaling);
    info.ropePairing = c.rope.pairing == RopePairing::Adjacent ? "adjacent" : "rotate-half";
    info.tiedEmbeddings = c.tiedEmbeddings;
    info.parameterCount = parameterCount;
    info.tensorTypeCounts = typeCounts;
    info.notes = c.notes;
    const SamplingHints& s = c.sampling;
    info.sampling = {s.temperature, s.topK, s.topP, s.minP, s.repetitionPenalty, s.problems};
    return info;
}

struct Model::Impl {
    std::unique_ptr<LoadedModel> loaded;
    std::unique_ptr<DeviceModel> device; // the weights on the chosen device (after `loaded`: it refers to it)
    ModelInfo info;
    ModelParams params;
    DevicePlacement placement;
};

namespace {

// The budget check of ModelParams::vramBudgetBytes, before anything is allocated on the device.
Status checkBudget(const LoadedModel& m, const ModelParams& params, int32_t context, KvType kvType) {
    const ModelConfig& c = m.config;
    if (context <= 0) context = std::min(c.contextLength, 4096);
    const Footprint f = footprintOf(c, m.weights, context, kvType, DeviceKind::Cuda);
    if (f.total() <= params.vramBudgetBytes) return Status::ok();
    const int32_t fits = largestFittingContext(c, m.weights, kvType, DeviceKind::Cuda, params.vramBudgetBytes,
                                               std::max(c.contextLength, context));
    return outOfMemory("the model needs " + gibText(f.total()) + " of GPU memory (weights " + gibText(f.weights) +
                       ", KV cache " + gibText(f.kvCache) + " for " + std::to_string(context) + " tokens, " +
                       (f.recurrentState > 0 ? "recurrent state " + gibText(f.recurrentState) + ", " : "") + "workspace " +
                       gibText(f.workspace) + ", CUDA context " + gibText(f.deviceContext) + "), more than the " +
                       gibText(params.vramBudgetBytes) + " budget; " +
                       (fits > 0 ? "the longest context that fits is " + std::to_string(fits) + " tokens"
                                 : "not even the weights fit: choose a smaller quant"));
}

// Resolves Auto: the asked-for GPU when CUDA lists it and its kernels take the model's shape,
// else the CPU with the reason.
DevicePlacement choosePlacement(const ModelParams& params, const ModelConfig& config) {
    DevicePlacement p;
    p.index = params.device == DeviceKind::Cuda ? params.gpu : 0;
    if (params.device != DeviceKind::Auto) {
        p.kind = params.device;
        p.why = "asked for";
        return p;
    }
    const DeviceReport& report = probeDevices();
    for (const DeviceInfo& d : report.devices)
        if (d.kind == DeviceKind::Cuda && d.index == params.gpu) {
            if (const std::string why = cudaUnsupportedReason(cudaShapeOf(config)); !why.empty()) {
                p.kind = DeviceKind::Cpu;
                p.why = "auto: the CUDA backend cannot run this model's shape (" + why + ")";
                return p;
            }
            p.kind = DeviceKind::Cuda;
            p.index = d.index;
            p.why = "auto: CUDA device " + std::to_string(d.index) + " is usable";
            return p;
        }
    p.kind = DeviceKind::Cpu;
    p.cudaUnavailable = report.cudaUnavailable;
    p.why = report.cudaUnavailable != CudaUnavailable::None
                ? "auto: " + report.cudaUnavailableReason
                : "auto: there is no CUDA device " + std::to_string(params.gpu);
    return p;
}

} // namespace

const char* loadPhaseName(LoadPhase phase) {
    switch (phase) {
    case LoadPhase::Reading: return "reading the model";
    case LoadPhase::Converting: return "converting on the CPU";
    case LoadPhase::Uploading: return "uploading to the GPU";
    case LoadPhase::QuantizingOnGpu: return "quantizing on the GPU";
    }
    return "loading";
}

Result<ModelInfo> describeModelFile(const std::string& path) {
    HEARTH_ASSIGN(const ModelDescription d, describeModel(path));
    return makeModelInfo(d.path, d.format, d.config, d.tensors.parameterCount(), d.tensors.typeCounts());
}

Model::Model() : m_impl(std::make_unique<Impl>()) {}
Model::~Model() = default;

const LoadedModel& ModelAccess::loaded(const Model& model) { return *model.m_impl->loaded; }
const DeviceModel& ModelAccess::device(const Model& model) { return *model.m_impl->device; }

Result<std::unique_ptr<Model>> Model::load(const ModelParams& params) {
    if (params.threads < 0) return invalidArgument("threads must be >= 0");
    std::optional<QuantPreset> preset;
    if (!params.quant.empty()) { // before loading: a typo should not cost a load
        HEARTH_ASSIGN(preset, parsePresetOrError(params.quant));
    }
    auto report = [&](double fraction, LoadPhase phase) {
        if (params.onProgress) params.onProgress(fraction, phase);
    };
    auto stopped = [&] { return params.cancel && params.cancel->load(std::memory_order_relaxed); };
    report(0, LoadPhase::Reading);
    if (stopped()) return cancelled(params.path + ": loading was cancelled");
    HEARTH_ASSIGN(LoadedModel loaded, loadModel(params.path));
    const DevicePlacement placement = choosePlacement(params, loaded.config);
    bool quantizeOnGpu = false; // the preset's conversions happen during the upload
    if (preset && placement.kind == DeviceKind::Cuda) {
        HEARTH_ASSIGN(quantizeOnGpu, deferPreset(loaded, *preset, params.allowRequantize));
    }
    if (preset && !quantizeOnGpu) {
        PresetProgress progress;
        progress.cancel = params.cancel;
        progress.onMatrix = [&](int done, int total) {
            report(0.05 + 0.9 * done / std::max(total, 1), LoadPhase::Converting);
        };
        report(0.05, LoadPhase::Converting);
        HEARTH_TRY(applyPreset(loaded, *preset, params.allowRequantize, params.threads, progress));
    }
    if (stopped()) return cancelled(params.path + ": loading was cancelled");
    std::unique_ptr<Model> model(new Model());
    Impl& d = *model->m_impl;
    d.info = makeModelInfo(loaded.path, loaded.format, loaded.config, loaded.parameterCount, loaded.tensorTypeCounts);
    d.loaded = std::make_unique<LoadedModel>(std::move(loaded));
    d.placement = placement;
    if (d.placement.kind == DeviceKind::Cuda && params.vramBudgetBytes > 0)
        HEARTH_TRY(checkBudget(*d.loaded, params, params.budgetContextLength, params.budgetKvType));
    DeviceModelParams placed;
    placed.kind = d.placement.kind;
    placed.threads = params.threads;
    placed.fastCpuKernels = params.cpuKernels == CpuKernels::Fast;
    placed.gpu = params.gpu;
    placed.cancel = params.cancel;
    const double uploadFrom = preset && !quantizeOnGpu ? 0.95 : 0.05;
    const LoadPhase uploadPhase = d.placement.kind != DeviceKind::Cuda ? LoadPhase::Reading
                                  : quantizeOnGpu                      ? LoadPhase::QuantizingOnGpu
                                                                       : LoadPhase::Uploading;
    placed.onProgress = [&](double f) { report(uploadFrom + (0.999 - uploadFrom) * f, uploadPhase); };
    HEARTH_ASSIGN(d.device, createDeviceModel(*d.loaded, placed));
    d.placement.name = d.device->deviceInfo().name;
    d.params = params;
    d.params.onProgress = nullptr; // the caller's callback and flag need not outlive the load
    d.params.cancel = nullptr;
    report(1, uploadPhase);
    return model;
}

const ModelInfo& Model::info() const { return m_impl->info; }
const ModelParams& Model::params() const { return m_impl->params; }
const DevicePlacement& Model::placement() const { return m_impl->placement; }

Status ModelAccess::checkSessionBudget(const Model& model, int32_t context, KvType kvType) {
    const Model::Impl& d = *model.m_impl;
    if (d.placement.kind != DeviceKind::Cuda || d.params.vramBudgetBytes == 0) return Status::ok();
    return checkBudget(*d.loaded, d.params, context, kvType);
}

int32_t ModelAccess::defaultContextLength(const Model& model, KvType kvType) {
    constexpr int32_t kFallback = 4096; // when the model states no context, or nothing fits
    constexpr int32_t kRound = 256;
    const Model::Impl& d = *model.m_impl;
    const ModelConfig& c = d.loaded->config;
    const int32_t trained = c.contextLength > 0 ? c.contextLength : kFallback;
    const DeviceKind kind = d.placement.kind;
    const Footprint fixed = footprintOf(c, d.loaded->weights, 0, kvType, kind); // weights, context
    uint64_t limit = 0;
    if (kind == DeviceKind::Cuda && d.params.vramBudgetBytes > 0) {
        limit = d.params.vramBudgetBytes;
    } else {
        // Free memory now excludes what this model already holds, so add that back.
        const DeviceInfo now = d.device->deviceInfo();
        const uint64_t margin = kind == DeviceKind::Cuda ? std::max<uint64_t>(512ull << 20, now.totalBytes / 32) : 0;
        const uint64_t spare = kind == DeviceKind::Cuda ? now.freeBytes - std::min(now.freeBytes, margin)
                                                        : now.freeBytes / 4;
        limit = fixed.weights + fixed.deviceContext + spare;
    }
    const int32_t fits = largestFittingContext(c, d.loaded->weights, kvType, kind, limit, trained);
    if (fits == trained) return trained;
    if (fits >= kRound) return fits / kRound * kRound;
    return std::min(trained, kFallback); // nothing useful fits: Session::create then says so, with numbers
}

std::vector<int32_t> Model::encode(std::string_view text, bool addBos) const {
    return m_impl->loaded->tokenizer->encode(text, addBos, /*parseSpecial=*/false);
}

std::string Model::decode(const std::vector<int32_t>& ids) const { return m_impl->loaded->tokenizer->decode(ids); }

const std::vector<int32_t>& Model::endOfGenerationIds() const { return m_impl->loaded->endOfGenerationIds; }

} // namespace hearth
