// One conversation's state on the GPU, inside the CUDA module: the KV cache of the attention
// layers, the Gated DeltaNet layers' recurrent state (recurrent_state.h), the workspace of a
// decode step and of a prefill chunk, a stream, cuBLAS, and the decode step captured as a CUDA
// graph. All device memory is one allocation made at creation; a step allocates nothing.
// cuda_session.cpp holds the set-up, the step and sampling; cuda_session_layers.cpp the layers.
#pragma once

#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <memory>
#include <vector>

#include "backend/cuda/device_weights.h"
#include "backend/cuda/recurrent_state.h"
#include "backend/cuda_module_abi.h"
#include "hearth/status.h"
#include "hearth_kernels/deltanet.h"
#include "hearth_kernels/ops.h"

namespace hearth::cuda {

class GemvTuning;
class PrefillGemm;

class CudaSession {
public:
    static Result<std::unique_ptr<CudaSession>> create(const DeviceWeights& weights, const HearthCudaSessionDesc& desc);
    ~CudaSession();
    CudaSession(const CudaSession&) = delete;
    CudaSession& operator=(const CudaSession&) = delete;

    // See HearthCudaPrefillFn / HearthCudaDecodeFn / HearthCudaCheckpointFn / HearthCudaRewindFn.
    Status prefill(const int32_t* tokens, int count, int start, int which, float* logits);
    Status decode(int32_t token, int32_t pos, const HearthCudaSampling& sampling, int32_t* sampled, float* logits);
    Status checkpoint(int32_t pos) { return m_state.checkpoint(pos, m_stream); }
    Result<int32_t> rewindTo(int32_t pos) { return m_state.rewindTo(pos, m_stream); }

    uint64_t kvCacheBytes() const { return m_kvBytes; }
    uint64_t recurrentStateBytes() const { return m_state.deviceBytes(); }
    uint64_t workspaceBytes() const { return m_workspaceBytes; }
    uint64_t libraryBytes() const { return m_libraryBytes; } // cuBLAS and graph memory

private:
    explicit CudaSession(const DeviceWeights& weights) : m_w(weights) {}
    Status allocate(const HearthCudaSessionDesc& desc);
    Status enqueueDecode();
    Status enqueuePrefill(const int32_t* tokens, int count, int start, int which, float* logits);
    Status sampleOnDevice(const HearthCudaSampling& sampling); // after the step's graph
    Status injectStepFault();
    // The layers (cuda_session_layers.cpp): decode reads the normed x (d_xn / d_x8) and ends each
    // block with residualGemv; prefill reads p_xn / p_xh for `count` tokens and leaves p_delta.
    // Measures (or takes the model's earlier measurement of) each decode GEMV shape's rows per
    // block (gemv_tuning.h). HEARTH_GEMV_ROWS=0 keeps the kernels' own choices, =1|2|4|8 forces
    // one for every GEMV that takes it (gate+up at most 4): tests compare the logits.
    Status tuneGemvs();
    bool pairedProjections(const DeviceLayer& l) const;
    kernels::GemvLaunch gemvLaunch(const DeviceMatrix& m, bool gateUp) const;
    Status gemv(const DeviceMatrix& m, float* y) const; // y = W · the normed x
    Status projectionsDecode(const DeviceLayer& l) const; // the layer's input projections into d_proj
    // The block's output W · in to d_delta, then the norm with weights `nextNorm` (x += d_delta)
    // for the next block's GEMVs.
    Status residualGemv(const DeviceMatrix& m, const void* inX8, const float* inF32, const float* nextNorm);
    kernels::NormOut normOut() const; // where the norm's output goes
    Status attentionDecode(const DeviceLayer& l, int kvLayer);
    Status deltaNetDecode(const DeviceLayer& l, int gdnLayer);
    Status ffnDecode(const DeviceLayer& l, const float* nextNorm);
    Status attentionPrefill(const DeviceLayer& l, int kvLayer, const PrefillGemm& gemm, int count, int start);
    Status deltaNetPrefill(const DeviceLayer& l, int gdnLayer, const PrefillGemm& gemm, int count);
    Status ffnPrefill(const DeviceLayer& l, const PrefillGemm& gemm, int count);
    kernels::QkvShape qkvShape() const;
    kernels::GdnShape gdnShape() const;
    void* kCache(int kvLayer) const;
    void* vCache(int kvLayer) const;

    const DeviceWeights& m_w;
    int m_context = 0, m_chunk = 0, m_decodeSplits = 0, m_splitKeys = 0, m_logitRows = 0, m_projRows = 0;
    kernels::KvType m_kvType = kernels::KvType::F16;
    cudaStream_t m_stream = nullptr;
    cublasHandle_t m_blas = nullptr;
    cudaGraph_t m_graph = nullptr;
    cudaGraphExec_t m_graphExec = nullptr;
    bool m_useGraphs = true;
    // Two projection runs of different types in one launch: as measured (GemvTuning), or forced.
    enum class PairMode { Measured, Off, On };
    PairMode m_pairMode = PairMode::Measured;
    kernels::GemvLaunch m_gemvLaunch; // pdl on sm_90+ unless HEARTH_KERNELS=portable
    std::shared_ptr<const GemvTuning> m_tuning; // null: the kernels' own choices
    int32_t* m_pinned = nullptr; // host: token, pos, sampled, then penalty ids and candidate ids
    float* m_pinnedLogits = nullptr; // host: candidate logits
    void* m_arena = nullptr;
    uint64_t m_kvBytes = 0, m_workspaceBytes = 0, m_libraryBytes = 0;
    std::vector<int> m_mixerIndex; // per layer: its index among the attention or the DeltaNet layers
    RecurrentState m_state;

    // Decode buffers.
    int* d_tokenPos = nullptr; // [2]: token, position
    int* d_sampled = nullptr;
    float *d_x = nullptr, *d_delta = nullptr, *d_xn = nullptr;
    float* d_proj = nullptr; // the input projections: q (| gate) | k | v, or qkv | z | beta | alpha
    float *d_qGated = nullptr, *d_attnGate = nullptr; // gated attention's queries and gates
    float *d_attn = nullptr, *d_act = nullptr, *d_gate = nullptr, *d_up = nullptr, *d_logits = nullptr;
    uint8_t* d_gdnScratch = nullptr; // DeltaNet decode: launchGdnDecode's counters
    void* d_x8 = nullptr;
    void* d_partial = nullptr; // attention partials, decode and prefill
    // Sampling: penalised logits, the sorted vocabulary, penalty ids, sort scratch.
    float *d_slogits = nullptr, *d_sorted = nullptr;
    int *d_sortedIds = nullptr, *d_penaltyIds = nullptr;
    void* d_sortScratch = nullptr;
    size_t m_sortScratchBytes = 0;
    // Prefill buffers ([chunk][...]).
    int* p_tokens = nullptr;
    float *p_x = nullptr, *p_delta = nullptr, *p_xn = nullptr, *p_q = nullptr, *p_k = nullptr, *p_v = nullptr;
    float *p_qGated = nullptr, *p_attnGate = nullptr;
    float *p_attn = nullptr, *p_gate = nullptr, *p_up = nullptr, *p_logits = nullptr;
    float *p_gdnQkv = nullptr, *p_gdnZ = nullptr, *p_gdnB = nullptr, *p_gdnA = nullptr;
    float *p_gdnConv = nullptr, *p_gdnGates = nullptr, *p_gdnOut = nullptr;
    __half* p_xh = nullptr;
    __half* p_tile = nullptr;
    size_t m_tileElements = 0;
    uint8_t* m_kv = nullptr;
};

} // namespace hearth::cuda
