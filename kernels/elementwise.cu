// Small element-wise steps of a forward pass: SiLU-gated product, the sigmoid output gate, fp32 ->
// fp16, bias rows, and the greedy pick (argmax) so a greedy decode returns one id instead of the
// logits.
#include <climits>

#include "activations.cuh"
#include "hearth_kernels/ops.h"
#include "pdl.cuh"

namespace hearth::kernels {
namespace {

unsigned gridFor(size_t threads) { return unsigned((threads + 255) / 256); }

template <typename Out>
__global__ void siluMulKernel(const float* __restrict__ gate, const float* __restrict__ up, size_t count,
                              Out* __restrict__ out) {
    const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= count) return;
    const float v = detail::siluOf(gate[i]) * up[i];
    if constexpr (sizeof(Out) == 2)
        out[i] = __float2half_rn(v);
    else
        out[i] = v;
}

// Prefill's; decode's gate is applied in attention's combine (attention.cu).
__global__ void sigmoidGateKernel(float* __restrict__ x, const float* __restrict__ gate, size_t count) {
    const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < count) x[i] *= detail::sigmoidOf(gate[i]);
}

__global__ void toHalfKernel(const float* __restrict__ in, size_t count, __half* __restrict__ out) {
    const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < count) out[i] = __float2half_rn(in[i]);
}

__global__ void addBiasKernel(float* __restrict__ x, const float* __restrict__ bias, int rows, int cols) {
    const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < size_t(rows) * cols) x[i] += bias[i % size_t(cols)];
}

constexpr int kArgmaxThreads = 1024;

// (value, index) ordering of the greedy rule: larger value first, then lower index.
__device__ __forceinline__ bool better(float v, int i, float bv, int bi) { return v > bv || (v == bv && i < bi); }

constexpr int kArgmaxInFlight = 8; // 16-byte loads a thread issues before comparing any

__device__ __forceinline__ void consider(float v, int i, float& best, int& bestIndex) {
    if (isnan(v)) v = -INFINITY;
    if (better(v, i, best, bestIndex)) best = v, bestIndex = i;
}

// One block (the pick must be one id, without a second pass): with one 4-byte load at a time each
// thread waited on L2 ~250 times over a 248k vocabulary (37 µs); 16-byte loads, eight in flight.
// Vec: x is 16-byte aligned.
template <bool Vec>
__global__ void argmaxKernel(const float* __restrict__ x, int n, int* __restrict__ out) {
    __shared__ float values[kArgmaxThreads / 32];
    __shared__ int indices[kArgmaxThreads / 32];
    detail::pdlWait(); // a decode step launches this as a programmatic dependent (pdl.cuh)
    detail::pdlTrigger();
    float best = -INFINITY;
    int bestIndex = INT_MAX;
    const int vectors = Vec ? n / 4 : 0;
    const float4* x4 = reinterpret_cast<const float4*>(x);
    for (int base = threadIdx.x; base < vectors; base += kArgmaxInFlight * kArgmaxThreads) {
        float4 v[kArgmaxInFlight];
#pragma unroll
        for (int u = 0; u < kArgmaxInFlight; ++u) {
            const int i = base + u * kArgmaxThreads;
            v[u] = i < vectors ? __ldg(x4 + i) : make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
        }
#pragma unroll
        for (int u = 0; u < kArgmaxInFlight; ++u) {
            const int i = 4 * (base + u * kArgmaxThreads);
            consider(v[u].x, i, best, bestIndex), consider(v[u].y, i + 1, best, bestIndex);
            consider(v[u].z, i + 2, best, bestIndex), consider(v[u].w, i + 3, best, bestIndex);
        }
    }
    for (int i = 4 * vectors + int(threadIdx.x); i < n; i += kArgmaxThreads) consider(x[i], i, best, bestIndex);
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        const float v = __shfl_xor_sync(0xffffffffu, best, o);
        const int i = __shfl_xor_sync(0xffffffffu, bestIndex, o);
        if (better(v, i, best, bestIndex)) best = v, bestIndex = i;
    }
    const int warp = int(threadIdx.x >> 5), lane = int(threadIdx.x & 31);
    if (lane == 0) values[warp] = best, indices[warp] = bestIndex;
    __syncthreads();
    if (threadIdx.x != 0) return;
    for (int w = 1; w < kArgmaxThreads / 32; ++w)
        if (better(values[w], indices[w], best, bestIndex)) best = values[w], bestIndex = indices[w];
    *out = bestIndex == INT_MAX ? 0 : bestIndex;
}

} // namespace

cudaError_t launchSiluMul(const float* gate, const float* up, size_t count, float* out, cudaStream_t stream) {
    if (!gate || !up || !out || count == 0) return cudaErrorInvalidValue;
    siluMulKernel<float><<<gridFor(count), 256, 0, stream>>>(gate, up, count, out);
    return cudaGetLastError();
}

cudaError_t launchSiluMul(const float* gate, const float* up, size_t count, __half* out, cudaStream_t stream) {
    if (!gate || !up || !out || count == 0) return cudaErrorInvalidValue;
    siluMulKernel<__half><<<gridFor(count), 256, 0, stream>>>(gate, up, count, out);
    return cudaGetLastError();
}

cudaError_t launchSigmoidGate(float* x, const float* gate, size_t count, cudaStream_t stream) {
    if (!x || !gate || count == 0) return cudaErrorInvalidValue;
    sigmoidGateKernel<<<gridFor(count), 256, 0, stream>>>(x, gate, count);
    return cudaGetLastError();
}

cudaError_t launchToHalf(const float* in, size_t count, __half* out, cudaStream_t stream) {
    if (!in || !out || count == 0) return cudaErrorInvalidValue;
    toHalfKernel<<<gridFor(count), 256, 0, stream>>>(in, count, out);
    return cudaGetLastError();
}

cudaError_t launchAddBias(float* x, const float* bias, int rows, int cols, cudaStream_t stream) {
    if (!x || !bias || rows <= 0 || cols <= 0) return cudaErrorInvalidValue;
    addBiasKernel<<<gridFor(size_t(rows) * cols), 256, 0, stream>>>(x, bias, rows, cols);
    return cudaGetLastError();
}

cudaError_t launchArgmax(const float* x, int n, int* out, cudaStream_t stream, bool pdl) {
    if (!x || !out || n <= 0) return cudaErrorInvalidValue;
    if (reinterpret_cast<uintptr_t>(x) % 16 == 0)
        return detail::launchEx(argmaxKernel<true>, 1u, unsigned(kArgmaxThreads), stream, pdl, x, n, out);
    return detail::launchEx(argmaxKernel<false>, 1u, unsigned(kArgmaxThreads), stream, pdl, x, n, out);
}

} // namespace hearth::kernels
