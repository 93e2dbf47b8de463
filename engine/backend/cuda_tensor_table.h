// The tensors a loaded model hands to the CUDA module, in the module's table order, and which of
// them the module stores stacked into one matrix. The backend fills the C table from it
// (cuda_backend.cpp) and the memory estimate counts the module's arena from it
// (runtime/memory_estimate.cpp), so the two cannot disagree on the stacking rule.
#pragma once

#include <cstdint>
#include <vector>

#include "backend/cuda_module_abi.h"
#include "model/model_config.h"
#include "model/model_weights.h"

namespace hearth {

struct CudaTableEntry {
    int32_t role = 0;  // HearthCudaRole
    int32_t layer = -1;
    const WeightMatrix* matrix = nullptr;      // a matrix, or
    const std::vector<float>* vector = nullptr; // an F32 vector
    // Stored right below the previous entry as one matrix: a run of a layer's input projections
    // (q, k, v; or a DeltaNet's qkv, z, beta, alpha) of one type, so that decode reads each run
    // with one GEMV.
    bool stacked = false;
    // Bytes as the device holds them (a preset's target type for a deferred matrix).
    uint64_t deviceBytes() const;
};

// Every matrix (the LM head only when untied) and every non-empty vector of the model.
std::vector<CudaTableEntry> cudaTensorTable(const ModelConfig& config, const ModelWeights& weights);

// The arena pieces: each stacked run is one piece, every other entry its own.
std::vector<uint64_t> cudaArenaPieces(const std::vector<CudaTableEntry>& table);

} // namespace hearth
