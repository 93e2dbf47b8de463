// Memory: what a running session holds (the app's VRAM meter) and what a model would need before
// it is loaded (the app's "will it fit"). Qt-free.
#pragma once

#include <cstdint>
#include <string>

#include "hearth/devices.h"
#include "hearth/status.h"

namespace hearth {

// What a session's model and state hold, by category, and the device as it is now (the app's
// VRAM meter reads this about once a second through Session::memoryReport()).
struct MemoryReport {
    DeviceInfo device;                 // total and free memory read when the report was made
    uint64_t weightsBytes = 0;         // the model's weights on the device (shared by its sessions)
    uint64_t kvCacheBytes = 0;
    uint64_t recurrentStateBytes = 0;  // 0 for attention-only models
    uint64_t workspaceBytes = 0;       // activations, logits, attention scores
    uint64_t deviceContextBytes = 0;   // CUDA context and libraries; 0 on the CPU
    uint64_t totalBytes() const {
        return weightsBytes + kvCacheBytes + recurrentStateBytes + workspaceBytes + deviceContextBytes;
    }
};

// The KV cache's element type: K and V are rounded to it when stored, on every backend.
enum class KvType { F32, F16, BF16 };
const char* kvTypeName(KvType type); // "f32" / "f16" / "bf16"

// What one decode step reads from memory, by the one definition of the speed bound
// (docs/ARCHITECTURE.md, "Speed plan"): computed from the model, never measured.
struct DecodeBytes {
    uint64_t weights = 0;        // every weight tensor a step reads: the LM head once (tied or not),
                                 // the token-embedding row gather excluded
    uint64_t kvPerPosition = 0;  // K and V of one cached position in every attention layer
    uint64_t recurrentState = 0; // read and written by each step (0 for attention-only models)
    // With `depth` positions before the current one in the cache.
    uint64_t at(int64_t depth) const { return weights + kvPerPosition * uint64_t(depth) + 2 * recurrentState; }
};

struct MemoryEstimate {
    uint64_t weightsBytes = 0;        // as the device holds them (CUDA: each tensor padded to 256 bytes)
    uint64_t kvCacheBytes = 0;        // for the requested context
    uint64_t kvBytesPer1024Tokens = 0;
    uint64_t recurrentStateBytes = 0; // 0 for attention-only models
    uint64_t workspaceBytes = 0;      // what a session allocates besides its caches (the device's own rules)
    uint64_t deviceContextBytes = 0;  // CUDA context, cuBLAS and kernels: a fixed allowance; 0 on the CPU
    uint64_t totalBytes() const {
        return weightsBytes + kvCacheBytes + recurrentStateBytes + workspaceBytes + deviceContextBytes;
    }
    DecodeBytes decode;               // what each decode step would read
    DeviceInfo device;                // where it would run (name, total, free)
    bool fits = false;                // totalBytes() <= availableBytes
    uint64_t availableBytes = 0;      // the device's free memory, or the budget when smaller
    int32_t largestContext = 0;       // the longest context (up to the model's) that fits; 0: none
};

struct MemoryEstimateParams {
    std::string path;                 // a .gguf file or a Hugging Face folder
    int32_t contextLength = 0;        // 0 = the model's trained maximum
    KvType kvType = KvType::F16;      // SessionParams' default
    DeviceKind device = DeviceKind::Cpu; // Auto: CUDA when GPU `gpu` is listed, else the CPU
    int32_t gpu = 0;                  // CUDA device ordinal
    std::string quant;                // a preset applied at load: the weights as it makes them
    uint64_t budgetBytes = 0;         // a memory budget (e.g. 22.5 GiB for a 24 GB card); 0: none
};

// What a model would take on a device, from its header and tensor table alone (the CUDA module
// is not asked: the arithmetic is the engine's). Errors: as for Model::load; InvalidArgument
// (contextLength < 0, unknown preset); NotFound (no such device). Any thread.
Result<MemoryEstimate> estimateMemory(const MemoryEstimateParams& params);
// The same for CUDA device 0 or the CPU, without a preset.
Result<MemoryEstimate> estimateMemory(const std::string& modelPath, int32_t contextLength, KvType kvType,
                                      DeviceKind device);

// A model known only by the sizes its config.json publishes: enough for an estimate before any
// file exists (the app's catalog of models to download).
struct ModelShape {
    std::string architecture;  // "llama", "qwen2", "qwen3", "qwen35"
    int32_t vocabSize = 0, hidden = 0, layers = 0, heads = 0, kvHeads = 0, headDim = 0, ffn = 0;
    int32_t contextLength = 0; // the trained maximum
    bool tiedEmbeddings = false;
    int32_t ropeDims = 0;      // dimensions RoPE rotates per attention head (partial rotary: Qwen3.5's
                               // 64 of 256); 0: the whole head
    // The Gated DeltaNet layers of a hybrid architecture (qwen35; config.json's linear_* keys),
    // not used for attention-only architectures. Required there (0: not given): the key
    // (query/key) and value heads (a multiple of the key heads) and each head's size.
    int32_t linearKeyHeads = 0, linearValueHeads = 0, linearKeyDim = 0, linearValueDim = 0;
    int32_t linearConvKernel = 4;      // the short causal conv's width (linear_conv_kernel_dim)
    int32_t fullAttentionInterval = 4; // every this-many-th layer is full attention, the others DeltaNet
};

// What such a model would take, with its weights in the types a quantizer of `params.quant`
// writes (required: "Q4_K_M", "Q8_0", "BF16", ...), on `device` as described: its kind, total
// and free memory (a GPU need not be present, so a caller may ask about the GPU it chose, or a
// test about fixed figures). The same arithmetic as estimateMemory for a file of that shape;
// params.path, params.device and params.gpu are not used. Errors: InvalidArgument (a size <= 0,
// heads not a multiple of kvHeads, an odd head size, ropeDims odd or over headDim, a hybrid
// architecture's DeltaNet size missing or <= 0, linearValueHeads not a multiple of linearKeyHeads,
// fullAttentionInterval outside 1..layers, no or an unknown preset, contextLength < 0; the message
// names the field), Unsupported (an architecture the engine does not run). Any thread.
Result<MemoryEstimate> estimateMemoryForShape(const ModelShape& shape, const MemoryEstimateParams& params,
                                              const DeviceInfo& device);

} // namespace hearth
