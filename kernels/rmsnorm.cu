// RMSNorm with the residual add in front of it and the GEMVs' input forms behind it: one kernel
// per block boundary of a layer (x += block output; xn = norm(x) · w as fp32, fp16 and/or X8).
// One thread block per row; the sum of squares is reduced in a fixed order (reproducible).
// A decode step runs one row 2-3 times a layer, so the row must not be a chain of dependent
// loads: rows up to kMaxInRegisters values are loaded in one go (every thread's loads issued
// before the first use) and kept in registers through the norm; longer rows loop.
#include <algorithm>

#include "block_reduce.cuh"
#include "gemv_kernel.cuh"
#include "hearth_kernels/ops.h"
#include "x8_group.cuh"

namespace hearth::kernels {
namespace {

constexpr int kPerThread = 8;
constexpr int kMaxThreads = 1024;
constexpr int kMaxInRegisters = kPerThread * kMaxThreads;
constexpr int kLoopThreads = 256;

using detail::blockSum;

// Element i = threadIdx.x + j · blockDim.x of the row is thread's value j: a warp holds 32
// consecutive elements, one X8 group.
__global__ void __launch_bounds__(kMaxThreads) rmsNormKernel(float* __restrict__ xs, const float* __restrict__ deltas,
                                                             const float* __restrict__ w, int n, float eps,
                                                             NormOut out) {
    __shared__ float shared[kMaxThreads / 32];
    const int row = blockIdx.x, T = int(blockDim.x);
    float wv[kPerThread]; // the norm's weights are constants: loaded while the kernel before finishes
#pragma unroll
    for (int j = 0; j < kPerThread; ++j) {
        const int i = int(threadIdx.x) + j * T;
        wv[j] = i < n ? w[i] : 0.0f;
    }
    detail::pdlWait(); // x and the delta are the previous kernels' outputs
    detail::pdlTrigger();
    float* x = xs + size_t(row) * n;
    const float* delta = deltas ? deltas + size_t(row) * n : nullptr;
    float v[kPerThread];
#pragma unroll
    for (int j = 0; j < kPerThread; ++j) {
        const int i = int(threadIdx.x) + j * T;
        v[j] = i < n ? x[i] : 0.0f;
    }
    if (delta) {
#pragma unroll
        for (int j = 0; j < kPerThread; ++j) {
            const int i = int(threadIdx.x) + j * T;
            if (i < n) x[i] = v[j] += delta[i];
        }
    }
    float squares = 0.0f;
#pragma unroll
    for (int j = 0; j < kPerThread; ++j) squares = fmaf(v[j], v[j], squares);
    const float scale = rsqrtf(blockSum(squares, shared) / float(n) + eps);
    const int lane = int(threadIdx.x & 31);
    int8_t* x8 = static_cast<int8_t*>(out.x8);
    if (x8) x8 += size_t(row) * gemvX8Bytes(n);
#pragma unroll
    for (int j = 0; j < kPerThread; ++j) {
        const int i = int(threadIdx.x) + j * T, group = (i - lane) >> 5; // warp-uniform
        if (32 * group >= n) break;
        const float y = i < n ? v[j] * scale * wv[j] : 0.0f;
        if (i < n && out.f32) out.f32[size_t(row) * n + i] = y;
        if (i < n && out.f16) out.f16[size_t(row) * n + i] = __float2half_rn(y);
        if (x8) detail::storeX8Group(y, lane, n, group, x8);
    }
}

// Rows longer than kMaxInRegisters: the loop form.
__global__ void rmsNormLoopKernel(float* __restrict__ xs, const float* __restrict__ deltas, const float* __restrict__ w,
                                  int n, float eps, NormOut out) {
    __shared__ float shared[kLoopThreads / 32];
    detail::pdlWait();
    detail::pdlTrigger();
    const int row = blockIdx.x;
    float* x = xs + size_t(row) * n;
    float squares = 0.0f;
    for (int i = threadIdx.x; i < n; i += kLoopThreads) {
        float v = x[i];
        if (deltas) x[i] = v += deltas[size_t(row) * n + i];
        squares = fmaf(v, v, squares);
    }
    const float scale = rsqrtf(blockSum(squares, shared) / float(n) + eps);
    // A warp takes whole groups of 32 (the X8 groups), lane = element within the group.
    const int warp = int(threadIdx.x >> 5), lane = int(threadIdx.x & 31);
    int8_t* x8 = static_cast<int8_t*>(out.x8);
    if (x8) x8 += size_t(row) * gemvX8Bytes(n);
    for (int g = warp; 32 * g < n; g += kLoopThreads / 32) {
        const int i = 32 * g + lane;
        const float v = i < n ? x[i] * scale * w[i] : 0.0f;
        if (i < n && out.f32) out.f32[size_t(row) * n + i] = v;
        if (i < n && out.f16) out.f16[size_t(row) * n + i] = __float2half_rn(v);
        if (x8) detail::storeX8Group(v, lane, n, g, x8);
    }
}

} // namespace

cudaError_t launchRmsNorm(float* x, const float* delta, const float* w, int n, int rows, float eps,
                          const NormOut& out, cudaStream_t stream, bool pdl) {
    if (!x || !w || n <= 0 || rows <= 0 || (out.x8 && n % 32 != 0)) return cudaErrorInvalidValue;
    if (n > kMaxInRegisters)
        return detail::launchEx(rmsNormLoopKernel, unsigned(rows), unsigned(kLoopThreads), stream, pdl, x, delta, w, n,
                                eps, out);
    // About four values a thread: enough threads that every load is in flight at once.
    // (n <= kMaxInRegisters, so at most kPerThread values a thread even at kMaxThreads.)
    const int threads = std::min(kMaxThreads, std::max(64, (n / 4 + 31) / 32 * 32));
    return detail::launchEx(rmsNormKernel, unsigned(rows), unsigned(threads), stream, pdl, x, delta, w, n, eps, out);
}

} // namespace hearth::kernels
