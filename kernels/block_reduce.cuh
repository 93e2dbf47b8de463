// A value reduced over a thread block in a fixed order (results are reproducible), for the kernels
// that norm or combine a row in one block (RMSNorm, the DeltaNet's norms, attention's combine).
#pragma once

#include <cuda_runtime.h>

namespace hearth::kernels::detail {

// The sum (Max: the maximum) of v over the block, which every thread gets; blockDim.x a multiple
// of 32, scratch 32 floats. The sync before the writes lets a block call it again with the same
// scratch; the one after them also publishes what the threads stored in shared memory before.
template <bool Max = false>
__device__ __forceinline__ float blockReduce(float v, float* scratch) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        const float other = __shfl_xor_sync(0xffffffffu, v, o);
        v = Max ? fmaxf(v, other) : v + other;
    }
    __syncthreads();
    if ((threadIdx.x & 31) == 0) scratch[threadIdx.x >> 5] = v;
    __syncthreads();
    float total = Max ? -INFINITY : 0.0f;
    for (int w = 0; w < int(blockDim.x >> 5); ++w) total = Max ? fmaxf(total, scratch[w]) : total + scratch[w];
    return total;
}

__device__ __forceinline__ float blockSum(float v, float* scratch) { return blockReduce<false>(v, scratch); }

} // namespace hearth::kernels::detail
