// RMSNorm with the residual add in front of it and the GEMVs' input forms behind it: one kernel
// per block boundary of a layer (x += block output; xn = norm(x) · w as fp32, fp16 and/or X8).
// One thread block per row; the sum of squares is reduced in a fixed order (reproducible).
#include "hearth_kernels/ops.h"
#include "x8_group.cuh"

namespace hearth::kernels {
namespace {

constexpr int kThreads = 256;

__device__ float blockSum(float v, float* shared) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    const int warp = int(threadIdx.x >> 5), lane = int(threadIdx.x & 31);
    if (lane == 0) shared[warp] = v;
    __syncthreads();
    float total = 0.0f;
    for (int i = 0; i < kThreads / 32; ++i) total += shared[i];
    __syncthreads();
    return total;
}

__global__ void rmsNormKernel(float* __restrict__ xs, const float* __restrict__ deltas, const float* __restrict__ w,
                              int n, float eps, NormOut out) {
    __shared__ float shared[kThreads / 32];
    const int row = blockIdx.x;
    float* x = xs + size_t(row) * n;
    float squares = 0.0f;
    for (int i = threadIdx.x; i < n; i += kThreads) {
        float v = x[i];
        if (deltas) x[i] = v += deltas[size_t(row) * n + i];
        squares = fmaf(v, v, squares);
    }
    const float scale = rsqrtf(blockSum(squares, shared) / float(n) + eps);
    // A warp takes whole groups of 32 (the X8 groups), lane = element within the group.
    const int warp = int(threadIdx.x >> 5), lane = int(threadIdx.x & 31);
    int8_t* x8 = static_cast<int8_t*>(out.x8);
    if (x8) x8 += size_t(row) * gemvX8Bytes(n);
    for (int g = warp; 32 * g < n; g += kThreads / 32) {
        const int i = 32 * g + lane;
        const float v = i < n ? x[i] * scale * w[i] : 0.0f;
        if (i < n && out.f32) out.f32[size_t(row) * n + i] = v;
        if (i < n && out.f16) out.f16[size_t(row) * n + i] = __float2half_rn(v);
        if (x8) detail::storeX8Group(v, lane, n, g, x8);
    }
}

} // namespace

cudaError_t launchRmsNorm(float* x, const float* delta, const float* w, int n, int rows, float eps,
                          const NormOut& out, cudaStream_t stream) {
    if (!x || !w || n <= 0 || rows <= 0 || (out.x8 && n % 32 != 0)) return cudaErrorInvalidValue;
    rmsNormKernel<<<unsigned(rows), kThreads, 0, stream>>>(x, delta, w, n, eps, out);
    return cudaGetLastError();
}

} // namespace hearth::kernels
