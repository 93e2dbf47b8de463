// hearth-bench-dataflow's chunked kernel (experiment; the engine does not use it): the FFN blocks
// of bench_dataflow_ffn.cu with no phase-wide waits. A phase consumes its input vector in chunks of
// 1024 elements (32 X8 groups) as they complete, so a block starts on the chunks its peers have
// already produced instead of waiting for the last one.
//
// Pages are k-chunk-major: 32 rows × 4 Q4_K blocks (576 B a row), 18 KB each, all phases alike:
// one cp.async.bulk a row from the loader warp's 32 lanes, or with --tiled one copy of a page
// from a copy of the weights laid out as those pages (tileWeights), as an engine would at load. Gate/up walk chunk c of h, for each of
// the block's groups (g = b, b + 132, b + 264: round-robin, so act's low chunks complete first)
// a gate page and an up page; down walks act's 12 chunks of its group. A thread holds unit
// (lane & 15) of rows 2·warp + (lane >> 4) and that + 16 of every page, so a row's sum is reduced
// over 16 lanes of one warp and the 32 rows of a group meet once, in shared memory, at the end.
// Counters: xnReady[layer][4] and actReady[layer][12] count the groups written in each chunk; a
// warp polls all of a phase's counters at once (a ballot) and keeps the mask, so it reads them
// again only for a chunk not yet seen complete; the X8 values of the next chunk are loaded while
// the current one is multiplied.
#pragma once

#include "dataflow_args.cuh"

namespace hearth::kernels::dataflow {

constexpr int kChunk = 1024, kChunkUnits = kChunk / 64, kChunkRowBytes = kChunk / 256 * 144; // 576
constexpr int kChunkPageBytes = 32 * kChunkRowBytes;                                     // 18 KB
constexpr int kXnChunks = H / kChunk, kActChunks = F / kChunk;
constexpr int kChunkedWarps = 8, kChunkedThreads = (kChunkedWarps + 1) * 32;
constexpr int kMaxUpGroupsPerBlock = 3; // 384 groups over ≥ 128 blocks

__device__ __forceinline__ int chunkedUpGroups(int b) {
    return (kUpGroups - b + int(gridDim.x) - 1) / int(gridDim.x); // g = b + i·gridDim.x < 384
}

// rows × rowBytes (row-major Q4_K) → tiles of 32 rows × one chunk, tile (g, c) at (g·chunks + c).
__global__ void tileWeights(const uint8_t* w, uint8_t* tiles, int rows, int rowBytes) {
    const int chunks = rowBytes / kChunkRowBytes;
    const size_t pieces = size_t(rows) * rowBytes / 16;
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < pieces; i += size_t(gridDim.x) * blockDim.x) {
        const size_t t = i * 16, tile = t / kChunkPageBytes;
        const int in = int(t % kChunkPageBytes), r = in / kChunkRowBytes, o = in % kChunkRowBytes;
        const size_t g = tile / chunks, c = tile % chunks;
        *reinterpret_cast<uint4*>(tiles + t) =
            *reinterpret_cast<const uint4*>(w + (32 * g + r) * size_t(rowBytes) + c * kChunkRowBytes + o);
    }
}

__device__ __forceinline__ void chunkedSync() { asm volatile("bar.sync 1, %0;" ::"n"(kChunkedWarps * 32) : "memory"); }

__device__ void chunkedLoader(const Args& a, uint8_t* ring, uint64_t* full, uint64_t* empty) {
    const int lane = int(threadIdx.x & 31), b = int(blockIdx.x);
    unsigned page = 0;
    // Page: rows 32·g .. 32·g + 31 of a matrix whose rows are rowBytes long, bytes of chunk c;
    // from the tiles (one copy) where the matrix has them, else a copy a row.
    auto issue = [&](const uint8_t* m, const uint8_t* tiles, int rowBytes, int g, int c) {
        const unsigned s = page % unsigned(a.stages), round = page / unsigned(a.stages);
        uint8_t* dst = ring + size_t(s) * kChunkPageBytes;
        if (lane == 0) {
            mbarWait(&empty[s], (round & 1u) ^ 1u, a.suspendNs);
            if (!a.loads) {
                mbarArrive(&full[s]);
            } else {
                mbarExpect(&full[s], kChunkPageBytes);
                if (tiles)
                    bulkLoad(dst, tiles + (size_t(g) * (rowBytes / kChunkRowBytes) + size_t(c)) * kChunkPageBytes,
                             kChunkPageBytes, &full[s]);
            }
        }
        __syncwarp();
        if (a.loads && !tiles)
            bulkLoad(dst + lane * kChunkRowBytes, m + size_t(32 * g + lane) * rowBytes + size_t(c) * kChunkRowBytes,
                     kChunkRowBytes, &full[s]);
        ++page;
    };
    const int groups = chunkedUpGroups(b);
    for (int l = 0; l < a.count; ++l) {
        const Layer& L = a.layers[l];
        for (int c = 0; c < kXnChunks; ++c)
            for (int i = 0; i < groups; ++i) {
                issue(L.gate, L.gateT, kUpRowBytes, b + i * int(gridDim.x), c);
                issue(L.up, L.upT, kUpRowBytes, b + i * int(gridDim.x), c);
            }
        if (ownsDown(b))
            for (int c = 0; c < kActChunks; ++c) issue(L.down, L.downT, kDownRowBytes, b, c);
    }
}

