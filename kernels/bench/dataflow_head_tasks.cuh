// hearth-bench-dataflow's second form of the decode attention as tasks (--kv-ranges R, kinds 13-14;
// experiment, the engine does not use it): a task per (KV head, range of cache rows), no combine
// phase. The first form (dataflow_attention.cuh) split rows over all KV heads and had 32 blocks
// combine every task's partials after a wait of their own; ablations (tenth session) put 13 µs a
// layer on that combine even with no waits at all — its dependent L2 round trips queue behind the
// weight streams. Here:
//  - task t = range · 8 + kv streams KV head kv's rows [range · span, ...) (span a multiple of 16),
//    16 rows a page (K then V, 4 KB each, one 256-byte bulk copy a row: the cache is
//    [position][KV head · 128]); the last range also holds the new position;
//  - worker warp w takes pages w, w + 8, ... of the task (every warp takes and releases every page,
//    as the ring wants), keeping an online softmax for the KV head's 4 query heads; the warps merge
//    in shared memory, warps 0-3 holding a query head each;
//  - the block writes its 4 partials and takes a ticket on its KV head's counter; the block that
//    arrives last merges the other ranges' partials (one round trip) and writes the 4 heads as 16
//    groups of o's x. o waits for the 32 heads as before.
#pragma once

#include "dataflow_attention.cuh"

namespace hearth::kernels::dataflow {

constexpr int kHeadPageRows = 16;                       // rows of one KV head a page
constexpr int kHeadRowBytes = kHeadDim * 2;             // 256: one KV head's f16 row
constexpr int kHeadPageHalf = kHeadPageRows * kHeadRowBytes; // K at 0, V at this offset

// Rows [begin, end) below the new position that task t streams (its KV head is t % kKvHeads).
__device__ __forceinline__ int headTaskBegin(const Args& a, int t) { return min((t / kKvHeads) * a.attnSpan, a.depth); }
__device__ __forceinline__ int headTaskEnd(const Args& a, int t) {
    return t / kKvHeads == a.kvRanges - 1 ? a.depth : min((t / kKvHeads + 1) * a.attnSpan, a.depth);
}

// The loader's pages of task t: per page, K's rows then V's rows of the task's KV head.
template <class Issue>
__device__ void loadHeadTask(const Args& a, const Layer& L, int t, Issue&& issue) {
    const int kv = t % kKvHeads, end = headTaskEnd(a, t);
    for (int p = headTaskBegin(a, t); p < end; p += kHeadPageRows) {
        const int rows = min(kHeadPageRows, end - p);
        issue(unsigned(2 * rows * kHeadRowBytes), [&](uint8_t* stage, uint64_t* bar) {
            for (int j = 0; j < rows; ++j) {
                const size_t row = (size_t(p + j) * kKvHeads + kv) * kHeadDim;
                bulkLoad(stage + j * kHeadRowBytes, L.kCache + row, kHeadRowBytes, bar);
                bulkLoad(stage + kHeadPageHalf + j * kHeadRowBytes, L.vCache + row, kHeadRowBytes, bar);
            }
        });
    }
}

// Task t on the block's worker warps. `take()`/`release()` are the workers' ring; `sync()` the
// workers' barrier; `scratch` ≥ kWarps · 2 · kPartialFloats floats of shared memory that no phase
// holds now; `ticket` one word of shared memory. Returns after the block's part is counted in (and,
// in the last block of the KV head, its 4 heads written as o's x and counted in oIn).
template <int Warps, class Take, class Release, class Sync>
__device__ void headTask(const Args& a, const Layer& L, const TaskConstants& tc, int layer, int t, Take&& take,
                         Release&& release, Sync&& sync, float* scratch, unsigned* ticket) {
    const int lane = int(threadIdx.x & 31), warp = int(threadIdx.x >> 5), kv = t % kKvHeads;
    float q[kHeadsPerKv][4], o[kHeadsPerKv][4], m[kHeadsPerKv], l[kHeadsPerKv];
    queryHeads(a, tc, kv, true, q, m, l, o);
    const int begin = headTaskBegin(a, t), end = headTaskEnd(a, t);
    const int pages = (end - begin + kHeadPageRows - 1) / kHeadPageRows;
    for (int p = 0; p < pages; ++p) {
        const __half* kp = reinterpret_cast<const __half*>(take());
        if (p % Warps == warp) {
            const int rows = min(kHeadPageRows, end - begin - p * kHeadPageRows);
            const __half* vp = kp + kHeadPageHalf / 2;
            pageOfRows<kHeadDim>(kp, vp, rows, q, m, l, o);
            if (rows > 8) pageOfRows<kHeadDim>(kp + 8 * kHeadDim, vp + 8 * kHeadDim, rows - 8, q, m, l, o);
        }
        release();
    }
    if (t / kKvHeads == a.kvRanges - 1 && warp == pages % Warps) // the new position, on the next warp in turn
        newRowIntoHeads(a, L, tc, kv, q, m, l, o);
    // The warps' partials meet in shared memory, two query heads a round: warp h ends with head h's.
    HeadPartial mine;
#pragma unroll
    for (int round = 0; round < 2; ++round) {
#pragma unroll
        for (int j = 0; j < 2; ++j) {
            const int h = 2 * round + j;
            float* dst = scratch + (warp * 2 + j) * kPartialFloats;
            if (lane == 0) dst[0] = m[h], dst[1] = l[h];
#pragma unroll
            for (int i = 0; i < 4; ++i) dst[2 + lane + 32 * i] = o[h][i];
        }
        sync();
        if (warp / 2 == round)
            for (int w = 0; w < Warps; ++w) mine.mergeFrom(scratch + (w * 2 + (warp & 1)) * kPartialFloats, false);
        sync();
    }
    // The block's partials, then a ticket on the KV head's counter: the last block to arrive merges.
    float* part = a.partial + size_t(t) * kHeadsPerKv * kPartialFloats;
    if (warp < kHeadsPerKv) mine.store(part + warp * kPartialFloats);
    __threadfence();
    sync();
    if (threadIdx.x == 0) *ticket = atomicAdd(&a.kvArrivals[layer * kKvHeads + kv], 1u);
    sync();
    if (*ticket != unsigned(a.kvRanges - 1) || warp >= kHeadsPerKv) return;
    __threadfence(); // the other ranges' partials, seen through their fences and the counter
#pragma unroll 4
    for (int range = 0; range < a.kvRanges; ++range) {
        const int other = range * kKvHeads + kv;
        if (other != t) mine.mergeFrom(a.partial + (size_t(other) * kHeadsPerKv + warp) * kPartialFloats, true);
    }
    const int head = kv * kHeadsPerKv + warp;
#pragma unroll
    for (int i = 0; i < 4; ++i) storeMmaXGroup(mine.o[i] / mine.l, lane, H, head * 4 + i, a.oX);
    warpSignal(&a.oIn[layer], a.releaseSignal);
}

} // namespace hearth::kernels::dataflow
