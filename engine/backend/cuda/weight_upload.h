// Moves a model's tensors from host memory into the device arena: through two pinned staging
// buffers (the CPU fills one from the mapped file while the GPU copies the other), repacking on
// the GPU the types whose GEMV layout differs from GGUF's, and quantizing on the GPU the tensors
// a preset converts (weight_quantize.h). Owns its scratch; the arena is the caller's.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backend/cuda_module_abi.h"
#include "hearth/status.h"
#include "hearth_kernels/gemv.h"

namespace hearth::cuda {

// "layer 3 attn_v", "token_embd": a tensor of the table in words, for error messages.
std::string describeTensor(const HearthCudaTensor& t);

class WeightUploader {
public:
    struct Plan {
        uint64_t sourceBytes = 0;  // everything that passes through staging (progress counts it)
        uint64_t repackBytes = 0;  // the largest device-layout matrix that needs a repack
        int convertedTensors = 0;  // tensors quantized on the device
    };
    // `desc`'s progress callback is called as bytes pass; it may cancel.
    static Result<std::unique_ptr<WeightUploader>> create(const Plan& plan, const HearthCudaModelDesc& desc);
    ~WeightUploader();
    WeightUploader(const WeightUploader&) = delete;
    WeightUploader& operator=(const WeightUploader&) = delete;

    // Puts tensor `t` at `dst` in its device layout (`type` is its GEMV family for matrices,
    // whose repack and conversion this decides; vectors are copied as they are).
    Status upload(const HearthCudaTensor& t, bool isMatrix, kernels::GemvType type, void* dst);
    // Several matrices of one repacked type stacked into one (a fused qkv): each one's GGUF rows
    // in turn into the repack scratch, then one repack of all the rows into `dst`.
    Status uploadStacked(const std::vector<const HearthCudaTensor*>& parts, kernels::GemvType type, void* dst);
    // Copies host bytes to the device in stream order (small tables like RoPE frequencies).
    Status copy(void* dst, const void* src, uint64_t bytes);
    // Waits for the GPU; DataLoss naming the first converted tensor and row that held NaN/Inf.
    Status finish();

private:
    WeightUploader() = default;
    Status stage(const uint8_t* src, uint64_t bytes, void* deviceDst); // one chunk <= staging size
    Status convert(const HearthCudaTensor& t, void* dst);

    const HearthCudaModelDesc* m_desc = nullptr;
    Plan m_plan;
    cudaStream_t m_stream = nullptr;
    void* m_staging[2] = {nullptr, nullptr}; // pinned host
    cudaEvent_t m_copied[2] = {nullptr, nullptr};
    void* m_source[2] = {nullptr, nullptr};  // device copies of source slices to convert
    void* m_repack = nullptr;
    unsigned long long* m_badRows = nullptr; // per converted tensor, device
    std::vector<const HearthCudaTensor*> m_converted;
    uint64_t m_done = 0, m_chunk = 0;
};

} // namespace hearth::cuda