// A warp's view of one phase's chunk counters: bit c of `mask` once chunk c is complete.
struct ChunkPoll {
    const unsigned* counters;
    int chunks;
    unsigned mask;
    // Until chunk c is complete: every lane < chunks reads one counter (relaxed), a ballot keeps
    // the complete ones, and a fence after the reads that saw them orders the X8 loads after.
    __device__ void waitFor(int c, bool waits) {
        if (!waits) {
            mask = ~0u;
            return;
        }
        if (mask >> c & 1u) return;
        const int lane = int(threadIdx.x & 31);
        for (;;) {
            const bool done = lane < chunks && loadRelaxed(counters + lane) >= 32u;
            mask = __ballot_sync(0xffffffffu, done);
            if (mask >> c & 1u) break;
            __nanosleep(32);
        }
        asm volatile("fence.acq_rel.gpu;" ::: "memory");
    }
};

__device__ void chunkedWorkers(const Args& a, const uint8_t* ring, uint64_t* full, uint64_t* empty) {
    __shared__ float upPart[kMaxUpGroupsPerBlock][2][32];
    __shared__ float downPart[32];
    const int b = int(blockIdx.x), warp = int(threadIdx.x >> 5), lane = int(threadIdx.x & 31);
    const int unit = lane & 15, rowA = 2 * warp + (lane >> 4), rowB = rowA + 16;
    unsigned page = 0;
    auto take = [&]() -> const uint8_t* {
        const unsigned s = page % unsigned(a.stages), round = page / unsigned(a.stages);
        mbarWait(&full[s], round & 1u, a.suspendNs);
        return ring + size_t(s) * kChunkPageBytes;
    };
    auto release = [&] {
        __syncwarp();
        if (lane == 0) mbarArrive(&empty[page % unsigned(a.stages)]);
        ++page;
    };
    // acc[0..1] += rows A and B of the next page against x.
    auto page2 = [&](const X8Pair& x, float& accA, float& accB) {
        const uint8_t* pg = take();
        const Q4K<true>::Raw ra = loadShared(pg + rowA * kChunkRowBytes, unit);
        const Q4K<true>::Raw rb = loadShared(pg + rowB * kChunkRowBytes, unit);
        release();
        accA += Q4K<true>::dot(ra, x, unit);
        accB += Q4K<true>::dot(rb, x, unit);
    };
    auto sum16 = [](float v) {
#pragma unroll
        for (int o = 8; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
        return v;
    };
    auto invRms = [&](const float* groupSq) {
        float sq = 0.0f;
#pragma unroll
        for (int i = 0; i < kDownGroups / 32; ++i) sq += __ldcg(groupSq + 32 * i + lane);
        return rsqrtf(warpSum(sq) / float(H) + kEps);
    };

    if (ownsDown(b) && warp == 0) { // prologue: layer 0's X8 of h·w
        const int row = 32 * b + lane;
        writeNormGroup(__ldcg(a.h + row), row, a.layers[0].norm, a.xn8[0], a.groupSq[0]);
        warpSignal(&a.xnReady[b / 32], a.releaseSignal);
    }
    const int groups = chunkedUpGroups(b);
    for (int l = 0; l < a.count; ++l) {
        // ---- gate/up: chunk-outer over h, this block's groups inner ------------------------------
        {
            ChunkPoll poll{a.xnReady + kXnChunks * l, kXnChunks, 0u};
            float acc[kMaxUpGroupsPerBlock][2][2] = {};
            poll.waitFor(0, a.waits);
            X8Pair x = loadX8L2(a.xn8[l & 1], H, unit);
            for (int c = 0; c < kXnChunks; ++c) {
                X8Pair next = x;
                const bool more = c + 1 < kXnChunks, ready = more && (poll.mask >> (c + 1) & 1u);
                if (ready) next = loadX8L2(a.xn8[l & 1], H, (c + 1) * kChunkUnits + unit);
#pragma unroll
                for (int i = 0; i < kMaxUpGroupsPerBlock; ++i)
                    if (i < groups) {
                        page2(x, acc[i][0][0], acc[i][0][1]);
                        page2(x, acc[i][1][0], acc[i][1][1]);
                    }
                if (more && !ready) {
                    poll.waitFor(c + 1, a.waits);
                    next = loadX8L2(a.xn8[l & 1], H, (c + 1) * kChunkUnits + unit);
                }
                x = next;
            }
#pragma unroll
            for (int i = 0; i < kMaxUpGroupsPerBlock; ++i)
#pragma unroll
                for (int m = 0; m < 2; ++m) {
                    const float va = sum16(acc[i][m][0]), vb = sum16(acc[i][m][1]);
                    if (i < groups && unit == 0) upPart[i][m][rowA] = va, upPart[i][m][rowB] = vb;
                }
            chunkedSync();
            if (warp < groups) { // warp i: group i's epilogue, all of a block's groups at once
                const int g = b + warp * int(gridDim.x);
                const float inv = invRms(a.groupSq[l & 1]);
                storeX8Group(silu(upPart[warp][0][lane] * inv) * (upPart[warp][1][lane] * inv), lane, F, g, a.act8);
                warpSignal(&a.actReady[kActChunks * l + g / 32], a.releaseSignal);
            }
            chunkedSync(); // upPart is rewritten next layer
        }
        if (!ownsDown(b)) continue;
        // ---- down: act's 12 chunks in order, as they complete --------------------------------------
        {
            ChunkPoll poll{a.actReady + kActChunks * l, kActChunks, 0u};
            float accA = 0.0f, accB = 0.0f;
            poll.waitFor(0, a.waits);
            X8Pair x = loadX8L2(a.act8, F, unit);
            for (int c = 0; c < kActChunks; ++c) {
                X8Pair next = x;
                const bool more = c + 1 < kActChunks, ready = more && (poll.mask >> (c + 1) & 1u);
                if (ready) next = loadX8L2(a.act8, F, (c + 1) * kChunkUnits + unit);
                page2(x, accA, accB);
                if (more && !ready) {
                    poll.waitFor(c + 1, a.waits);
                    next = loadX8L2(a.act8, F, (c + 1) * kChunkUnits + unit);
                }
                x = next;
            }
            const float va = sum16(accA), vb = sum16(accB);
            if (unit == 0) downPart[rowA] = va, downPart[rowB] = vb;
            chunkedSync();
            if (warp == 0) {
                const int row = 32 * b + lane;
                const float v = __ldcg(a.h + row) + downPart[lane];
                a.h[row] = v;
                const Layer& next = a.layers[l + 1 < a.count ? l + 1 : l];
                writeNormGroup(v, row, next.norm, a.xn8[(l + 1) & 1], a.groupSq[(l + 1) & 1]);
                warpSignal(&a.xnReady[kXnChunks * (l + 1) + b / 32], a.releaseSignal);
            }
            chunkedSync(); // downPart is rewritten next layer
        }
    }
}

__global__ void __launch_bounds__(kChunkedThreads, 1) dataflowChunked(Args a) {
    extern __shared__ __align__(128) uint8_t ring[];
    __shared__ __align__(8) uint64_t full[kMaxStages], empty[kMaxStages];
    if (threadIdx.x == 0) {
        for (int s = 0; s < a.stages; ++s) {
            mbarInit(&full[s], 1);
            mbarInit(&empty[s], kChunkedWarps);
        }
#if __CUDA_ARCH__ >= 900
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
    }
    __syncthreads();
    if (threadIdx.x >= kChunkedWarps * 32) chunkedLoader(a, ring, full, empty);
    else chunkedWorkers(a, ring, full, empty);
}

} // namespace hearth::kernels::dataflow
