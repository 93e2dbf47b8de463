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

enum class KvType { F32, F16, BF16 };
const char* kvTypeName(KvType type); // "f32" / "f16" / "bf16"

struct MemoryEstimate {
    uint64_t weightsBytes = 0;
    uint64_t kvCacheBytes = 0;        // for the requested context
    uint64_t kvBytesPer1024Tokens = 0;
    uint64_t recurrentStateBytes = 0; // 0 for attention-only models
    uint64_t workspaceBytes = 0;      // activations, logits, attention scores
    uint64_t totalBytes() const { return weightsBytes + kvCacheBytes + recurrentStateBytes + workspaceBytes; }
    DeviceInfo device;                // where it would run (name, total, free)
    bool fits = false;                // totalBytes() <= device.freeBytes
};

// Reads only the header/tensor table of `modelPath`. contextLength 0 = the model's maximum.
// Errors: as for Model::load; InvalidArgument (contextLength < 0); NotFound (no such device).
// Any thread.
Result<MemoryEstimate> estimateMemory(const std::string& modelPath, int32_t contextLength, KvType kvType,
                                      DeviceKind device);

} // namespace hearth
