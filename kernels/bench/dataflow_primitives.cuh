// The pieces of hearth-bench-dataflow's kernel that are not its schedule (experiment; the engine
// does not use them): a stage's mbarrier and the two ways of filling it (one cp.async.bulk on
// sm_90, 16-byte cp.async pieces elsewhere), counters between blocks, and reads of Q4_K units and
// X8 pairs from shared memory or L2.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "../gemv_q4k.cuh"
#include "hearth_kernels/gemv.h"

namespace hearth::kernels::detail {

// ---- mbarrier and bulk copy (sm_90) ----------------------------------------------------------

__device__ __forceinline__ uint32_t smemAddr(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

__device__ __forceinline__ void mbarInit(uint64_t* bar, unsigned count) {
#if __CUDA_ARCH__ >= 900
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smemAddr(bar)), "r"(count));
#endif
}
__device__ __forceinline__ void mbarArrive(uint64_t* bar) {
#if __CUDA_ARCH__ >= 900
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smemAddr(bar)) : "memory");
#endif
}
__device__ __forceinline__ void mbarExpect(uint64_t* bar, unsigned bytes) {
#if __CUDA_ARCH__ >= 900
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smemAddr(bar)), "r"(bytes)
                 : "memory");
#endif
}
// suspendNs > 0: each try_wait may suspend the thread until the phase completes (at most that
// long) instead of returning at once, so a waiting warp does not spin through issue slots.
__device__ __forceinline__ void mbarWait(uint64_t* bar, unsigned parity, unsigned suspendNs = 0) {
#if __CUDA_ARCH__ >= 900
    if (suspendNs)
        asm volatile("{\n"
                     ".reg .pred p;\n"
                     "W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1, %2;\n"
                     "@!p bra W;\n"
                     "}" ::"r"(smemAddr(bar)),
                     "r"(parity), "r"(suspendNs)
                     : "memory");
    else
        asm volatile("{\n"
                     ".reg .pred p;\n"
                     "W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
                     "@!p bra W;\n"
                     "}" ::"r"(smemAddr(bar)),
                     "r"(parity)
                     : "memory");
#endif
}
__device__ __forceinline__ void bulkLoad(void* dst, const void* src, unsigned bytes, uint64_t* bar) {
#if __CUDA_ARCH__ >= 900
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     smemAddr(dst)),
                 "l"(src), "r"(bytes), "r"(smemAddr(bar))
                 : "memory");
#endif
}

__device__ __forceinline__ void pieceLoad(void* dst, const void* src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smemAddr(dst)), "l"(src) : "memory");
}
__device__ __forceinline__ void pieceArrive(uint64_t* bar) {
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(smemAddr(bar)) : "memory");
}

// ---- counters between blocks -----------------------------------------------------------------

__device__ __forceinline__ unsigned loadAcquire(const unsigned* p) {
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ unsigned loadRelaxed(const unsigned* p) {
    unsigned v;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
// A warp waits until *p >= want. An acquire load invalidates the SM's L1 (CCTL.IVALL) each time;
// relaxed: spin on relaxed loads and acquire once, when the count is reached.
__device__ __forceinline__ void warpWaitCount(const unsigned* p, unsigned want, bool relaxed = false) {
    if ((threadIdx.x & 31) == 0) {
        if (relaxed) {
            while (loadRelaxed(p) < want) __nanosleep(20);
            (void)loadAcquire(p);
        } else {
            while (loadAcquire(p) < want) __nanosleep(20);
        }
    }
    __syncwarp();
}
// After a warp's stores: every lane fences, then lane 0 counts the group in; or (release) the
// warp's stores ordered by __syncwarp and published by lane 0's release atomic.
__device__ __forceinline__ void warpSignal(unsigned* p, bool release) {
    if (release) {
        __syncwarp();
        if ((threadIdx.x & 31) == 0) asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(p) : "memory");
        return;
    }
    __threadfence();
    __syncwarp();
    if ((threadIdx.x & 31) == 0) atomicAdd(p, 1u);
}

// One Q4_K unit from a page in shared memory (the layout of Q4K::load).
__device__ __forceinline__ Q4K<true>::Raw loadShared(const uint8_t* row, int unit) {
    const uint8_t* blk = row + (unit >> 2) * 144;
    const uint8_t* q = blk + 16 + 32 * (unit & 3);
    Q4K<true>::Raw r;
    r.h = *reinterpret_cast<const uint4*>(blk);
    r.q0 = *reinterpret_cast<const uint4*>(q);
    r.q1 = *reinterpret_cast<const uint4*>(q + 16);
    return r;
}

// X8 pair of unit u (gemv_kernel.cuh's x8Unit addressing), read through L2 (ld.cg: x written by
// other blocks during this kernel) or plainly (a copy in shared memory).
template <bool L2>
__device__ __forceinline__ X8Pair loadX8Via(const int8_t* xq, int k, int u) {
    const X8Unit x = x8Unit(xq, k, u);
    auto piece = [&](int c) {
        const int4* p = reinterpret_cast<const int4*>(x.value + c * x.stride);
        return L2 ? __ldcg(p) : *p;
    };
    auto record = [&](int h) {
        const float4* p = reinterpret_cast<const float4*>(x.record + h * x.stride);
        return L2 ? __ldcg(p) : *p;
    };
    return X8Pair{X8Group{piece(0), piece(1), record(0)}, X8Group{piece(2), piece(3), record(1)}};
}
__device__ __forceinline__ X8Pair loadX8Shared(const int8_t* xs, int k, int u) { return loadX8Via<false>(xs, k, u); }
__device__ __forceinline__ X8Pair loadX8L2(const int8_t* xq, int k, int u) { return loadX8Via<true>(xq, k, u); }

__device__ __forceinline__ float warpSum(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

} // namespace hearth::kernels::detail
