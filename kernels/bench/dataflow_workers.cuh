// hearth-bench-dataflow's kinds 0-3 (experiment; the engine does not use them): the dataflow FFN
// kernel's dp4a workers, one loader warp (dataflow_args.cuh) and W worker warps.
#pragma once

#include <type_traits>

#include "dataflow_args.cuh"
#include "dataflow_primitives.cuh"

namespace hearth::kernels::dataflow {

// W worker warps (and one loader warp). 64 threads take a row (its 64 Q4_K units in gate/up, 3
// units each of its 192 in down), so W/2 rows are in work side by side: a gate/up page holds 2 of
// them per thread, a down page one (its 3 units).
// X8S: the down phase reads act's X8 from a copy in shared memory (made after its wait) instead
// of holding a thread's three X8 pairs (72 registers) through the phase.
// BULK: the loader copies a page with one cp.async.bulk (sm_90); otherwise its 32 lanes copy it in
// 16-byte cp.async pieces tied to the stage's mbarrier (cp.async.mbarrier.arrive; sm_80 and up:
// the form an RTX 30xx/40xx would need, measured here on the H200).
template <int W, bool X8S, bool BULK = true>
struct Workers {
    static constexpr bool kBulk = BULK;
    static constexpr unsigned kFullArrivals = BULK ? 1 : 32;
    static constexpr int kWarps = W, kThreads = (W + 1) * 32;
    static constexpr bool kX8Shared = X8S;
    static constexpr int kX8Bytes = X8S ? int(gemvX8Bytes(F)) : 0; // after the ring
    static constexpr int kSlots = W / 2;
    static constexpr int kUpPageRows = 2 * kSlots, kDownPageRows = kSlots; // a page: rows of one matrix
    static constexpr int kUpPages = 2 * 32 / kUpPageRows, kDownPages = 32 / kDownPageRows; // a group's
    static constexpr int kStageBytes = kDownPageRows * kDownRowBytes;
    static_assert(kUpPageRows * kUpRowBytes <= kStageBytes && 32 % kUpPageRows == 0);
};

template <class C>
__device__ void workers(const Args& a, const uint8_t* ring, int8_t* x8s, uint64_t* full, uint64_t* empty) {
    constexpr int S = C::kSlots, UP = C::kUpPages, DP = C::kDownPages;
    __shared__ float upPart[2][C::kWarps][UP * 2];
    __shared__ float downPart[C::kWarps][DP];
    const int b = int(blockIdx.x), warp = int(threadIdx.x >> 5), lane = int(threadIdx.x & 31);
    const int slot = int(threadIdx.x) / 64, unit = int(threadIdx.x) % 64; // 64 threads a row
    RingPages pages{ring, full, empty, C::kStageBytes, unsigned(a.stages), a.suspendNs, 0u};
    auto take = [&] { return pages.take(); };
    auto release = [&] { pages.release(); };
    // Row sums of one group of 32 rows of M matrices of k = H (their pages interleaved), x the
    // unit this thread multiplies. Afterwards warp 0 lane i holds row i's sums in `sums`.
    int parity = 0; // groups done (upPart is double-buffered: warp 0 reads one while the rest fill the other)
    auto groupH = [&](auto matrices, const X8Pair& x, float (&sums)[2]) {
        constexpr int M = decltype(matrices)::value, P = M * 32 / C::kUpPageRows;
        float acc[P][2]; // [page][row]: rows slot and slot + S of each page
#pragma unroll
        for (int p = 0; p < P; ++p) {
            const uint8_t* pg = take();
            const Q4K<true>::Raw r0 = loadShared(pg + slot * kUpRowBytes, unit);
            const Q4K<true>::Raw r1 = loadShared(pg + (slot + S) * kUpRowBytes, unit);
            release();
            acc[p][0] = Q4K<true>::dot(r0, x, unit);
            acc[p][1] = Q4K<true>::dot(r1, x, unit);
        }
        // 64 threads a row = 2 warps; then warp 0 lane i takes row i of the group.
        float(*part)[UP * 2] = upPart[parity & 1];
#pragma unroll
        for (int p = 0; p < P; ++p)
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                const float v = warpSum(acc[p][r]);
                if (lane == 0) part[warp][p * 2 + r] = v;
            }
        workersSync<C>();
        if (warp == 0) {
            // Row i: the page group i / (2S) (M pages, one a matrix), row i % (2S) of it (slot q, half r).
            const int pg = lane / (2 * S), inPage = lane % (2 * S), q = inPage % S, r = inPage / S;
#pragma unroll
            for (int m = 0; m < M; ++m)
                sums[m] = part[2 * q][(pg * M + m) * 2 + r] + part[2 * q + 1][(pg * M + m) * 2 + r];
        }
        ++parity;
    };
    using One = std::integral_constant<int, 1>;
    using Two = std::integral_constant<int, 2>;
    // 1/rms of h from the 128 groups' Σh² (every warp for itself).

    // Prologue: layer 0's X8 of h·w and Σh² from the initial h.
    if (ownsDown(b) && warp == 0) {
        const int row = 32 * b + lane;
        if (a.attention) writeNormGroup(__ldcg(a.h + row), row, a.layers[0].attnNorm, a.xa8[0], a.groupSqA[0]);
        else writeNormGroup(__ldcg(a.h + row), row, a.layers[0].norm, a.xn8[0], a.groupSq[0]);
        warpSignal(&a.hReady[0], a.releaseSignal);
    }

