// Building the public ModelInfo from internal descriptions (Model::load and describeModelFile).
#pragma once

#include <map>
#include <string>

#include "hearth/memory.h"
#include "hearth/model.h"
#include "model/model_loader.h"

namespace hearth {

ModelInfo makeModelInfo(const std::string& path, ModelFormat format, const ModelConfig& config,
                        uint64_t parameterCount, const std::map<std::string, int>& typeCounts);

// The memory estimate of an already described model (estimateMemory(path, …) describes it first;
// callers that hold the description, such as inspect, need not read the file twice).
Result<MemoryEstimate> estimateMemory(const ModelDescription& description, int32_t contextLength, KvType kvType,
                                      DeviceKind device);

} // namespace hearth
