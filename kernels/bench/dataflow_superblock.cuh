// hearth-bench-dataflow's kind 4 (experiment; the engine does not use it): the dataflow FFN kernel
// with workers that take a whole Q4_K block (256 weights) of four rows at a time, so that a
// thread's x (the four X8 pairs of its block) stays in registers for a whole phase, the block's
// header is read once for four units whose scale positions are compile-time constants, and a row's
// sum is reduced over 16 lanes instead of 64 threads. The profile of kinds 0-3 counted 109-118
// instructions a 64-weight unit where the unpack and the dot need 32 (docs/PERFORMANCE.md, seventh
// session); this form is meant to come near 50.
//
// The 8 workers are 4 pairs, and pair j takes pages j, j + 4, ... of the block's stream (a stage is
// freed by its pair alone; the pairs meet once a group, where warp 0 writes the group's X8). Gate/up pages are 16 rows: a group's
// four are gate rows 0-15, up 0-15, gate 16-31, up 16-31, one to each pair; thread t of a pair
// (t = 0..63) multiplies block t % 16 of rows 4·(t / 16) .. + 3. Down pages are 4 rows × 48 blocks:
// threads 0..47 of a pair each take one block of all four rows (16 idle), pair j pages j and j + 4.
//
// Measured with each thread loading its four X8 pairs from L2 after every wait (98 KB a block, the
// whole vector sixteen times over): slower than kind 0, the waits costing 18 µs a layer
// (docs/PERFORMANCE.md, seventh session). Here (prepared, not yet run on a GPU) the block copies the
// phase's X8 vector into shared memory once after the wait (6 or 18 KB), and the threads take their
// pairs from there.
#pragma once

#include "dataflow_args.cuh"

