// Building the public ModelInfo from internal descriptions (Model::load and describeModelFile).
#pragma once

#include <map>
#include <string>
#include <cstdint>

#include "backend/backend.h"
#include "backend/cuda_memory_plan.h"
#include "hearth/memory.h"
#include "hearth/model.h"
#include "hearth/quant.h"
#include "model/model_loader.h"
#include "quant/presets.h"

namespace hearth {

ModelInfo makeModelInfo(const std::string& path, ModelFormat format, const ModelConfig& config,
                        uint64_t parameterCount, const std::map<std::string, int>& typeCounts);

// The parameters' own errors (a negative context or GPU number), which every estimate reports
// before it looks at a model.
Status checkEstimateParams(const MemoryEstimateParams& params);
// The memory estimate of an already described model (estimateMemory(params) describes it
// first; callers that hold the description need not read the file twice). params.path is unused.
Result<MemoryEstimate> estimateMemory(const ModelDescription& description, const MemoryEstimateParams& params);
// The same on a device already chosen (params.device and params.gpu are not used).
Result<MemoryEstimate> estimateMemoryOn(const ModelDescription& description, const MemoryEstimateParams& params,
                                        const DeviceInfo& device);

// What `preset` makes of an already described model (planQuantPreset after the file is read).
Result<QuantPlan> planQuantPreset(const ModelDescription& description, QuantPreset preset);

KvCacheType toCacheType(KvType type);

// What a model with these weights and a session of `context` positions take on `device` (Cpu or
// Cuda), by the device's own allocation rules: the one arithmetic behind the estimate and the
// VRAM budget checks of Model::load and Session::create.
// The shape the CUDA module's session plan follows (the attention layers' KV, the DeltaNet state).
CudaModelShape cudaShapeOf(const ModelConfig& config);

struct Footprint {
    uint64_t weights = 0, kvCache = 0, recurrentState = 0, workspace = 0, deviceContext = 0;
    uint64_t total() const { return weights + kvCache + recurrentState + workspace + deviceContext; }
};
Footprint footprintOf(const ModelConfig& config, const ModelWeights& weights, int32_t context, KvType kvType,
                      DeviceKind device);
// The longest context in 1..maxContext whose footprint is at most `limitBytes`; 0 when none.
int32_t largestFittingContext(const ModelConfig& config, const ModelWeights& weights, KvType kvType,
                              DeviceKind device, uint64_t limitBytes, int32_t maxContext);
// "X GiB" with one decimal.
std::string gibText(uint64_t bytes);

// What a decode step reads from these weights with a cache of `kvType` (DecodeBytes' definition).
DecodeBytes decodeBytesOf(const ModelConfig& config, const ModelWeights& weights, KvType kvType);

} // namespace hearth
