// The C ABI between the engine and the dlopen'ed CUDA backend module (libhearth_cuda.so).
// Plain C types only, so the module and the engine need not share a C++ ABI. Versioned: the
// engine refuses a module whose hearth_cuda_abi_version() differs.
#pragma once

#include <stdint.h>

#define HEARTH_CUDA_ABI_VERSION 4

extern "C" {

struct HearthCudaDevice {
    char name[256];
    uint64_t totalBytes;
    uint64_t freeBytes;
    int major; // compute capability
    int minor;
};

// Why the probe failed, so the engine need not read the words: -1 any other failure (the only
// code of older modules), the rest as named.
#define HEARTH_CUDA_PROBE_FAILED (-1)
#define HEARTH_CUDA_PROBE_NO_DRIVER (-2)
#define HEARTH_CUDA_PROBE_DRIVER_BROKEN (-3)
#define HEARTH_CUDA_PROBE_DRIVER_TOO_OLD (-4)

typedef int (*HearthCudaAbiVersionFn)(void);
// Fills up to maxDevices entries and returns their count, or a HEARTH_CUDA_PROBE_* code below
// with a reason in `error` (NUL-terminated, at most errorBytes) when the CUDA runtime cannot be
// used at all. 0 devices: the driver works but sees no GPU.
typedef int (*HearthCudaProbeFn)(HearthCudaDevice* devices, int maxDevices, char* error, int errorBytes);

// ---- models and sessions (ABI 2) ------------------------------------------------------------
// The engine describes a loaded model as a table of tensors pointing into host memory (the mapped
// file or the buffers a preset made); the module uploads, repacks and owns the device copy. A
// session is one conversation's state on the device. Calls return 0 on success, else a
// hearth::StatusCode value with a message in `error`. Handles are owned by the engine, which frees
// every session of a model before the model. One thread at a time per model and its sessions.

typedef struct HearthCudaModel HearthCudaModel;
typedef struct HearthCudaSession HearthCudaSession;

typedef struct {
    int code; // hearth::StatusCode; 0 = ok
    char message[1024];
} HearthCudaError;

// What a tensor is in the forward pass.
enum HearthCudaRole {
    HEARTH_CUDA_TOKEN_EMBD = 0,
    HEARTH_CUDA_OUTPUT,      // absent when the embeddings are tied
    HEARTH_CUDA_OUTPUT_NORM,
    HEARTH_CUDA_ATTN_NORM,
    HEARTH_CUDA_ATTN_Q,
    HEARTH_CUDA_ATTN_K,
    HEARTH_CUDA_ATTN_V,
    HEARTH_CUDA_ATTN_O,
    HEARTH_CUDA_ATTN_Q_BIAS,
    HEARTH_CUDA_ATTN_K_BIAS,
    HEARTH_CUDA_ATTN_V_BIAS,
    HEARTH_CUDA_ATTN_Q_NORM,
    HEARTH_CUDA_ATTN_K_NORM,
    HEARTH_CUDA_FFN_NORM,
    HEARTH_CUDA_FFN_GATE,
    HEARTH_CUDA_FFN_UP,
    HEARTH_CUDA_FFN_DOWN,
    // Qwen3.5's Gated DeltaNet layers (ABI 4); their block norm is HEARTH_CUDA_ATTN_NORM.
    HEARTH_CUDA_SSM_QKV,     // [2*keyWidth + valueWidth, hidden]: q | k | v (attn_qkv)
    HEARTH_CUDA_SSM_Z,       // [valueWidth, hidden]: the output norm's gate (attn_gate)
    HEARTH_CUDA_SSM_BETA,    // [valueHeads, hidden] (ssm_beta)
    HEARTH_CUDA_SSM_ALPHA,   // [valueHeads, hidden] (ssm_alpha)
    HEARTH_CUDA_SSM_OUT,     // [hidden, valueWidth] (ssm_out)
    HEARTH_CUDA_SSM_CONV,    // vector [channels * convKernel]: the depthwise conv, channel-major
    HEARTH_CUDA_SSM_DT_BIAS, // vector [valueHeads]
    HEARTH_CUDA_SSM_A,       // vector [valueHeads]: -exp(A_log)
    HEARTH_CUDA_SSM_NORM,    // vector [valueDim]: the gated RMSNorm's gain
    HEARTH_CUDA_ROLE_COUNT
};

// type/rowBytes/data describe the rows as the engine holds them; deviceType/deviceRowBytes what the
// device copy must be. They differ when a quant preset is applied on the GPU (ABI 3): the module
// then quantizes the F32/F16/BF16 rows with the CPU quantizer's arithmetic (quant/quantize_block.h).
// `stacked` (ABI 4): the matrix is stored right below the previous tensor of the table as one
// matrix (same device type and width; a layer's q|k|v or a DeltaNet's qkv|z|beta|alpha), which a
// decode step reads with one GEMV. The engine decides it (backend/cuda_tensor_table.h).
typedef struct {
    int32_t role;     // HearthCudaRole
    int32_t layer;    // -1 for the model-wide tensors
    uint32_t type;    // ggml type id (vectors: 0, F32)
    int64_t rows;     // outputs (vectors: 1)
    int64_t cols;     // inputs
    uint64_t rowBytes;
    const void* data; // host memory, valid for the duration of hearth_cuda_model_load
    uint32_t deviceType;
    uint64_t deviceRowBytes;
    int32_t stacked;
} HearthCudaTensor;

typedef struct {
    int32_t device;
    int32_t vocab, hidden, layers, heads, kvHeads, headDim, ffn;
    float rmsEps;
    int32_t ropeDims;         // rotated dimensions per head
    int32_t ropeAdjacent;     // 1: pairs (2i, 2i+1); 0: (i, i + ropeDims/2)
    const float* ropeInvFreq; // [ropeDims/2], host
    float ropeMagnitude;
    const int32_t* layerMixers; // [layers]: 0 attention, 1 Gated DeltaNet
    int32_t attnOutputGate;     // q rows are per head [query | gate]; out *= sigmoid(gate)
    // The Gated DeltaNet's sizes (0 without such layers); tiledHeads: value head h reads key head
    // h % keyHeads (GGUF order), else h / (valueHeads / keyHeads).
    int32_t gdnKeyHeads, gdnValueHeads, gdnKeyDim, gdnValueDim, gdnConvKernel, gdnTiledHeads;
    const HearthCudaTensor* tensors;
    int32_t tensorCount;
    // Load progress in [0, 1] (of the bytes to upload); a non-zero return cancels the load (code
    // Cancelled). May be null.
    int (*progress)(void* user, float fraction);
    void* progressUser;
} HearthCudaModelDesc;

typedef struct {
    char deviceName[256];
    uint64_t deviceTotal, deviceFree; // read when the report is made
    uint64_t weights, kvCache, recurrentState, workspace, deviceContext;
} HearthCudaMemory;

// KV cache element types.
#define HEARTH_CUDA_KV_F32 0
#define HEARTH_CUDA_KV_F16 1
#define HEARTH_CUDA_KV_BF16 2

typedef struct {
    int32_t contextLength;
    int32_t kvType;       // HEARTH_CUDA_KV_*
    int32_t prefillChunk; // tokens per prefill call at most
} HearthCudaSessionDesc;

// Which logits a prefill returns.
#define HEARTH_CUDA_LOGITS_NONE 0
#define HEARTH_CUDA_LOGITS_LAST 1
#define HEARTH_CUDA_LOGITS_ALL 2

typedef int (*HearthCudaModelLoadFn)(const HearthCudaModelDesc* desc, HearthCudaModel** model, HearthCudaError* error);
typedef void (*HearthCudaModelFreeFn)(HearthCudaModel* model);
typedef void (*HearthCudaModelMemoryFn)(const HearthCudaModel* model, HearthCudaMemory* memory);
typedef int (*HearthCudaSessionCreateFn)(HearthCudaModel* model, const HearthCudaSessionDesc* desc,
                                         HearthCudaSession** session, HearthCudaError* error);
typedef void (*HearthCudaSessionFreeFn)(HearthCudaSession* session);
typedef void (*HearthCudaSessionMemoryFn)(const HearthCudaSession* session, HearthCudaMemory* memory);
// Runs `count` (<= prefillChunk) tokens at positions start.. and writes the logits `which` asks
// for into `logits` (host; [vocab] or [count][vocab]).
typedef int (*HearthCudaPrefillFn)(HearthCudaSession* session, const int32_t* tokens, int32_t count, int32_t start,
                                   int32_t which, float* logits, HearthCudaError* error);
// What decode does with the logits on the device (the CPU sampler's definitions). First the
// repetition penalty on a copy (penaltyCount distinct ids; penalty 1 = off), then either the
// argmax (greedy != 0, into *sampled) or the best topK (id, logit) pairs, best first, ties by
// lower id, NaN/-inf left out, +inf as FLT_MAX (topK > 0: candidateIds/candidateLogits, host
// arrays of topK, and *candidateCount). With neither, only `logits` is filled.
#define HEARTH_CUDA_MAX_TOPK 1024
#define HEARTH_CUDA_MAX_PENALTY_IDS 8192
typedef struct {
    int32_t greedy;
    int32_t topK; // 0 .. HEARTH_CUDA_MAX_TOPK
    float penalty;
    const int32_t* penaltyIds; // host
    int32_t penaltyCount;      // 0 .. HEARTH_CUDA_MAX_PENALTY_IDS
    int32_t* candidateIds;
    float* candidateLogits;
    int32_t* candidateCount;
} HearthCudaSampling;

// Runs `token` at `pos` and samples as `sampling` says; `logits` (host, may be null) receives the
// [vocab] raw logits.
typedef int (*HearthCudaDecodeFn)(HearthCudaSession* session, int32_t token, int32_t pos,
                                  const HearthCudaSampling* sampling, int32_t* sampled, float* logits,
                                  HearthCudaError* error);

// Recurrent state (ABI 4; models with Gated DeltaNet layers; no-ops otherwise): checkpoint keeps a
// copy of the state when it holds exactly `pos` tokens; rewind makes the state continue from the
// latest saved point <= pos (the live state, a copy, or the start) and writes it to *restored.
typedef int (*HearthCudaCheckpointFn)(HearthCudaSession* session, int32_t pos, HearthCudaError* error);
typedef int (*HearthCudaRewindFn)(HearthCudaSession* session, int32_t pos, int32_t* restored, HearthCudaError* error);

} // extern "C"
