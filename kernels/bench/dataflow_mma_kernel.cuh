// hearth-bench-dataflow's tensor-core kernel (kinds 4-14; experiment, the engine does not use it): the
// per-block roles over dataflow_mma.cuh's tiles — a loader warp streaming pages (tileLoader), worker
// warps multiplying them, and (kinds 7-14) an epilogue warp finishing each group of 32 outputs.
//
// With --attention (kinds 13-14: kinds 11-12 with these phases compiled in) each layer starts with
// the attention block's GEMVs, the attention itself stubbed as in kinds 0-3: q/k/v from the attention norm's x
// (q's groups counted in and written as o's x, k and v stored), then o from q, whose groups add to h
// and write the FFN norm's x; four waits a layer. With --depth D the attention is real
// (dataflow_attention.cuh): q/k/v groups counted in, tasks over the cache, a combine per query head,
// then o; six waits a layer (--kv-ranges: dataflow_head_tasks.cuh, no combine phase). Each role runs
// only the phases of Args' window (--hybrid: o, the FFN and the next q/k/v of one layer a launch).
#pragma once

#include "dataflow_attention.cuh"
#include "dataflow_head_tasks.cuh"
#include "dataflow_mma.cuh"

namespace hearth::kernels::dataflow {

// Where the workers' row sums meet. Without an epilogue warp, the workers meet at a named barrier
// after each group and warp 0 finishes the group (as kinds 0-3 do), so every group waits for warp
// 0's epilogue of the one before. With one (kEpilogue), the partial sums are handed over through
// mbarriers (upFull/upEmpty: a ring of two buffers, which q/k/v and o groups use too, in slot 0;
// downFull/downEmpty) and the workers go on to the next group's pages at once.
template <class C>
struct Parts {
    float up[2][C::kWarps][2][2][16]; // [group parity][warp][half][gate, up][row of the tile]
    float down[C::kWarps][2][16];     // [warp][half][row of the tile]
    uint64_t upFull[2], upEmpty[2], downFull, downEmpty;
    uint64_t hSeen;  // worker warp 0 has seen the FFN's input complete (the block's only poller of it)
    uint64_t hSeenA; // --attention: likewise the attention's input (a barrier of its own: one phase a layer each)
    uint64_t xFull; // kDirectX: the phase's x has landed (one bulk copy a phase)
    unsigned ticket; // --kv-ranges: the block's arrival on its KV head's counter
    static constexpr unsigned kArrivals = C::kWarps * 8; // the lanes t = 0 of every worker warp
    __device__ void init() {
        if (threadIdx.x == 0) {
            for (int j = 0; j < 2; ++j) mbarInit(&upFull[j], kArrivals), mbarInit(&upEmpty[j], 1);
            mbarInit(&downFull, kArrivals), mbarInit(&downEmpty, 1), mbarInit(&hSeen, 1);
            mbarInit(&hSeenA, 1);
            mbarInit(&xFull, 1);
        }
    }
};

// The epilogue warp: per gate/up group silu(gate)·up as an X8 group of act and the group's count;
// per down group h += the sums, the next layer's X8 group of h·w with Σh², and the count. With
// --attention also per q/k/v group (q: o's x and the count; k, v: stored) and per o group (h += the
// sums, the FFN norm's x with Σh², the count).
template <class C>
__device__ void mmaEpilogue(const Args& a, Parts<C>& P) {
    const int b = int(blockIdx.x), lane = int(threadIdx.x & 31), row = 32 * b + lane;
    unsigned parity = 0;
    auto handBack = [&](uint64_t* bar) {
        __syncwarp();
        if (lane == 0) mbarArrive(bar);
    };
    auto oneMatrixSums = [&] { // a q/k/v or o group's sums (slot 0 of the up ring)
        const unsigned j = parity & 1u;
        mbarWait(&P.upFull[j], (parity >> 1) & 1u);
        float v = 0.0f;
#pragma unroll
        for (int w = 0; w < C::kWarps; ++w) v += P.up[j][w][lane >> 4][0][lane & 15];
        handBack(&P.upEmpty[j]);
        ++parity;
        return v;
    };
    if (a.hybrid) gridDependencyWait(); // h and the attention's output come from the kernels before
    if (ownsDown(b) && a.phaseBegin == 0) {
        const float h = __ldcg(a.h + row);
        if (C::kAttention && a.attention) normGroup<C>(h, row, a.layers[0].attnNorm, a.xa8[0], a.groupSqA[0]);
        else normGroup<C>(h, row, a.layers[0].norm, a.xn8[0], a.groupSq[0]);
        warpSignal(&a.hReady[0], a.releaseSignal);
    }
    unsigned seenA = 0, seen = 0, downs = 0; // each barrier's phases in this launch (--hybrid: a window of a layer)
    for (int l = a.phaseBegin / 4; l < a.count && 4 * l < a.phaseEnd; ++l) {
        const Layer& L = a.layers[l];
        if (C::kAttention && a.attention && inWindow(a, 4 * l)) {
            if (a.waits) mbarWait(&P.hSeenA, seenA++ & 1u);
            const float invA = invRmsOfGroups(a.groupSqA[l & 1]);
            for (int grp = qkvBegin(b); grp < qkvEnd(b); ++grp) {
                const float v = oneMatrixSums() * invA;
                if (a.depth >= 0) { // the raw q/k/v for the attention tasks
                    a.qkvRaw[32 * grp + lane] = v;
                    warpSignal(&a.qkvDone[l], a.releaseSignal);
                    if constexpr (C::kTrace) stamp(a, l, kQkvSignalled);
                } else if (grp < kQGroups) {
                    storeMmaXGroup(v, lane, H, grp, a.q8);
                    warpSignal(&a.qDone[l], a.releaseSignal);
                } else {
                    a.kv[32 * (grp - kQGroups) + lane] = v;
                }
            }
        }
        if (C::kAttention && a.attention && inWindow(a, 4 * l + 1)) {
            if (ownsDown(b)) {
                const float v = __ldcg(a.h + row) + oneMatrixSums();
                a.h[row] = v;
                normGroup<C>(v, row, L.norm, a.xn8[l & 1], a.groupSq[l & 1]);
                warpSignal(&a.hMid[l], a.releaseSignal);
                if constexpr (C::kTrace) stamp(a, l, kOSignalled);
            }
        }
        if (!inWindow(a, 4 * l + 2)) continue; // (a window starts at o or q/k/v and ends after q/k/v)
        if (a.waits) mbarWait(&P.hSeen, seen++ & 1u);
        const float inv = invRmsOfGroups(a.groupSq[l & 1]);
        for (int grp = upBegin(b); grp < upEnd(b); ++grp, ++parity) {
            const unsigned j = parity & 1u;
            mbarWait(&P.upFull[j], (parity >> 1) & 1u);
            if constexpr (C::kTrace) stamp(a, l, kUpSumsSeen);
            float gate = 0.0f, up = 0.0f;
#pragma unroll
            for (int w = 0; w < C::kWarps; ++w) {
                gate += P.up[j][w][lane >> 4][0][lane & 15];
                up += P.up[j][w][lane >> 4][1][lane & 15];
            }
            handBack(&P.upEmpty[j]);
            if constexpr (C::kDirectX) storeMmaXGroup(silu(gate * inv) * (up * inv), lane, F, grp, a.act8);
            else storeX8Group(silu(gate * inv) * (up * inv), lane, F, grp, a.act8);
            warpSignal(&a.upDone[l], a.releaseSignal);
            if constexpr (C::kTrace) stamp(a, l, kUpSignalled);
        }
        if (!ownsDown(b)) continue;
        mbarWait(&P.downFull, downs++ & 1u); // every layer of a block that owns a down group
        if constexpr (C::kTrace) stamp(a, l, kDownSumsSeen);
        float v = __ldcg(a.h + row);
#pragma unroll
        for (int w = 0; w < C::kWarps; ++w) v += P.down[w][lane >> 4][lane & 15];
        handBack(&P.downEmpty);
        a.h[row] = v;
        const Layer& next = a.layers[l + 1 < a.count ? l + 1 : l];
        if (C::kAttention && a.attention) normGroup<C>(v, row, next.attnNorm, a.xa8[(l + 1) & 1], a.groupSqA[(l + 1) & 1]);
        else normGroup<C>(v, row, next.norm, a.xn8[(l + 1) & 1], a.groupSq[(l + 1) & 1]);
        warpSignal(&a.hReady[l + 1], a.releaseSignal);
        if constexpr (C::kTrace) stamp(a, l, kDownSignalled);
    }
}

template <class C>
__device__ void mmaWorkers(const Args& a, const uint8_t* ring, int8_t* x8s, uint64_t* full, uint64_t* empty,
                           Parts<C>& P) {
    constexpr int UP = C::kUpPages, UPT = C::kUpPagesPerTile, DPT = C::kDownPagesPerTile, WT = C::kWarpTiles;
    auto& upPart = P.up;
    auto& downPart = P.down;
    const int b = int(blockIdx.x), warp = int(threadIdx.x >> 5), lane = int(threadIdx.x & 31);
    const int g = lane >> 2, t = lane & 3;
    RingPages pages{ring, full, empty, C::kStageBytes, unsigned(a.stages), a.suspendNs, 0u};
    auto sync = [] { workersSync<C>(); };
    auto take = [&](int l, TracePoint p, unsigned ahead = 0) { // warp 0 sums its waits for pages under --trace
        if (!C::kTrace || !a.trace || warp != 0) return pages.take(ahead);
        const unsigned long long t0 = globalNs();
        const uint8_t* pg = pages.take(ahead);
        addDuration(a, l, p, globalNs() - t0);
        return pg;
    };
    // The phase's x in the fragment layout (MmaX), from the X8 vector that other blocks wrote during
    // this kernel (through L2). Every warp has waited for the vector itself; the previous phase's
    // reads ended at a sync.
    // kDirectX: the producers wrote that layout already; thread 0 (warp 0, which waited for the count)
    // copies it in one bulk copy, behind a proxy fence (generic writes seen through the acquire, read
    // by the async proxy).
    unsigned xPhases = 0;
    // direct = false (--hybrid's o): src is an X8 vector in the engine's layout, rewritten here.
    auto copyX8 = [&](const int8_t* src, int k, bool direct = true) {
        if constexpr (C::kEpilogue) sync(); // no group's barrier has ended the previous phase's reads
        if constexpr (C::kDirectX) if (direct) {
            if (threadIdx.x == 0) {
                asm volatile("fence.proxy.async.global;" ::: "memory");
                mbarExpect(&P.xFull, unsigned(MmaX::bytes(k)));
                bulkLoad(x8s, src, unsigned(MmaX::bytes(k)), &P.xFull);
            }
            mbarWait(&P.xFull, xPhases++ & 1u);
            return;
        }
        const MmaX x = mmaX(x8s, k);
        for (int i = int(threadIdx.x); i < k / 8; i += C::kWarps * 32) { // i = 4·group + t
            const int group = i >> 2, tt = i & 3;
            const uint32_t lo = uint32_t(__ldcg(reinterpret_cast<const int*>(src + gemvX8ValueOffset(k, 32 * group + 4 * tt))));
            const uint32_t hi = uint32_t(__ldcg(reinterpret_cast<const int*>(src + gemvX8ValueOffset(k, 32 * group + 16 + 4 * tt))));
            x.frags[((group >> 3) * 4 + tt) * 8 + (group & 7)] = make_uint2(lo, hi);
        }
        for (int i = int(threadIdx.x); i < k / 64; i += C::kWarps * 32) { // i = 4·column + chunk
            const float4 ra = __ldcg(reinterpret_cast<const float4*>(src + gemvX8RecordOffset(k, 2 * i)));
            const float4 rb = __ldcg(reinterpret_cast<const float4*>(src + gemvX8RecordOffset(k, 2 * i + 1)));
            x.recs[i] = make_float4(ra.x, ra.w, rb.x, rb.w);
        }
        sync();
    };
    // The next page (k-page kp of its row tile, pageTiles tiles): N of its tiles from `first` · x.
    auto pageDot = [&](auto n, int l, TracePoint waitPoint, int k, int kp, int pageTiles, int first) {
        constexpr int N = decltype(n)::value;
        const uint8_t* pg = take(l, waitPoint);
        const MmaX x = mmaX(x8s, k);
        float2 s = make_float2(0.0f, 0.0f);
#pragma unroll 2 // two tiles' loads in flight; a whole page of them spills
        for (int i = 0; i < N; ++i) {
            const int tile = first + i, column = kp * pageTiles + tile;
            const float2 d = tileDot(pg + size_t(tile) * kTileBytes, x.frags + (column * 4 + t) * 8, x.recs[column * 4 + t]);
            s.x += d.x, s.y += d.y;
        }
        pages.release();
        return s;
    };
    // A group of one matrix: its two row tiles of perTile pages each, this warp's tiles · x, summed
    // over the lanes of a row (down; q/k/v and o).
    auto twoRowTiles = [&](int l, TracePoint waitPoint, int k, int perTile, float2 (&acc)[2]) {
#pragma unroll
        for (int p = 0; p < 2 * perTile; ++p) {
            const int half = p / perTile, kp = p % perTile;
            const float2 s = pageDot(std::integral_constant<int, WT>{}, l, waitPoint, k, kp, C::kUpPageTiles, WT * warp);
            if (kp == 0) acc[half] = s;
            else acc[half].x += s.x, acc[half].y += s.y;
        }
#pragma unroll
        for (int half = 0; half < 2; ++half) acc[half] = sumOverT(acc[half]);
    };
    // --attention: a group of one matrix of k = H (q/k/v or o), handed to the epilogue warp through the
    // up ring's slot 0.
    int parity = 0;
    auto oneMatrixGroup = [&](int l) {
        float2 acc[2];
        twoRowTiles(l, kWorkerEmptyUp, H, UPT, acc);
        mbarWait(&P.upEmpty[parity & 1], ((parity >> 1) & 1) ^ 1);
        if (t == 0) {
#pragma unroll
            for (int half = 0; half < 2; ++half) {
                upPart[parity & 1][warp][half][0][g] = acc[half].x;
                upPart[parity & 1][warp][half][0][g + 8] = acc[half].y;
            }
            mbarArrive(&P.upFull[parity & 1]);
        }
        ++parity;
    };

    if (!C::kEpilogue && ownsDown(b) && warp == 0) { // prologue: layer 0's X8 of h·w
        const int row = 32 * b + lane;
        writeNormGroup(__ldcg(a.h + row), row, a.layers[0].norm, a.xn8[0], a.groupSq[0]);
        warpSignal(&a.hReady[0], a.releaseSignal);
    }
    if (a.hybrid) gridDependencyWait(); // the attention's output comes from the kernels before
    unsigned downs = 0; // downEmpty's phases in this launch
    for (int l = a.phaseBegin / 4; l < a.count && 4 * l < a.phaseEnd; ++l) {
        // With an epilogue warp, warp 0 alone polls (one poller a block, not nine) and copyX8's
        // barrier holds the other workers; the epilogue warp hears of h's inputs through hSeen.
        if constexpr (C::kAttention)
            if (a.attention && inWindow(a, 4 * l)) {
                // ---- q/k/v: per group, row tiles 2g and 2g + 1; then o (group b) from q ----------------
                if (a.waits && warp == 0) warpWaitCount(&a.hReady[l], kDownGroups, a.relaxedWaits);
                if (a.waits && warp == 0 && lane == 0) mbarArrive(&P.hSeenA);
                copyX8(a.xa8[l & 1], H);
                for (int grp = qkvBegin(b); grp < qkvEnd(b); ++grp) oneMatrixGroup(l);
                if (a.depth >= 0 && !a.hybrid) { // the attention itself: task b, then query head b's combine
                    if (const int r = taskOfBlock(a, b); r >= 0 && !(a.attnSkip & 64)) {
                        const TaskConstants tc = taskConstants(a, a.layers[l]);
                        if (a.waits && !(a.attnSkip & 8) && warp == 0) warpWaitCount(&a.qkvDone[l], kQkvGroups, a.relaxedWaits);
                        sync();
                        if (C::kTrace && warp == 0) stamp(a, l, kTaskStart);
                        auto takePage = [&](unsigned ahead) { return take(l, kWorkerEmptyUp, ahead); };
                        auto releasePage = [&] { pages.release(); };
                        if (a.kvRanges > 0) // ends counted in oIn where the KV head's last range ends
                            headTask<C::kWarps>(a, a.layers[l], tc, l, r, [&] { return take(l, kWorkerEmptyUp); },
                                                releasePage, sync, reinterpret_cast<float*>(x8s), &P.ticket);
                        else if (a.attnBatched) attentionTask<true>(a, a.layers[l], tc, r, warp, takePage, releasePage);
                        else attentionTask<false>(a, a.layers[l], tc, r, warp, takePage, releasePage);
                        if (a.kvRanges == 0) warpSignal(&a.partDone[l], a.releaseSignal);
                        if (C::kTrace && warp == 0) stamp(a, l, kTaskEnd);
                    }
                    if (b < kHeads && (a.combineBlock || warp == 0) && !(a.attnSkip & 128) && a.kvRanges == 0) {
                        if (a.waits && !(a.attnSkip & 16) && warp == 0)
                            warpWaitCount(&a.partDone[l], unsigned(a.attnTasks * kKvHeads), a.relaxedWaits);
                        // --combine-block: every worker warp, meeting in x8s (q/k/v's x, consumed; o's
                        // copyX8 rewrites it only after its own sync)
                        if (a.combineBlock) sync();
                        combineHead(a, b, a.attnTasks, a.combineBlock ? warp : 0, a.combineBlock ? C::kWarps : 1,
                                    reinterpret_cast<float*>(x8s), sync);
                        if (warp == 0) {
                            warpSignal(&a.oIn[l], a.releaseSignal);
                            if constexpr (C::kTrace) stamp(a, l, kCombineEnd);
                        }
                    }
                }
            }
        if constexpr (C::kAttention)
            if (a.attention && inWindow(a, 4 * l + 1)) {
                if (ownsDown(b)) { // --hybrid: the attention kernels' X8 output, complete at the launch's wait
                    if (a.waits && !(a.depth >= 0 && (a.attnSkip & 32)) && !a.hybrid && warp == 0)
                        warpWaitCount(a.depth >= 0 ? &a.oIn[l] : &a.qDone[l], a.depth >= 0 ? kHeads : kQGroups,
                                      a.relaxedWaits);
                    if (a.hybrid) copyX8(a.oEngineX8, H, false);
                    else copyX8(a.depth >= 0 ? a.oX : a.q8, H);
                    if (C::kTrace && warp == 0) stamp(a, l, kOStart);
                    oneMatrixGroup(l);
                }
            }
        // ---- gate/up: per group, row tiles 2g and 2g + 1 of gate and up ------------------------------
        if (!inWindow(a, 4 * l + 2)) continue; // (a window starts at o or q/k/v and ends after q/k/v)
        if (C::kTrace && warp == 0) stamp(a, l, kUpWaitBegin);
        if (a.waits && (!C::kEpilogue || warp == 0))
            warpWaitCount(C::kAttention && a.attention ? &a.hMid[l] : &a.hReady[l], kDownGroups, a.relaxedWaits);
        if (C::kEpilogue && a.waits && warp == 0 && lane == 0) mbarArrive(&P.hSeen);
        const float inv = invRmsOfGroups(a.groupSq[l & 1]);
        copyX8(a.xn8[l & 1], H);
        if (C::kTrace && warp == 0) stamp(a, l, kUpStart), stampSm(a, l);
        for (int grp = upBegin(b); grp < upEnd(b); ++grp) {
            float2 acc[2][2]; // [half][gate, up]: rows g, g + 8 of the row tile
#pragma unroll
            for (int p = 0; p < UP; ++p) {
                const int half = p / (2 * UPT), mat = (p / UPT) & 1, kp = p % UPT;
                const float2 s = pageDot(std::integral_constant<int, WT>{}, l, kWorkerEmptyUp, H, kp,
                                         C::kUpPageTiles, WT * warp);
                if (kp == 0) acc[half][mat] = s;
                else acc[half][mat].x += s.x, acc[half][mat].y += s.y;
            }
#pragma unroll
            for (int half = 0; half < 2; ++half)
#pragma unroll
                for (int mat = 0; mat < 2; ++mat) acc[half][mat] = sumOverT(acc[half][mat]);
            if constexpr (C::kEpilogue) mbarWait(&P.upEmpty[parity & 1], ((parity >> 1) & 1) ^ 1);
            if (t == 0) {
#pragma unroll
                for (int half = 0; half < 2; ++half)
#pragma unroll
                    for (int mat = 0; mat < 2; ++mat) {
                        upPart[parity & 1][warp][half][mat][g] = acc[half][mat].x;
                        upPart[parity & 1][warp][half][mat][g + 8] = acc[half][mat].y;
                    }
                if constexpr (C::kEpilogue) mbarArrive(&P.upFull[parity & 1]);
            }
            if constexpr (C::kEpilogue) {
                ++parity;
                continue;
            }
            sync();
            if (warp == 0) {
                float gate = 0.0f, up = 0.0f;
#pragma unroll
                for (int w = 0; w < C::kWarps; ++w) {
                    gate += upPart[parity & 1][w][lane >> 4][0][lane & 15];
                    up += upPart[parity & 1][w][lane >> 4][1][lane & 15];
                }
                storeX8Group(silu(gate * inv) * (up * inv), lane, F, grp, a.act8);
                warpSignal(&a.upDone[l], a.releaseSignal);
            }
            ++parity; // upPart is double-buffered: warp 0 reads one while the others fill the other
        }
        if (C::kTrace && warp == 0) stamp(a, l, kUpEnd);
        if constexpr (C::kTrace) stampLast(a, l, kUpEndLast);
        if (!ownsDown(b)) continue;
        // ---- down: row tiles 2b and 2b + 1, each DPT pages; x from a shared copy of act's X8 ---------
        if (a.waits && (!C::kEpilogue || warp == 0)) warpWaitCount(&a.upDone[l], kUpGroups, a.relaxedWaits);
        copyX8(a.act8, F);
        if (C::kTrace && warp == 0) stamp(a, l, kDownStart);
        float2 acc[2];
        static_assert(C::kDownPageTiles == C::kUpPageTiles && C::kDownPages == 2 * DPT);
        twoRowTiles(l, kWorkerEmptyDown, F, DPT, acc);
        if constexpr (C::kEpilogue) mbarWait(&P.downEmpty, (downs++ & 1u) ^ 1u);
        if (t == 0) {
#pragma unroll
            for (int half = 0; half < 2; ++half) {
                downPart[warp][half][g] = acc[half].x;
                downPart[warp][half][g + 8] = acc[half].y;
            }
            if constexpr (C::kEpilogue) mbarArrive(&P.downFull);
        }
        if (C::kTrace && warp == 0) stamp(a, l, kDownEnd);
        if constexpr (C::kTrace) stampLast(a, l, kDownEndLast);
        if constexpr (C::kEpilogue) continue;
        sync();
        if (warp == 0) {
            float v = __ldcg(a.h + 32 * b + lane);
#pragma unroll
            for (int w = 0; w < C::kWarps; ++w) v += downPart[w][lane >> 4][lane & 15];
            const int row = 32 * b + lane;
            a.h[row] = v;
            const Layer& next = a.layers[l + 1 < a.count ? l + 1 : l];
            writeNormGroup(v, row, next.norm, a.xn8[(l + 1) & 1], a.groupSq[(l + 1) & 1]);
            warpSignal(&a.hReady[l + 1], a.releaseSignal);
        }
        sync(); // downPart and the X8 copy are rewritten next layer
    }
}

template <class C>
__global__ void __launch_bounds__(C::kThreads, 1) dataflowMma(Args a) {
    extern __shared__ __align__(128) uint8_t ring[];
    __shared__ __align__(8) uint64_t full[kMaxStages], empty[kMaxStages];
    __shared__ Parts<C> parts;
    parts.init();
    initStages(full, empty, a.stages, 1, C::kWarps); // (its barrier also covers parts.init)
    const int warp = int(threadIdx.x >> 5);
    if (warp == C::kWarps + C::kEpilogue) tileLoader<C>(a, ring, full, empty);
    else if (warp == C::kWarps) mmaEpilogue<C>(a, parts);
    else mmaWorkers<C>(a, ring, reinterpret_cast<int8_t*>(ring + size_t(a.stages) * C::kStageBytes), full, empty, parts);
}

} // namespace hearth::kernels::dataflow
