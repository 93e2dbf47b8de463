// The CUDA backend's device memory, planned on the host: what the module allocates for a model's
// weights (DeviceWeights) and for a session (CudaSession::allocate), as plain arithmetic over the
// model's shape. The memory estimate (`inspect`, estimateMemory) uses it without loading the
// module; the module's session can share it so that the two never drift (tests/gpu compares them).
// Plain C++: no CUDA header, so the engine builds it on machines without the toolkit.
#pragma once

#include <cstdint>
#include <string>
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
    // layers: those with a KV cache (a hybrid model's attention layers)
    int64_t vocab = 0, hidden = 0, layers = 0, heads = 0, kvHeads = 0, headDim = 0, ffn = 0;
    bool gatedAttention = false; // q rows are [query | gate] per head (Qwen3.5)
    // Gated DeltaNet layers and their sizes (0: none).
    int64_t gdnLayers = 0, gdnKeyHeads = 0, gdnValueHeads = 0, gdnKeyDim = 0, gdnValueDim = 0, gdnConvKernel = 0;

    int64_t gdnKeyWidth() const { return gdnKeyHeads * gdnKeyDim; }
    int64_t gdnValueWidth() const { return gdnValueHeads * gdnValueDim; }
    int64_t gdnChannels() const { return 2 * gdnKeyWidth() + gdnValueWidth(); } // the conv's q | k | v
    // One token's input projections as the decode GEMVs write them: q (| gate) | k | v, or a
    // DeltaNet's qkv | z | beta | alpha, whichever is longer.
    int64_t projectionRows() const;
    // The widest activation a GEMV reads.
    int64_t widestInput() const;
    // One DeltaNet layer's state: the fp32 matrix of every value head and the conv's history.
    uint64_t gdnLayerStateBytes() const;
};

// One weight matrix as the module holds it: n rows (outputs) of k inputs.
struct CudaMatrixShape {
    int64_t n = 0, k = 0;
};

// A session's arena by category. Workspace is everything but the KV cache and the recurrent
// state (alignment padding included), as the module reports it.
struct CudaSessionPlan {
    int32_t context = 0, chunk = 0, splitKeys = 0, decodeSplits = 0, logitRows = 0;
    uint64_t tileElements = 0;
    uint64_t kvCacheBytes = 0;    // K and V of every attention layer, unpadded
    uint64_t recurrentStateBytes = 0; // every DeltaNet layer's state, each layer's piece aligned
    uint64_t blasWorkspaceBytes = 0;
    uint64_t decodeBytes = 0;     // one token's activations, logits, token/position/sample slots
    uint64_t partialBytes = 0;    // attention's split-K partials (decode and prefill share them)
    uint64_t samplingBytes = 0;   // penalised and sorted logits, ids, penalty ids, the sort's scratch
    uint64_t prefillBytes = 0;    // a chunk's activations, fp16 inputs and LM-head rows
    uint64_t tileBytes = 0;       // the fp16 tile prefill dequantizes weights into
    uint64_t gdnDecodeBytes = 0;  // a DeltaNet step's conv output and gates
    uint64_t gdnPrefillBytes = 0; // a chunk's DeltaNet projections, conv output, gates and outputs
    uint64_t workspaceBytes() const {
        return cudaAligned(kvCacheBytes) - kvCacheBytes + blasWorkspaceBytes + decodeBytes + partialBytes +
               samplingBytes + prefillBytes + tileBytes + gdnDecodeBytes + gdnPrefillBytes;
    }
    uint64_t totalBytes() const { return kvCacheBytes + recurrentStateBytes + workspaceBytes(); }
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

// Why the CUDA kernels cannot run a model of this shape (attention heads over 256 values or more
// than 16 query heads per KV head; Gated DeltaNet heads outside 32..128 values in steps of 32, a
// conv over 8 taps), or empty when they can: the kernels' own limits, restated so that
// `--device auto` can choose the CPU before loading anything.
std::string cudaUnsupportedReason(const CudaModelShape& shape);

// The weights' arena: each tensor (its bytes as uploaded) rounded up to kCudaAlign, then the RoPE
// inverse frequencies (ropeDims / 2 floats, at least one).
uint64_t cudaWeightArenaBytes(const std::vector<uint64_t>& tensorBytes, int32_t ropeDims);

} // namespace hearth