    for (int l = 0; l < a.count; ++l) {
        const Layer& L = a.layers[l];
        float sums[2];
        if (a.attention) {
            // ---- q/k/v: the norm's X8 of h, 1/rms applied to the sums; q out as X8 (o's input) --
            if (a.waits) warpWaitCount(&a.hReady[l], kDownGroups, a.relaxedWaits);
            const float invA = invRmsOfGroups(a.groupSqA[l & 1]);
            const X8Pair xa = loadX8L2(a.xa8[l & 1], H, unit);
            for (int g = qkvBegin(b); g < qkvEnd(b); ++g) {
                groupH(One{}, xa, sums);
                if (warp == 0) {
                    const float v = sums[0] * invA;
                    if (g < kQGroups) {
                        storeX8Group(v, lane, H, g, a.q8);
                        warpSignal(&a.qDone[l], a.releaseSignal);
                    } else {
                        a.kv[32 * (g - kQGroups) + lane] = v;
                    }
                }
            }
            // ---- o (attention stubbed: its output is q): h += o·q, then the FFN norm's X8 group ----
            if (ownsDown(b)) {
                if (a.waits) warpWaitCount(&a.qDone[l], kQGroups, a.relaxedWaits);
                const X8Pair xq = loadX8L2(a.q8, H, unit);
                groupH(One{}, xq, sums);
                if (warp == 0) {
                    const int row = 32 * b + lane;
                    const float v = __ldcg(a.h + row) + sums[0];
                    a.h[row] = v;
                    writeNormGroup(v, row, L.norm, a.xn8[l & 1], a.groupSq[l & 1]);
                    warpSignal(&a.hMid[l], a.releaseSignal);
                }
            }
        }
        // ---- gate/up: this block's groups of 32 rows, pages gate, up, gate, up, ... --------------
        if (a.waits) warpWaitCount(a.attention ? &a.hMid[l] : &a.hReady[l], kDownGroups, a.relaxedWaits);
        const float inv = invRmsOfGroups(a.groupSq[l & 1]);
        const X8Pair x = loadX8L2(a.xn8[l & 1], H, unit);
        for (int g = upBegin(b); g < upEnd(b); ++g) {
            groupH(Two{}, x, sums);
            if (warp == 0) {
                storeX8Group(silu(sums[0] * inv) * (sums[1] * inv), lane, F, g, a.act8);
                warpSignal(&a.upDone[l], a.releaseSignal);
            }
        }
        // ---- down: this block's group of 32 rows, 8 pages of 4 ------------------------------------
        if (!ownsDown(b)) continue;
        if (a.waits) warpWaitCount(&a.upDone[l], kUpGroups, a.relaxedWaits);
        X8Pair xd[C::kX8Shared ? 1 : 3];
        if constexpr (C::kX8Shared) {
            constexpr int kPieces = C::kX8Bytes / 16;
            for (int i = int(threadIdx.x); i < kPieces; i += C::kWarps * 32)
                reinterpret_cast<int4*>(x8s)[i] = __ldcg(reinterpret_cast<const int4*>(a.act8) + i);
            workersSync<C>();
        } else {
#pragma unroll
            for (int j = 0; j < 3; ++j) xd[j] = loadX8L2(a.act8, F, unit + 64 * j);
        }
        float acc[DP];
#pragma unroll
        for (int p = 0; p < DP; ++p) {
            const uint8_t* pg = take();
            Q4K<true>::Raw r[3];
#pragma unroll
            for (int j = 0; j < 3; ++j) r[j] = loadShared(pg + slot * kDownRowBytes, unit + 64 * j);
            release();
            acc[p] = 0.0f;
#pragma unroll
            for (int j = 0; j < 3; ++j) {
                if constexpr (C::kX8Shared)
                    acc[p] += Q4K<true>::dot(r[j], loadX8Shared(x8s, F, unit + 64 * j), unit + 64 * j);
                else
                    acc[p] += Q4K<true>::dot(r[j], xd[j], unit + 64 * j);
            }
        }
#pragma unroll
        for (int p = 0; p < DP; ++p) {
            const float v = warpSum(acc[p]);
            if (lane == 0) downPart[warp][p] = v;
        }
        workersSync<C>();
        if (warp == 0) {
            const int p = lane / S, q = lane % S; // row lane of the group: page lane / S, slot lane % S
            const int row = 32 * b + lane;
            const float v = __ldcg(a.h + row) + downPart[2 * q][p] + downPart[2 * q + 1][p];
            a.h[row] = v;
            const Layer& next = a.layers[l + 1 < a.count ? l + 1 : l];
            if (a.attention) writeNormGroup(v, row, next.attnNorm, a.xa8[(l + 1) & 1], a.groupSqA[(l + 1) & 1]);
            else writeNormGroup(v, row, next.norm, a.xn8[(l + 1) & 1], a.groupSq[(l + 1) & 1]);
            warpSignal(&a.hReady[l + 1], a.releaseSignal);
        }
        workersSync<C>(); // downPart is rewritten next layer
    }
}

template <class C>
__global__ void __launch_bounds__(C::kThreads, 1) dataflowFfn(Args a) {
    extern __shared__ __align__(128) uint8_t ring[];
    __shared__ __align__(8) uint64_t full[kMaxStages], empty[kMaxStages];
    initStages(full, empty, a.stages, C::kFullArrivals, C::kWarps);
    if (threadIdx.x >= C::kWarps * 32) loader<C>(a, ring, full, empty);
    else workers<C>(a, ring, reinterpret_cast<int8_t*>(ring + size_t(a.stages) * C::kStageBytes), full, empty);
}

} // namespace hearth::kernels::dataflow
