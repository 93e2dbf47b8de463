// Shared by the binding files (weights_binding.cpp, deltanet_binding.cpp): one matrix, checked,
// and the Gated DeltaNet mixer of a layer.
#pragma once

#include "model/model_loader.h"

namespace hearth {

// The tensor `name` as a [rows, cols] matrix view; `ggufName` is llama.cpp's name for the role.
Result<WeightMatrix> bindMatrix(ScaleCheck scales, const TensorSource& source, const std::string& name,
                                const std::string& ggufName, int64_t rows, int64_t cols);

// Layer `layer`'s Gated DeltaNet weights with config.deltaNet's shapes. HF's A_log becomes
// -exp(A_log) (GGUF's ssm_a); the conv kernel is read as [channels][kernel] from either layout.
Result<DeltaNetWeights> bindDeltaNet(const ModelConfig& config, const TensorSource& source, ModelFormat format,
                                     ScaleCheck scales, int layer);

} // namespace hearth