namespace hearth::kernels::dataflow {

struct SuperblockConfig {
    static constexpr bool kBulk = true;
    static constexpr int kWarps = 8, kThreads = (kWarps + 1) * 32, kPairs = kWarps / 2;
    static constexpr int kUpPageRows = 16, kDownPageRows = 4;
    static constexpr int kDownPages = 32 / kDownPageRows;
    static constexpr int kStageBytes = kUpPageRows * kUpRowBytes; // 36 KB (a down page: 27 KB)
    static constexpr int kX8Bytes = int(gemvX8Bytes(F));           // the phase's x, after the ring
    static_assert(kDownPageRows * kDownRowBytes <= kStageBytes);
    static_assert((2 * 32 / kUpPageRows) % kPairs == 0 && kDownPages % kPairs == 0); // pages per pair
};

// Σ over 4 units of one Q4_K block (at blk, in shared memory) · x.
__device__ __forceinline__ float blockDot(const uint8_t* blk, const X8Pair (&x)[4]) {
    Q4K<true>::Raw r;
    r.h = *reinterpret_cast<const uint4*>(blk);
    float s = 0.0f;
#pragma unroll
    for (int c = 0; c < 4; ++c) {
        r.q0 = *reinterpret_cast<const uint4*>(blk + 16 + 32 * c);
        r.q1 = *reinterpret_cast<const uint4*>(blk + 32 + 32 * c);
        s += Q4K<true>::dot(r, x[c], c); // c constant: kScaleMin's choices fold away
    }
    return s;
}

__device__ __forceinline__ float sum16(float v) {
#pragma unroll
    for (int o = 8; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__device__ void superblockWorkers(const Args& a, const uint8_t* ring, int8_t* x8s, uint64_t* full, uint64_t* empty) {
    using C = SuperblockConfig;
    __shared__ float upPart[2][2][32];         // [group parity][gate, up][row]
    __shared__ float downPart[C::kWarps][2][4]; // [warp][page of the pair][row of the page]
    const int b = int(blockIdx.x), warp = int(threadIdx.x >> 5), lane = int(threadIdx.x & 31);
    const int pair = warp >> 1, t = int(threadIdx.x & 63), sb = t & 15, quad = t >> 4;
    RingPages pages{ring, full, empty, C::kStageBytes, unsigned(a.stages), a.suspendNs, unsigned(pair),
                    unsigned(C::kPairs)};
    auto take = [&] { return pages.take(); };
    auto release = [&] { pages.release(); };
    auto sync = [] { workersSync<C>(); };
    // The block's copy of a phase's X8 vector (written by other blocks during this kernel: through
    // L2), then every thread's four pairs from it. Each warp has waited for the vector itself.
    auto loadX = [&](const int8_t* xq, int k, int blockIndex, X8Pair (&x)[4]) {
        const int pieces = int(gemvX8Bytes(k) / 16);
        for (int i = int(threadIdx.x); i < pieces; i += C::kWarps * 32)
            reinterpret_cast<int4*>(x8s)[i] = __ldcg(reinterpret_cast<const int4*>(xq) + i);
        sync();
#pragma unroll
        for (int c = 0; c < 4; ++c) x[c] = loadX8Shared(x8s, k, 4 * blockIndex + c);
    };

    if (ownsDown(b) && warp == 0) { // prologue: layer 0's X8 of h·w
        const int row = 32 * b + lane;
        writeNormGroup(__ldcg(a.h + row), row, a.layers[0].norm, a.xn8[0], a.groupSq[0]);
        warpSignal(&a.hReady[0], a.releaseSignal);
    }
    int parity = 0;
    for (int l = 0; l < a.count; ++l) {
        // ---- gate/up: one 16-row page of each group per pair ------------------------------------------
        if (a.waits) warpWaitCount(&a.hReady[l], kDownGroups, a.relaxedWaits);
        const float inv = invRmsOfGroups(a.groupSq[l & 1]);
        X8Pair x[4];
        loadX(a.xn8[l & 1], H, sb, x);
        const int mat = pair & 1, rowBase = 16 * (pair >> 1) + 4 * quad;
        for (int g = upBegin(b); g < upEnd(b); ++g) {
            const uint8_t* pg = take();
            float acc[4];
#pragma unroll
            for (int r = 0; r < 4; ++r) acc[r] = blockDot(pg + (4 * quad + r) * kUpRowBytes + sb * 144, x);
            release();
#pragma unroll
            for (int r = 0; r < 4; ++r) acc[r] = sum16(acc[r]);
            if (sb == 0)
#pragma unroll
                for (int r = 0; r < 4; ++r) upPart[parity & 1][mat][rowBase + r] = acc[r];
            sync();
            if (warp == 0) {
                const float v = silu(upPart[parity & 1][0][lane] * inv) * (upPart[parity & 1][1][lane] * inv);
                storeX8Group(v, lane, F, g, a.act8);
                warpSignal(&a.upDone[l], a.releaseSignal);
            }
            ++parity; // upPart is double-buffered: warp 0 reads one while the others fill the other
        }
        if (!ownsDown(b)) continue;
        // ---- down: pages j and j + 4 (rows 4j.., 16 + 4j..) of 4 rows, one block each for t < 48 ---------
        if (a.waits) warpWaitCount(&a.upDone[l], kUpGroups, a.relaxedWaits);
        constexpr int kDownBlocks = F / 256; // 48
        const bool busy = t < kDownBlocks;
        loadX(a.act8, F, busy ? t : 0, x);
#pragma unroll
        for (int slot = 0; slot < C::kDownPages / C::kPairs; ++slot) {
            const uint8_t* pg = take();
            float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
            if (busy)
#pragma unroll
                for (int r = 0; r < 4; ++r) acc[r] = blockDot(pg + r * kDownRowBytes + t * 144, x);
            release();
#pragma unroll
            for (int r = 0; r < 4; ++r) {
                const float v = warpSum(acc[r]);
                if (lane == 0) downPart[warp][slot][r] = v;
            }
        }
        sync();
        if (warp == 0) {
            // Row i of the group: page slot i / 16 of pair (i % 16) / 4, its row i % 4.
            const int slot = lane >> 4, j = (lane & 15) >> 2, r = lane & 3;
            const int row = 32 * b + lane;
            const float v = __ldcg(a.h + row) + downPart[2 * j][slot][r] + downPart[2 * j + 1][slot][r];
            a.h[row] = v;
            const Layer& next = a.layers[l + 1 < a.count ? l + 1 : l];
            writeNormGroup(v, row, next.norm, a.xn8[(l + 1) & 1], a.groupSq[(l + 1) & 1]);
            warpSignal(&a.hReady[l + 1], a.releaseSignal);
        }
        sync(); // downPart is rewritten next layer
    }
}

__global__ void __launch_bounds__(SuperblockConfig::kThreads, 1) dataflowSuperblock(Args a) {
    using C = SuperblockConfig;
    extern __shared__ __align__(128) uint8_t ring[];
    __shared__ __align__(8) uint64_t full[kMaxStages], empty[kMaxStages];
    initStages(full, empty, a.stages, 1, 2); // a stage is freed by the pair that takes its page
    if (threadIdx.x >= C::kWarps * 32) loader<C>(a, ring, full, empty);
    else superblockWorkers(a, ring, reinterpret_cast<int8_t*>(ring + size_t(a.stages) * C::kStageBytes), full, empty);
}

} // namespace hearth::kernels::dataflow
