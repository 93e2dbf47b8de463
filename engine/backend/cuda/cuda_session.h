// One conversation's state on the GPU, inside the CUDA module: the KV cache, the workspace of a
// decode step and of a prefill chunk, a stream, cuBLAS, and the decode step captured as a CUDA
// graph. All device memory is one allocation made at creation; a step allocates nothing.
#pragma once

#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <memory>

#include "backend/cuda/device_weights.h"
#include "backend/cuda_module_abi.h"
#include "hearth/status.h"
#include "hearth_kernels/ops.h"

namespace hearth::cuda {

class CudaSession {
public:
    static Result<std::unique_ptr<CudaSession>> create(const DeviceWeights& weights, const HearthCudaSessionDesc& desc);
    ~CudaSession();
    CudaSession(const CudaSession&) = delete;
    CudaSession& operator=(const CudaSession&) = delete;

    // See HearthCudaPrefillFn / HearthCudaDecodeFn.
    Status prefill(const int32_t* tokens, int count, int start, int which, float* logits);
    Status decode(int32_t token, int32_t pos, const HearthCudaSampling& sampling, int32_t* sampled, float* logits);

    uint64_t kvCacheBytes() const { return m_kvBytes; }
    uint64_t workspaceBytes() const { return m_workspaceBytes; }
    uint64_t libraryBytes() const { return m_libraryBytes; } // cuBLAS and graph memory

private:
    explicit CudaSession(const DeviceWeights& weights) : m_w(weights) {}
    Status allocate(const HearthCudaSessionDesc& desc);
    Status enqueueDecode();
    Status enqueuePrefill(const int32_t* tokens, int count, int start, int which, float* logits);
    Status gemv(const DeviceMatrix& m, float* y) const;             // from the decode's x forms
    Status ffnDecode(const DeviceLayer& l);
    Status sampleOnDevice(const HearthCudaSampling& sampling); // after the step's graph
    Status injectStepFault();
    void* kCache(int layer) const;
    void* vCache(int layer) const;

    const DeviceWeights& m_w;
    int m_context = 0, m_chunk = 0, m_decodeSplits = 0, m_splitKeys = 0, m_logitRows = 0;
    kernels::KvType m_kvType = kernels::KvType::F16;
    cudaStream_t m_stream = nullptr;
    cublasHandle_t m_blas = nullptr;
    cudaGraph_t m_graph = nullptr;
    cudaGraphExec_t m_graphExec = nullptr;
    bool m_useGraphs = true;
    kernels::GemvLaunch m_gemvLaunch; // pdl on sm_90+ unless HEARTH_KERNELS=portable
    int32_t* m_pinned = nullptr; // host: token, pos, sampled, then penalty ids and candidate ids
    float* m_pinnedLogits = nullptr; // host: candidate logits
    void* m_arena = nullptr;
    uint64_t m_kvBytes = 0, m_workspaceBytes = 0, m_libraryBytes = 0;

    // Decode buffers.
    int* d_tokenPos = nullptr; // [2]: token, position
    int* d_sampled = nullptr;
    float *d_x = nullptr, *d_delta = nullptr, *d_xn = nullptr, *d_q = nullptr, *d_k = nullptr, *d_v = nullptr;
    float *d_attn = nullptr, *d_act = nullptr, *d_gate = nullptr, *d_up = nullptr, *d_logits = nullptr;
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
    float *p_attn = nullptr, *p_gate = nullptr, *p_up = nullptr, *p_logits = nullptr;
    __half* p_xh = nullptr;
    __half* p_tile = nullptr;
    size_t m_tileElements = 0;
    uint8_t* m_kv = nullptr;
};

} // namespace hearth::cuda
