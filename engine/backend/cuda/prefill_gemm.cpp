#include "backend/cuda/prefill_gemm.h"

#include <algorithm>
#include <vector>

#include "backend/cuda/cuda_status.h"
#include "backend/cuda_memory_plan.h"
#include "hearth_kernels/ops.h"

namespace hearth::cuda {
namespace {

Status blasStatus(cublasStatus_t s, const char* what) {
    if (s == CUBLAS_STATUS_SUCCESS) return Status::ok();
    if (s == CUBLAS_STATUS_ALLOC_FAILED) return outOfMemory(std::string(what) + ": cuBLAS could not allocate");
    return internalError(std::string(what) + ": cuBLAS error " + std::to_string(int(s)));
}

} // namespace

size_t prefillTileElements(const DeviceWeights& weights) {
    std::vector<CudaMatrixShape> shapes{{weights.output().n, weights.output().k}};
    for (const DeviceLayer& l : weights.layers())
        for (const DeviceMatrix* m : {&l.q, &l.k, &l.v, &l.o, &l.ssmQkv, &l.ssmZ, &l.ssmBeta, &l.ssmAlpha, &l.ssmOut,
                                      &l.gate, &l.up, &l.down})
            if (m->data) shapes.push_back({m->n, m->k});
    return size_t(cudaPrefillTileElements(shapes));
}

Status PrefillGemm::run(const DeviceMatrix& w, const __half* x16, const float* x32, int tokens, float* y) const {
    const float one = 1.0f, zero = 0.0f;
    // Row-major Y[T][n] = X[T][k]·Wᵀ is, column-major, Yᵀ(n×T) = W(k×n)ᵀ · Xᵀ(k×T).
    // A view (rows of a fused matrix): F32/F16 rows are contiguous, the others dequantize by row.
    const size_t viewElements = size_t(w.rowOffset) * size_t(w.k);
    if (w.type == kernels::GemvType::F32)
        return blasStatus(cublasGemmEx(m_blas, CUBLAS_OP_T, CUBLAS_OP_N, w.n, tokens, w.k, &one,
                                       static_cast<const float*>(w.data) + viewElements, CUDA_R_32F,
                                       w.k, x32, CUDA_R_32F, w.k, &zero, y, CUDA_R_32F, w.n, CUBLAS_COMPUTE_32F,
                                       CUBLAS_GEMM_DEFAULT),
                          "fp32 GEMM");
    if (w.type == kernels::GemvType::F16)
        return blasStatus(cublasGemmEx(m_blas, CUBLAS_OP_T, CUBLAS_OP_N, w.n, tokens, w.k, &one,
                                       static_cast<const __half*>(w.data) + viewElements, CUDA_R_16F,
                                       w.k, x16, CUDA_R_16F, w.k, &zero, y, CUDA_R_32F, w.n, CUBLAS_COMPUTE_32F,
                                       CUBLAS_GEMM_DEFAULT),
                          "fp16 GEMM");
    // Tiles start at multiples of 256 rows: cuBLAS takes its fast kernels only when every operand
    // (here the output's row offset) is 16-byte aligned; an odd offset fell back to align-1 kernels
    // that ran at a third of the speed.
    size_t fit = std::min<size_t>(size_t(w.n), m_tileElements / size_t(w.k));
    if (fit < size_t(w.n) && fit >= 256) fit -= fit % 256;
    const int tileRows = int(std::max<size_t>(1, fit));
    for (int row0 = 0; row0 < w.n; row0 += tileRows) {
        const int rows = std::min(tileRows, w.n - row0);
        HEARTH_CUDA_CHECK(kernels::launchDequantizeRows(w.type, w.data, w.stored(), w.k, w.rowOffset + row0, rows,
                                                        m_scratch, m_stream));
        HEARTH_TRY(blasStatus(cublasGemmEx(m_blas, CUBLAS_OP_T, CUBLAS_OP_N, rows, tokens, w.k, &one, m_scratch,
                                           CUDA_R_16F, w.k, x16, CUDA_R_16F, w.k, &zero, y + row0, CUDA_R_32F, w.n,
                                           CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                              "dequantized GEMM"));
    }
    return Status::ok();
}

} // namespace hearth::cuda
