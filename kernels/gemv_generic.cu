// GEMV for the types without a tuned family (F32, F16, Q5_0): one warp per row, fp32 x, each
// lane summing a strided share of the row through weightAt, then a shuffle reduction (fixed
// order: results are reproducible). Correct for every shape gemvSupports takes; not tuned.
#include "gemv_dispatch.h"
#include "weight_element.cuh"

namespace hearth::kernels {
namespace {

using namespace detail;

constexpr int kWarps = 4;

template <GemvType T, bool Glu>
__global__ void gemvGenericKernel(const uint8_t* __restrict__ wa, const uint8_t* __restrict__ wb,
                                  const float* __restrict__ x, float* __restrict__ y, int n, int k) {
    const int row = blockIdx.x * kWarps + int(threadIdx.x >> 5), lane = int(threadIdx.x & 31);
    if (row >= n) return;
    float a = 0.0f, b = 0.0f;
    for (int c = lane; c < k; c += 32) {
        const float xv = x[c];
        a = fmaf(weightAt<T>(wa, n, k, row, c), xv, a);
        if constexpr (Glu) b = fmaf(weightAt<T>(wb, n, k, row, c), xv, b);
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        a += __shfl_xor_sync(0xffffffffu, a, o);
        if constexpr (Glu) b += __shfl_xor_sync(0xffffffffu, b, o);
    }
    if (lane != 0) return;
    if constexpr (Glu)
        y[row] = a / (1.0f + __expf(-a)) * b;
    else
        y[row] = a;
}

} // namespace

cudaError_t detail::gemvGeneric(GemvType type, const GemvCall& call) {
    const unsigned blocks = unsigned((call.n + kWarps - 1) / kWarps);
    const auto* wa = static_cast<const uint8_t*>(call.wa);
    const auto* wb = static_cast<const uint8_t*>(call.wb);
    const auto* x = static_cast<const float*>(call.x);
    return withWeightType(type, [&]<GemvType T>() {
        if (call.glu)
            gemvGenericKernel<T, true><<<blocks, 32 * kWarps, 0, call.stream>>>(wa, wb, x, call.y, call.n, call.k);
        else
            gemvGenericKernel<T, false><<<blocks, 32 * kWarps, 0, call.stream>>>(wa, wb, x, call.y, call.n, call.k);
        return cudaGetLastError();
    });
}

} // namespace hearth::kernels
