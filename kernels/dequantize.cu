// Weight rows to fp32/fp16 (prefill's tiles for the tensor-core GEMMs) and the embedding lookup.
// One thread per element, each reading its element through weightAt.
#include "hearth_kernels/ops.h"
#include "weight_element.cuh"

namespace hearth::kernels {
namespace {

using namespace detail;

template <GemvType T, typename Out>
__global__ void dequantizeRowsKernel(const uint8_t* __restrict__ w, int n, int k, int row0, int rows,
                                     Out* __restrict__ out) {
    const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= size_t(rows) * size_t(k)) return;
    const int r = int(i / size_t(k)), c = int(i % size_t(k));
    const float v = weightAt<T>(w, n, k, row0 + r, c);
    if constexpr (sizeof(Out) == 2)
        out[i] = __float2half_rn(v);
    else
        out[i] = v;
}

template <GemvType T>
__global__ void embedKernel(const uint8_t* __restrict__ w, int n, int k, const int* __restrict__ tokens, int count,
                            float* __restrict__ out) {
    const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= size_t(count) * size_t(k)) return;
    const int t = int(i / size_t(k)), c = int(i % size_t(k));
    const int id = tokens[t];
    out[i] = id >= 0 && id < n ? weightAt<T>(w, n, k, id, c) : 0.0f;
}

unsigned gridFor(size_t threads) { return unsigned((threads + 255) / 256); }

template <typename Out>
cudaError_t dequantize(GemvType type, const void* w, int n, int k, int row0, int rows, Out* out,
                       cudaStream_t stream) {
    if (!w || !out || !gemvSupports(type, n, k) || row0 < 0 || rows <= 0 || row0 + rows > n)
        return cudaErrorInvalidValue;
    return withWeightType(type, [&]<GemvType T>() {
        dequantizeRowsKernel<T, Out><<<gridFor(size_t(rows) * k), 256, 0, stream>>>(
            static_cast<const uint8_t*>(w), n, k, row0, rows, out);
        return cudaGetLastError();
    });
}

} // namespace

cudaError_t launchDequantizeRows(GemvType type, const void* w, int n, int k, int row0, int rows, float* out,
                                 cudaStream_t stream) {
    return dequantize(type, w, n, k, row0, rows, out, stream);
}

cudaError_t launchDequantizeRows(GemvType type, const void* w, int n, int k, int row0, int rows, __half* out,
                                 cudaStream_t stream) {
    return dequantize(type, w, n, k, row0, rows, out, stream);
}

cudaError_t launchEmbed(GemvType type, const void* w, int n, int k, const int* tokens, int count, float* out,
                        cudaStream_t stream) {
    if (!w || !tokens || !out || !gemvSupports(type, n, k) || count <= 0) return cudaErrorInvalidValue;
    return withWeightType(type, [&]<GemvType T>() {
        embedKernel<T><<<gridFor(size_t(count) * k), 256, 0, stream>>>(static_cast<const uint8_t*>(w), n, k, tokens,
                                                                        count, out);
        return cudaGetLastError();
    });
}

} // namespace hearth::kernels
