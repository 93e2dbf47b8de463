// The mma.sync m16n8k16 pieces the tensor-core attention kernels share (attention_prefill.cu,
// attention_decode_mma.cu): fp32 pairs packed to the cache's 16-bit type, one tile's multiply, and
// a step of the online softmax over the accumulator tiles.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace hearth::kernels::detail {

// Two fp32 values as one 32-bit register of the 16-bit type Kv (__half or __nv_bfloat16).
template <typename Kv>
__device__ __forceinline__ uint32_t pack2(float a, float b) {
    if constexpr (std::is_same_v<Kv, __half>) {
        const __half2 h = __floats2half2_rn(a, b);
        return *reinterpret_cast<const uint32_t*>(&h);
    } else {
        const __nv_bfloat162 h = __floats2bfloat162_rn(a, b);
        return *reinterpret_cast<const uint32_t*>(&h);
    }
}

// d += a · b for one 16×8×16 tile: a 16×16 (row), b 16×8 (col), fp32 accumulators.
template <typename Kv>
__device__ __forceinline__ void mma16816(float* d, const uint32_t* a, uint32_t b0, uint32_t b1) {
    if constexpr (std::is_same_v<Kv, __half>)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                     "{%0,%1,%2,%3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    else
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                     "{%0,%1,%2,%3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// One step of the online softmax over a warp's S tiles (m16n8 accumulators: elements 0-1 belong to
// row g, 2-3 to row g + 8, and a row's values lie across the 4 threads of a quad): each row's running
// max m and sum l take the step in, S becomes its weights exp(S − m) and O is rescaled to the new
// max. mx: the maxima of this thread's values of the two rows (the kernels take them while they mask
// S); `exp` is the kernel's exponential (exp2f of log2e-scaled scores, or __expf). Masked scores are
// −∞; every row holds a finite score, so the new max is finite, and a row's first step (m = −∞)
// rescales by exp(−∞) = 0 — or, with kGuardFirst (the decode kernel, as measured), by a 0 chosen
// without the exponential.
template <int NT, int OT, bool kGuardFirst = false, class Exp>
__device__ __forceinline__ void onlineSoftmaxStep(float (&s)[NT][4], float (&mx)[2], float (&m)[2], float (&l)[2],
                                                  float (&o)[OT][4], Exp exp) {
    float corr[2], sum[2] = {0.0f, 0.0f};
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 1));
        mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 2));
        const float mNew = fmaxf(m[r], mx[r]);
        corr[r] = kGuardFirst && m[r] == -INFINITY ? 0.0f : exp(m[r] - mNew);
        m[r] = mNew;
    }
#pragma unroll
    for (int n = 0; n < NT; ++n)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            s[n][e] = exp(s[n][e] - m[e >> 1]);
            sum[e >> 1] += s[n][e];
        }
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        sum[r] += __shfl_xor_sync(0xffffffffu, sum[r], 1);
        sum[r] += __shfl_xor_sync(0xffffffffu, sum[r], 2);
        l[r] = l[r] * corr[r] + sum[r];
    }
#pragma unroll
    for (int n = 0; n < OT; ++n) o[n][0] *= corr[0], o[n][1] *= corr[0], o[n][2] *= corr[1], o[n][3] *= corr[1];
}

} // namespace hearth::kernels::detail
