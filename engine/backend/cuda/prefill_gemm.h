// Prefill's matrix products on the tensor cores: Y[T][n] = X[T][k] · Wᵀ for any weight type.
// F32 and F16 weights are multiplied as they are; every other type is dequantized to fp16 a tile
// of rows at a time into a fixed scratch (so a 27k-row FFN matrix needs no full fp16 copy) and
// multiplied with fp32 accumulation (cuBLAS).
#pragma once

#include <cublas_v2.h>
#include <cuda_fp16.h>

#include "backend/cuda/device_weights.h"
#include "hearth/status.h"

namespace hearth::cuda {

class PrefillGemm {
public:
    // scratch: tileElements fp16 values of device memory, owned by the caller.
    PrefillGemm(cublasHandle_t blas, cudaStream_t stream, __half* scratch, size_t tileElements)
        : m_blas(blas), m_stream(stream), m_scratch(scratch), m_tileElements(tileElements) {}

    // x16: X as fp16 (every type but F32); x32: X as fp32 (F32 weights). y: fp32, row stride n.
    Status run(const DeviceMatrix& w, const __half* x16, const float* x32, int tokens, float* y) const;

private:
    cublasHandle_t m_blas;
    cudaStream_t m_stream;
    __half* m_scratch;
    size_t m_tileElements;
};

// Scratch elements for a tile of at least one row of every matrix, at most ~32 M values.
size_t prefillTileElements(const DeviceWeights& weights);

} // namespace hearth::cuda
