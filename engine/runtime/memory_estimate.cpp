// Memory needed to run a model: weights, KV cache, recurrent state, workspace, device context —
// computed from the file's header and tensor table only, so `inspect` and the app can ask before
// loading. Each device's figures follow its own allocation rules: the CPU session's buffers
// (cpuSessionBytes), the CUDA module's arenas (backend/cuda_memory_plan.h).
#include <algorithm>
#include <cstdio>

#include "backend/cuda_memory_plan.h"
#include "backend/cuda_tensor_table.h"
#include "hearth/memory.h"
#include "model/model_loader.h"
#include "model/quantize_model.h"
#include "runtime/model_info.h"

namespace hearth {

const char* kvTypeName(KvType type) {
    switch (type) {
    case KvType::F32: return "f32";
    case KvType::F16: return "f16";
    case KvType::BF16: return "bf16";
    }
    return "unknown";
}

namespace {

// The weights as the load would leave them: the tensor table bound without reading any data,
// each matrix retyped as `quant` plans it (none: as stored).
Result<ModelWeights> weightsAsLoaded(const ModelDescription& d, const std::string& quant) {
    HEARTH_ASSIGN(ModelWeights w, bindWeights(d.config, d.tensors, d.format, ScaleCheck::Skip));
    if (quant.empty()) return w;
    HEARTH_ASSIGN(const QuantPreset preset, parsePresetOrError(quant));
    const bool tied = w.output.data == w.tokenEmbedding.data;
    for (const PlannedTensor& p : planPreset(w, preset)) {
        p.matrix->type = p.to;
        p.matrix->rowBytes = rowBytes(p.to, uint64_t(p.matrix->cols)).value_or(0);
    }
    if (tied) w.output = w.tokenEmbedding;
    return w;
}

std::vector<CudaMatrixShape> cudaMatrixShapes(const ModelWeights& w) {
    std::vector<CudaMatrixShape> shapes{{w.output.rows, w.output.cols}};
    for (const LayerWeights& l : w.layers)
        for (const WeightMatrix* m : l.matrices()) shapes.push_back({m->rows, m->cols});
    return shapes;
}

// The device the estimate is for: the CPU read now, or a listed CUDA device (Auto: CUDA device
// `gpu` when listed, else the CPU).
Result<DeviceInfo> estimateDevice(DeviceKind kind, int32_t gpu) {
    if (kind == DeviceKind::Cpu) return probeCpuNow();
    const DeviceReport& report = probeDevices();
    for (const DeviceInfo& info : report.devices)
        if (info.kind == DeviceKind::Cuda && info.index == gpu) return info;
    if (kind == DeviceKind::Auto) return probeCpuNow();
    if (std::any_of(report.devices.begin(), report.devices.end(),
                    [](const DeviceInfo& info) { return info.kind == DeviceKind::Cuda; }))
        return notFound("there is no CUDA device " + std::to_string(gpu));
    return notFound(std::string("no cuda device: ") + report.cudaUnavailableReason);
}

} // namespace

CudaModelShape cudaShapeOf(const ModelConfig& c) {
    CudaModelShape s{c.vocabSize, c.hidden, c.attentionLayerCount(), c.heads, c.kvHeads, c.headDim, c.ffn};
    s.gatedAttention = c.attnOutputGate;
    s.gdnLayers = c.deltaNetLayerCount();
    if (s.gdnLayers > 0) {
        const DeltaNetDims& d = c.deltaNet;
        s.gdnKeyHeads = d.keyHeads, s.gdnValueHeads = d.valueHeads, s.gdnKeyDim = d.keyDim;
        s.gdnValueDim = d.valueDim, s.gdnConvKernel = d.convKernel;
    }
    return s;
}

KvCacheType toCacheType(KvType type) {
    switch (type) {
    case KvType::F32: return KvCacheType::F32;
    case KvType::BF16: return KvCacheType::BF16;
    case KvType::F16: break;
    }
    return KvCacheType::F16;
}

DecodeBytes decodeBytesOf(const ModelConfig& c, const ModelWeights& w, KvType kvType) {
    DecodeBytes d;
    d.weights = w.output.bytes() + w.outputNorm.size() * sizeof(float); // the LM head, once
    for (const LayerWeights& l : w.layers) {
        for (const WeightMatrix* m : l.matrices()) d.weights += m->bytes();
        for (const std::vector<float>* v : l.vectors()) d.weights += v->size() * sizeof(float);
    }
    d.recurrentState = c.recurrentStateBytes(); // the live state, read and written once a step
    d.kvPerPosition = 2ull * uint64_t(c.attentionLayerCount()) * uint64_t(c.kvHeads) * uint64_t(c.headDim) *
                      kvCacheElementBytes(toCacheType(kvType));
    return d;
}

Footprint footprintOf(const ModelConfig& c, const ModelWeights& weights, int32_t context, KvType kvType,
                      DeviceKind device) {
    Footprint f;
    if (device == DeviceKind::Cuda) {
        const CudaSessionPlan plan =
            planCudaSession(cudaShapeOf(c), cudaPrefillTileElements(cudaMatrixShapes(weights)), context,
                            kCudaPrefillChunk, uint32_t(kvCacheElementBytes(toCacheType(kvType))),
                            cudaSortScratchEstimate(c.vocabSize));
        f.weights = cudaWeightArenaBytes(cudaArenaPieces(cudaTensorTable(c, weights)), c.rope.dims);
        f.kvCache = plan.kvCacheBytes;
        f.recurrentState = plan.recurrentStateBytes; // the live state (its snapshots stay in host memory)
        f.workspace = plan.workspaceBytes();
        f.deviceContext = kCudaDeviceContextAllowance;
    } else {
        const StateBytes state = cpuSessionBytes(c, context, toCacheType(kvType));
        f.weights = weights.totalBytes();
        f.kvCache = state.kvCache;
        f.recurrentState = state.recurrentState;
        f.workspace = state.workspace;
    }
    return f;
}

int32_t largestFittingContext(const ModelConfig& c, const ModelWeights& weights, KvType kvType, DeviceKind device,
                              uint64_t limitBytes, int32_t maxContext) {
    int32_t lo = 0, hi = std::max(maxContext, 0); // footprints grow with the context
    while (lo < hi) {
        const int32_t mid = lo + (hi - lo + 1) / 2;
        if (footprintOf(c, weights, mid, kvType, device).total() <= limitBytes) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

std::string gibText(uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f GiB", double(bytes) / double(1ull << 30));
    return text;
}

Result<MemoryEstimate> estimateMemory(const std::string& modelPath, int32_t contextLength, KvType kvType,
                                      DeviceKind device) {
    return estimateMemory(
        MemoryEstimateParams{.path = modelPath, .contextLength = contextLength, .kvType = kvType, .device = device});
}

Status checkEstimateParams(const MemoryEstimateParams& params) {
    if (params.contextLength < 0) return invalidArgument("context length must be >= 0");
    if (params.gpu < 0) return invalidArgument("the GPU number must be >= 0");
    return Status::ok();
}

Result<MemoryEstimate> estimateMemory(const MemoryEstimateParams& params) {
    HEARTH_TRY(checkEstimateParams(params)); // before the file: a bad parameter is reported first
    HEARTH_ASSIGN(ModelDescription d, describeModel(params.path));
    return estimateMemory(d, params);
}

Result<MemoryEstimate> estimateMemory(const ModelDescription& d, const MemoryEstimateParams& params) {
    HEARTH_TRY(checkEstimateParams(params));
    HEARTH_ASSIGN(const DeviceInfo device, estimateDevice(params.device, params.gpu));
    return estimateMemoryOn(d, params, device);
}

Result<MemoryEstimate> estimateMemoryOn(const ModelDescription& d, const MemoryEstimateParams& params,
                                        const DeviceInfo& device) {
    if (params.contextLength < 0) return invalidArgument("context length must be >= 0");
    const ModelConfig& c = d.config;
    const int32_t context = params.contextLength > 0 ? params.contextLength : c.contextLength;
    HEARTH_ASSIGN(const ModelWeights weights, weightsAsLoaded(d, params.quant));
    MemoryEstimate e;
    e.device = device;
    e.decode = decodeBytesOf(c, weights, params.kvType);
    e.kvBytesPer1024Tokens = e.decode.kvPerPosition * 1024;
    const Footprint f = footprintOf(c, weights, context, params.kvType, device.kind);
    e.recurrentStateBytes = f.recurrentState; // 0 for attention-only architectures
    e.weightsBytes = f.weights;
    e.kvCacheBytes = f.kvCache;
    e.workspaceBytes = f.workspace;
    e.deviceContextBytes = f.deviceContext;
    e.availableBytes = params.budgetBytes > 0 ? std::min(params.budgetBytes, e.device.freeBytes) : e.device.freeBytes;
    e.fits = e.totalBytes() <= e.availableBytes;
    const int32_t reach = std::max(c.contextLength, context);
    e.largestContext = largestFittingContext(c, weights, params.kvType, device.kind, e.availableBytes, reach);
    return e;
}

} // namespace hearth
