// The CUDA backend's device memory, planned on the host: what the module allocates for a model's
// weights (DeviceWeights) and for a session (CudaSession::allocate), as plain arithmetic over the
// model's shape. The memory estimate (`inspect`, estimateMemory) uses it without loading the
// module; the module's session can share it so that the two never drift (tests/gpu compares them).
// Plain C++: no CUDA header, so the engine builds it on machines without the toolkit.
#pragma once

#include <cstdint>
#include <vector>

namespace hearth {

constexpr uint64_t kCudaAlign = 256;                  // every piece of an arena starts on 256 bytes
constexpr uint64_t kCudaBlasWorkspaceBytes = 32ull << 20; // cuBLAS's workspace, inside the session arena
constexpr int32_t kCudaPrefillChunk = 512;            // tokens per prefill call
constexpr int32_t kCudaLogitRowsPerPass = 32;         // LogitsWanted::All: LM-head rows per pass
constexpr uint64_t kCudaPrefillTileTarget = 32ull << 20; // fp16 elements of the dequantized weight tile
// The CUDA context, cuBLAS's handle and the module's kernels: device memory no arena accounts
// for. Measured on the H200 (driver 580, CUDA 13: NVML's count for the process minus the arenas)
// at 588 MiB with one session; the allowance keeps ~50 MiB above it.
constexpr uint64_t kCudaDeviceContextAllowance = 640ull << 20;

constexpr uint64_t cudaAligned(uint64_t bytes) { return (bytes + kCudaAlign - 1) / kCudaAlign * kCudaAlign; }

// The sizes a session's buffers follow (the module's ModelShape).
struct CudaModelShape {
    int64_t vocab = 0, hidden = 0, layers = 0, heads = 0, kvHeads = 0, headDim = 0, ffn = 0;
};

// One weight matrix as the module holds it: n rows (outputs) of k inputs.
struct CudaMatrixShape {
    int64_t n = 0, k = 0;
};

// A session's arena by category. Workspace is everything but the KV cache (its alignment
// padding included), as the module reports it.
struct CudaSessionPlan {
    int32_t context = 0, chunk = 0, splitKeys = 0, decodeSplits = 0, logitRows = 0;
    uint64_t tileElements = 0;
    uint64_t kvCacheBytes = 0;    // K and V of every layer, unpadded
    uint64_t blasWorkspaceBytes = 0;
    uint64_t decodeBytes = 0;     // one token's activations, logits, token/position/sample slots
    uint64_t partialBytes = 0;    // attention's split-K partials (decode and prefill share them)
    uint64_t samplingBytes = 0;   // penalised and sorted logits, ids, penalty ids, the sort's scratch
    uint64_t prefillBytes = 0;    // a chunk's activations, fp16 inputs and LM-head rows
    uint64_t tileBytes = 0;       // the fp16 tile prefill dequantizes weights into
    uint64_t workspaceBytes() const {
        return cudaAligned(kvCacheBytes) - kvCacheBytes + blasWorkspaceBytes + decodeBytes + partialBytes +
               samplingBytes + prefillBytes + tileBytes;
    }
    uint64_t totalBytes() const { return kvCacheBytes + workspaceBytes(); }
};

// Elements of prefill's fp16 weight tile: one row of the widest matrix at least, otherwise the
// largest matrix or kCudaPrefillTileTarget, whichever is smaller. `matrices`: the LM head and
// every layer's q, k, v, o, gate, up, down.
uint64_t cudaPrefillTileElements(const std::vector<CudaMatrixShape>& matrices);

// Scratch of the GPU's vocabulary sort (top-k sampling): an id row plus CUB's temporary storage.
// CUB's size is opaque without CUDA (the module asks it: kernels::sortScratchBytes); this upper
// estimate — its key and value double buffers plus 1 MiB — stands in for the memory estimate.
uint64_t cudaSortScratchEstimate(int64_t vocab);

// The session arena for `context` positions with K and V of `kvElementBytes` (4 or 2) each;
// sortScratchBytes: kernels::sortScratchBytes(vocab) in the module, cudaSortScratchEstimate
// outside it.
CudaSessionPlan planCudaSession(const CudaModelShape& shape, uint64_t tileElements, int32_t context,
                                int32_t prefillChunk, uint32_t kvElementBytes, uint64_t sortScratchBytes);

// The weights' arena: each tensor (its bytes as uploaded) rounded up to kCudaAlign, then the RoPE
// inverse frequencies (ropeDims / 2 floats, at least one).
uint64_t cudaWeightArenaBytes(const std::vector<uint64_t>& tensorBytes, int32_t ropeDims);

} // namespace hearth
