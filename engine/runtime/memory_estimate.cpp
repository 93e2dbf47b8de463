// Memory needed to run a model: weights, KV cache, recurrent state, workspace — computed from the
// file's header and tensor table only, so `inspect` and the app can ask before loading.
#include <algorithm>

#include "hearth/memory.h"
#include "model/model_loader.h"
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

Result<MemoryEstimate> estimateMemory(const std::string& modelPath, int32_t contextLength, KvType kvType,
                                      DeviceKind device) {
    if (contextLength < 0) return invalidArgument("context length must be >= 0");
    HEARTH_ASSIGN(ModelDescription d, describeModel(modelPath));
    return estimateMemory(d, contextLength, kvType, device);
}

Result<MemoryEstimate> estimateMemory(const ModelDescription& d, int32_t contextLength, KvType kvType,
                                      DeviceKind device) {
    if (contextLength < 0) return invalidArgument("context length must be >= 0");
    const ModelConfig& c = d.config;
    const int64_t context = contextLength > 0 ? contextLength : c.contextLength;
    MemoryEstimate e;
    for (const auto& [name, t] : d.tensors.tensors) e.weightsBytes += t.bytes;
    const uint64_t elementBytes = kvType == KvType::F32 ? 4 : 2;
    // K and V, for the layers whose mixer is attention (the others keep no KV cache).
    const uint64_t perToken = 2ull * uint64_t(c.attentionLayerCount()) * c.kvHeads * c.headDim * elementBytes;
    e.kvBytesPer1024Tokens = perToken * 1024;
    e.kvCacheBytes = perToken * uint64_t(context);
    e.recurrentStateBytes = 0; // attention-only architectures
    // Activations of one token, the logits, and the attention scores over the whole context.
    const uint64_t activations = 2ull * c.hidden + 2ull * c.heads * c.headDim + 2ull * c.ffn;
    e.workspaceBytes = (activations + uint64_t(c.vocabSize) + uint64_t(c.heads) * context) * sizeof(float);

    const DeviceReport& report = probeDevices();
    auto it = std::find_if(report.devices.begin(), report.devices.end(),
                           [&](const DeviceInfo& info) { return info.kind == device; });
    if (it == report.devices.end())
        return notFound(std::string("no ") + deviceKindName(device) + " device: " + report.cudaUnavailableReason);
    e.device = *it;
    e.fits = e.totalBytes() <= e.device.freeBytes;
    return e;
}

} // namespace hearth
