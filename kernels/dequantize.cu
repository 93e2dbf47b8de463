// Weight rows to fp32/fp16 (prefill's tiles for the tensor-core GEMMs) and the embedding lookup.
// Dequantization takes eight consecutive elements a thread (weightsAt8: one load of their quants,
// one 16-byte store of fp16) where k allows it, one element a thread (weightAt) otherwise.
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

template <GemvType T, typename Out>
__global__ void dequantizeRows8Kernel(const uint8_t* __restrict__ w, int n, int k, int row0, int rows,
                                      Out* __restrict__ out) {
    const int groupsPerRow = k / 8;
    const size_t g = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (g >= size_t(rows) * size_t(groupsPerRow)) return;
    const int r = int(g / unsigned(groupsPerRow)), c0 = int(g % unsigned(groupsPerRow)) * 8;
    float v[8];
    weightsAt8<T>(w, n, k, row0 + r, c0, v);
    if constexpr (sizeof(Out) == 2) {
        uint4 packed;
        uint32_t* words = reinterpret_cast<uint32_t*>(&packed);
        for (int j = 0; j < 4; ++j)
            words[j] = uint32_t(__half_as_ushort(__float2half_rn(v[2 * j]))) |
                       uint32_t(__half_as_ushort(__float2half_rn(v[2 * j + 1]))) << 16;
        reinterpret_cast<uint4*>(out)[g] = packed;
    } else {
        reinterpret_cast<float4*>(out)[2 * g] = make_float4(v[0], v[1], v[2], v[3]);
        reinterpret_cast<float4*>(out)[2 * g + 1] = make_float4(v[4], v[5], v[6], v[7]);
    }
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
    const bool wide = k % 8 == 0 && reinterpret_cast<uintptr_t>(w) % 16 == 0 && reinterpret_cast<uintptr_t>(out) % 16 == 0;
    return withWeightType(type, [&]<GemvType T>() {
        if (wide)
            dequantizeRows8Kernel<T, Out><<<gridFor(size_t(rows) * (k / 8)), 256, 0, stream>>>(
                static_cast<const uint8_t*>(w), n, k, row0, rows, out);
        else
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
