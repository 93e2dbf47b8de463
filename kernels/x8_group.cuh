// Writing one X8 group (gemv.h's layout): the one definition of how 32 fp32 values become int8
// values with their record, shared by the kernels that produce X8 (launchQuantizeX8 and the
// RMSNorm that writes the GEMVs' input directly).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "hearth_kernels/gemv.h"

namespace hearth::kernels::detail {

// Called by a whole warp, lane l holding element l of a group of 32: the lane's int8 value
// q = round(v/d) and the group's d = max|v|/127 — how every X8 group is quantized.
__device__ __forceinline__ int quantizeX8Lane(float v, float& d) {
    float amax = fabsf(v);
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, o));
    d = amax / 127.0f;
    return amax > 0.0f ? max(-127, min(127, __float2int_rn(v * (127.0f / amax)))) : 0;
}

// Called by a whole warp, lane l holding element l of group `group` of an X8 vector of k
// elements: q = round(v/d), d = max|v|/127, and the record {d, Σq of 0..15, Σq of 16..31, d·Σq}.
__device__ __forceinline__ void storeX8Group(float v, int lane, int k, int group, int8_t* __restrict__ xq) {
    float d;
    const int q = quantizeX8Lane(v, d);
    int half = q;
#pragma unroll
    for (int o = 8; o > 0; o >>= 1) half += __shfl_xor_sync(0xffffffffu, half, o);
    const int other = __shfl_xor_sync(0xffffffffu, half, 16);
    xq[gemvX8ValueOffset(k, 32 * group + lane)] = int8_t(q);
    if (lane == 0)
        *reinterpret_cast<float4*>(xq + gemvX8RecordOffset(k, group)) =
            make_float4(d, __int_as_float(half), __int_as_float(other), d * float(half + other));
}

} // namespace hearth::kernels::detail
