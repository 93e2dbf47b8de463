// hearth-bench-dataflow's kinds 4-9 (experiment; the engine does not use it): the dataflow FFN kernel
// with the Q4_K dots on the tensor cores. The dp4a workers of kinds 0-3 issue 3.7 warp instructions a
// 64-weight unit (docs/PERFORMANCE.md, seventh session); an integer mma.m16n8k32 multiplies 16 rows ×
// 32 weights (one sub-block, one X8 group) in one instruction. Measured (eighth session): 2.9-3.2 a
// unit, the scale decode now the larger part; the whole kernel as fast as kind 1, not faster.
//
// Batch 1 uses one column of the mma's eight: B holds the same x in every column, and each thread
// keeps the row sums of its C fragment (rows g and g + 8). The sums of a sub-block are exact
// integers, as dp4a's are; the scales are applied in fp32 afterwards, so results differ from the
// chain's only in the order of float additions.
//
// Weights are repacked at set-up into tiles of 16 rows × one Q4_K block column (256 weights),
// 2,304 bytes like the 16 GGUF blocks they hold: the 16 rows' 16-byte headers (d, dmin, the packed
// six-bit scales), then for each 64-weight chunk c the 512 bytes of qs[32c..32c+32) of the 16 rows in
// A-fragment order — lane L = 4g + t holds {row g bytes 4t..4t+3, row g+8 the same, row g bytes
// 16+4t.., row g+8 bytes 16+4t..}, one conflict-free 16-byte load. Masking the low nibbles gives
// the fragment of sub-block 2c, the high ones (in place: 16·q) that of 2c+1. A matrix's row tile
// of k/256 tiles is contiguous, so a page is PB consecutive tiles of one row tile (one bulk copy).
//
// Work: every page goes to all W workers, warp w taking PB/W of its tiles; a row's partial sums
// meet in shared memory at the end of a group, as in kinds 0-3, or go to an epilogue warp (Parts). Each phase's x (X8 of h·w, of act)
// is rewritten once after its wait into shared memory in fragment order (MmaX), so a lane's B
// fragments for a tile are 64 contiguous bytes.
#pragma once

#include "dataflow_args.cuh"

namespace hearth::kernels::dataflow {

constexpr int kTileBytes = 16 * 144;

// A phase's x as the mma needs it, made once in shared memory from the X8 vector (by copyX8): for
// block column j and lane residue t, the B fragments of the column's 8 groups (elements 4t..4t+3 and
// 16+4t..16+4t+3 of each: one uint2 a group, 64 contiguous bytes), and the records of the two groups
// of chunk t, {d, d·Σq} of each (a float4).
struct MmaX {
    uint2* frags;  // [column][t][group of the column]
    float4* recs;  // [column][t]
    __host__ __device__ static constexpr size_t bytes(int k) { return size_t(k / 256) * 4 * (8 * 8 + 16); }
};
__device__ __forceinline__ MmaX mmaX(int8_t* base, int k) {
    return {reinterpret_cast<uint2*>(base), reinterpret_cast<float4*>(base + size_t(k / 256) * 4 * 64)};
}

// PB tiles a page, W worker warps; E: a warp of its own does the groups' epilogues (below).
// T: the --trace stamps compiled in. D: the producers of x write it in the fragment layout (MmaX) in
// global memory, so after its wait a phase takes x with one bulk copy instead of rewriting it.
// R: a lean epilogue — each worker warp hands its sums over with one mbarrier arrival (not one a
// lane t = 0), and the epilogue warp keeps its 32 rows of h in a register across layers and loads
// the next layer's norm weights before it waits, so no global load stands between the last worker
// and the group's count. (Tried and slower, in git history: two pages taken at once so that two
// tiles are in flight per warp, 26.2-26.6 µs at 1ef5a0c; tiles claimed one at a time from a counter
// by the next free warp, 26.9-27.3 µs at the commit after it.)
// (P, per-warp pages — a page to one warp, so a stage is freed by one warp — was kind 11 at b24f791:
// slower, 30.5 µs a layer against 27.5.)
template <int PB, int W = 8, bool E = false, bool T = true, bool D = false, bool R = false>
struct MmaConfig {
    static constexpr bool kBulk = true, kEpilogue = E, kTrace = T, kDirectX = D, kLean = R;
    static constexpr int kWarps = W, kThreads = (kWarps + 1 + E) * 32;
    static constexpr int kUpPageTiles = PB, kDownPageTiles = PB;
    static constexpr int kWarpTiles = PB / kWarps; // tiles a warp takes of a page
    static constexpr int kStageBytes = PB * kTileBytes;
    static constexpr int kX8Bytes = int(MmaX::bytes(F)); // the phase's x, after the ring
    static constexpr int kUpColumns = H / 256, kDownColumns = F / 256;
    static constexpr int kUpPagesPerTile = kUpColumns / PB, kDownPagesPerTile = kDownColumns / kDownPageTiles;
    static constexpr int kUpPages = 4 * kUpPagesPerTile;     // a gate/up group: 2 row tiles of each matrix
    static constexpr int kDownPages = 2 * kDownPagesPerTile; // a down group: 2 row tiles
    static_assert(PB % kWarps == 0 && kUpColumns % PB == 0 && kDownColumns % kDownPageTiles == 0);
    static_assert(!D || E, "x in the fragment layout is written by the epilogue warp");
    static_assert(!R || E, "the lean epilogue is the epilogue warp's");
};

// Called by a whole warp, lane l holding element l of group `group` of a k-element vector: the
// group as storeX8Group quantizes it (the same int8 values, d and d·Σq), written straight into the
// MmaX layout at `base` (global memory) — the fragments' words and its half of the chunk's record.
__device__ __forceinline__ void storeMmaXGroup(float v, int lane, int k, int group, int8_t* base) {
    float amax = fabsf(v);
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, o));
    const float d = amax / 127.0f;
    const int q = amax > 0.0f ? max(-127, min(127, __float2int_rn(v * (127.0f / amax)))) : 0;
    int sum = q;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    uint32_t word = uint32_t(q) & 0xFFu; // lane 4i gathers elements 4i..4i+3
#pragma unroll
    for (int i = 1; i < 4; ++i) word |= (uint32_t(__shfl_down_sync(0xffffffffu, q, i)) & 0xFFu) << (8 * i);
    const MmaX x = mmaX(base, k);
    const int column = group >> 3, j = group & 7;
    if ((lane & 3) == 0) // lanes 0-15: the fragment's .x (elements 4t..), 16-31: .y (16 + 4t..)
        reinterpret_cast<uint32_t*>(x.frags + (column * 4 + ((lane >> 2) & 3)) * 8 + j)[lane >> 4] = word;
    if (lane == 0)
        *reinterpret_cast<float2*>(reinterpret_cast<float*>(x.recs + column * 4 + (j >> 1)) + 2 * (j & 1)) =
            make_float2(d, d * float(sum));
}

// A group of h rows for the next phase (writeNormGroup), in the layout config C consumes.
template <class C>
__device__ __forceinline__ void normGroup(float v, int row, const float* w, int8_t* xn, float* sq) {
    if constexpr (C::kDirectX) {
        storeMmaXGroup(v * w[row], int(threadIdx.x & 31), H, row >> 5, xn);
        const float s = warpSum(v * v);
        if ((threadIdx.x & 31) == 0) sq[row >> 5] = s;
    } else {
        writeNormGroup(v, row, w, xn, sq);
    }
}

// D = A·B for A 16×32 u8 (this thread's a0..a3), B 32×8 s8 (b0, b1); returns D[g][2t] and D[g+8][2t].
__device__ __forceinline__ int2 mmaU8S8(uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3, uint32_t b0,
                                        uint32_t b1) {
    int d[4]; // columns 2t and 2t + 1 of rows g and g + 8: equal columns, so d[1] and d[3] repeat d[0], d[2]
    asm("mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%10,%10,%10,%10};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "r"(0));
    return make_int2(d[0], d[2]);
}

// This lane's share of one tile (in shared memory) · x for rows g and g + 8 of the tile: the mma
// gives every lane the integer sums of all 8 sub-blocks (B's 8 columns are equal), and lane t applies
// the scales of chunk t only, so the 4 lanes of a row split the float work; their partial sums are
// added at the end of a group (sumOverT).
__device__ __forceinline__ int pick(const int (&v)[4], int t) { return t == 0 ? v[0] : t == 1 ? v[1] : t == 2 ? v[2] : v[3]; }
__device__ __forceinline__ float2 tileDot(const uint8_t* tile, const uint2* frags, const float4& rec) {
    const int lane = int(threadIdx.x & 31), g = lane >> 2, t = lane & 3;
    int sa0[4], sa1[4], sb0[4], sb1[4]; // [chunk]: sub-block 2c (a) and 2c+1 (b, 16·Σ), rows g (0) and g+8 (1)
#pragma unroll
    for (int c = 0; c < 4; ++c) {
        const uint4 q = *reinterpret_cast<const uint4*>(tile + 256 + 512 * c + 16 * lane);
        const uint2 xa = frags[2 * c], xb = frags[2 * c + 1];
        const uint32_t lo = 0x0F0F0F0Fu, hi = 0xF0F0F0F0u;
        const int2 a = mmaU8S8(q.x & lo, q.y & lo, q.z & lo, q.w & lo, xa.x, xa.y);
        const int2 b = mmaU8S8(q.x & hi, q.y & hi, q.z & hi, q.w & hi, xb.x, xb.y);
        sa0[c] = a.x, sa1[c] = a.y, sb0[c] = b.x, sb1[c] = b.y;
    }
    const uint4 h0 = *reinterpret_cast<const uint4*>(tile + 16 * g);
    const uint4 h1 = *reinterpret_cast<const uint4*>(tile + 16 * (g + 8));
    uint32_t sc0, mn0, sc1, mn1;
    kScaleMin(h0, t, sc0, mn0);
    kScaleMin(h1, t, sc1, mn1);
    const float da = rec.x, db = rec.z * (1.0f / 16.0f);
    const float r0 = halfBits(h0.x) * (da * float(int(sc0 & 0xFF) * pick(sa0, t)) + db * float(int(sc0 >> 8) * pick(sb0, t))) -
                     halfBits(h0.x >> 16) * (float(mn0 & 0xFF) * rec.y + float(mn0 >> 8) * rec.w);
    const float r1 = halfBits(h1.x) * (da * float(int(sc1 & 0xFF) * pick(sa1, t)) + db * float(int(sc1 >> 8) * pick(sb1, t))) -
                     halfBits(h1.x >> 16) * (float(mn1 & 0xFF) * rec.y + float(mn1 >> 8) * rec.w);
    return make_float2(r0, r1);
}
__device__ __forceinline__ float2 sumOverT(float2 v) {
#pragma unroll
    for (int o = 1; o < 4; o <<= 1) {
        v.x += __shfl_xor_sync(0xffffffffu, v.x, o);
        v.y += __shfl_xor_sync(0xffffffffu, v.y, o);
    }
    return v;
}

// The loader for the tile layout: every page of every layer in the order the workers take them.
template <class C>
__device__ void tileLoader(const Args& a, uint8_t* ring, uint64_t* full, uint64_t* empty) {
    if ((threadIdx.x & 31) != 0) return;
    const int b = int(blockIdx.x);
    unsigned page = 0;
    int layer = 0;
    TracePoint phase = kLoaderFullUp;
    auto issue = [&](const uint8_t* src, unsigned bytes) { // a page of `bytes` ≤ a stage
        const unsigned s = page % unsigned(a.stages), round = page / unsigned(a.stages);
        if (C::kTrace && a.trace) {
            const unsigned long long t0 = globalNs();
            mbarWait(&empty[s], (round & 1u) ^ 1u, a.suspendNs);
            addDuration(a, layer, phase, globalNs() - t0);
        } else {
            mbarWait(&empty[s], (round & 1u) ^ 1u, a.suspendNs);
        }
        if (a.loads) {
            mbarExpect(&full[s], bytes);
            bulkLoad(ring + size_t(s) * C::kStageBytes, src, bytes, &full[s]);
        } else {
            mbarArrive(&full[s]);
        }
        ++page;
    };
    auto rowTile = [&](const uint8_t* m, int columns, int pageTiles, int rt) {
        for (int p = 0; p < columns / pageTiles; ++p)
            issue(m + (size_t(rt) * columns + size_t(p) * pageTiles) * kTileBytes, unsigned(pageTiles * kTileBytes));
    };
    for (int l = 0; l < a.count; ++l) {
        const Layer& L = a.layers[l];
        layer = l, phase = kLoaderFullUp;
        for (int g = upBegin(b); g < upEnd(b); ++g)
            for (int half = 0; half < 2; ++half) {
                rowTile(L.gate, C::kUpColumns, C::kUpPageTiles, 2 * g + half);
                rowTile(L.up, C::kUpColumns, C::kUpPageTiles, 2 * g + half);
            }
        phase = kLoaderFullDown;
        if (ownsDown(b))
            for (int half = 0; half < 2; ++half) rowTile(L.down, C::kDownColumns, C::kDownPageTiles, 2 * b + half);
    }
}

// Where the workers' row sums meet. Without an epilogue warp, the workers meet at a named barrier
// after each group and warp 0 finishes the group (as kinds 0-3 do), so every group waits for warp
// 0's epilogue of the one before. With one (kEpilogue), the partial sums are handed over through
// mbarriers (upFull/upEmpty: a ring of two buffers; downFull/downEmpty) and the workers go on to
// the next group's pages at once.
template <class C>
struct Parts {
    float up[2][C::kWarps][2][2][16]; // [group parity][warp][half][gate, up][row of the tile]
    float down[C::kWarps][2][16];     // [warp][half][row of the tile]
    uint64_t upFull[2], upEmpty[2], downFull, downEmpty;
    uint64_t hSeen; // worker warp 0 has seen this layer's h complete (the block's only poller of it)
    uint64_t xFull; // kDirectX: the phase's x has landed (one bulk copy a phase)
    static constexpr unsigned kArrivals = C::kLean ? C::kWarps : C::kWarps * 8; // warps, or their lanes t = 0
    __device__ void init() {
        if (threadIdx.x == 0) {
            for (int j = 0; j < 2; ++j) mbarInit(&upFull[j], kArrivals), mbarInit(&upEmpty[j], 1);
            mbarInit(&downFull, kArrivals), mbarInit(&downEmpty, 1), mbarInit(&hSeen, 1);
            mbarInit(&xFull, 1);
        }
    }
};

// The epilogue warp: per gate/up group silu(gate)·up as an X8 group of act and the group's count;
// per down group h += the sums, the next layer's X8 group of h·w with Σh², and the count.
template <class C>
__device__ void mmaEpilogue(const Args& a, Parts<C>& P) {
    const int b = int(blockIdx.x), lane = int(threadIdx.x & 31);
    auto handBack = [&](uint64_t* bar) {
        __syncwarp();
        if (lane == 0) mbarArrive(bar);
    };
    const int row = 32 * b + lane;
    float hRow = 0.0f; // kLean: this block's rows of h, kept here across layers (it alone writes them)
    if (ownsDown(b)) {
        hRow = __ldcg(a.h + row);
        normGroup<C>(hRow, row, a.layers[0].norm, a.xn8[0], a.groupSq[0]);
        warpSignal(&a.hReady[0], a.releaseSignal);
    }
    unsigned parity = 0;
    for (int l = 0; l < a.count; ++l) {
        const Layer& next = a.layers[l + 1 < a.count ? l + 1 : l];
        const float wNext = C::kLean && ownsDown(b) ? next.norm[row] : 0.0f; // before any wait
        if (a.waits) mbarWait(&P.hSeen, unsigned(l) & 1u);
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
        mbarWait(&P.downFull, unsigned(l) & 1u); // every layer of a block that owns a down group
        if constexpr (C::kTrace) stamp(a, l, kDownSumsSeen);
        float v = C::kLean ? hRow : __ldcg(a.h + row);
#pragma unroll
        for (int w = 0; w < C::kWarps; ++w) v += P.down[w][lane >> 4][lane & 15];
        handBack(&P.downEmpty);
        a.h[row] = v;
        hRow = v;
        if constexpr (C::kLean) {
            storeMmaXGroup(v * wNext, lane, H, b, a.xn8[(l + 1) & 1]);
            const float sq = warpSum(v * v);
            if (lane == 0) a.groupSq[(l + 1) & 1][b] = sq;
        } else {
            normGroup<C>(v, row, next.norm, a.xn8[(l + 1) & 1], a.groupSq[(l + 1) & 1]);
        }
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
    RingPages pages{ring, full, empty, C::kStageBytes, unsigned(a.stages), a.suspendNs, 0u, 1u};
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
    auto copyX8 = [&](const int8_t* src, int k) {
        if constexpr (C::kEpilogue) sync(); // no group's barrier has ended the previous phase's reads
        if constexpr (C::kDirectX) {
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

    if (!C::kEpilogue && ownsDown(b) && warp == 0) { // prologue: layer 0's X8 of h·w
        const int row = 32 * b + lane;
        writeNormGroup(__ldcg(a.h + row), row, a.layers[0].norm, a.xn8[0], a.groupSq[0]);
        warpSignal(&a.hReady[0], a.releaseSignal);
    }
    int parity = 0;
    for (int l = 0; l < a.count; ++l) {
        // ---- gate/up: per group, row tiles 2g and 2g + 1 of gate and up ------------------------------
        if (C::kTrace && warp == 0) stamp(a, l, kUpWaitBegin);
        // With an epilogue warp, warp 0 alone polls (one poller a block, not nine) and copyX8's
        // barrier holds the other workers; the epilogue warp hears of it through hSeen.
        if (a.waits && (!C::kEpilogue || warp == 0)) warpWaitCount(&a.hReady[l], kDownGroups, a.relaxedWaits);
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
                if constexpr (C::kEpilogue && !C::kLean) mbarArrive(&P.upFull[parity & 1]);
            }
            if constexpr (C::kLean) {
                __syncwarp();
                if (lane == 0) mbarArrive(&P.upFull[parity & 1]);
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
#pragma unroll
        for (int p = 0; p < C::kDownPages; ++p) {
            const int half = p / DPT, kp = p % DPT;
            const float2 s = pageDot(std::integral_constant<int, WT>{}, l, kWorkerEmptyDown, F, kp,
                                     C::kDownPageTiles, WT * warp);
            if (kp == 0) acc[half] = s;
            else acc[half].x += s.x, acc[half].y += s.y;
        }
#pragma unroll
        for (int half = 0; half < 2; ++half) acc[half] = sumOverT(acc[half]);
        if constexpr (C::kEpilogue) mbarWait(&P.downEmpty, (unsigned(l) & 1u) ^ 1u);
        if (t == 0) {
#pragma unroll
            for (int half = 0; half < 2; ++half) {
                downPart[warp][half][g] = acc[half].x;
                downPart[warp][half][g + 8] = acc[half].y;
            }
            if constexpr (C::kEpilogue && !C::kLean) mbarArrive(&P.downFull);
        }
        if constexpr (C::kLean) {
            __syncwarp();
            if (lane == 0) mbarArrive(&P.downFull);
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

// GGUF Q4_K rows (n × k) → the tile layout above (n a multiple of 16). One thread a tile's 16-byte piece.
__global__ void repackQ4KTiles(const uint8_t* src, uint8_t* dst, int n, int k) {
    const int columns = k / 256;
    const size_t pieces = size_t(n / 16) * columns * (kTileBytes / 16);
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < pieces; i += size_t(gridDim.x) * blockDim.x) {
        const size_t tile = i / (kTileBytes / 16);
        const int piece = int(i % (kTileBytes / 16)), rt = int(tile / columns), col = int(tile % columns);
        auto block = [&](int r) { return src + (size_t(16 * rt + r) * columns + col) * 144; };
        uint32_t out[4];
        if (piece < 16) { // the header of row `piece`
            std::memcpy(out, block(piece), 16);
        } else {
            const int c = (piece - 16) / 32, lane = (piece - 16) % 32, gg = lane >> 2, tt = lane & 3;
            auto word = [&](int r, int off) {
                uint32_t v;
                std::memcpy(&v, block(r) + 16 + 32 * c + off, 4);
                return v;
            };
            out[0] = word(gg, 4 * tt), out[1] = word(gg + 8, 4 * tt);
            out[2] = word(gg, 16 + 4 * tt), out[3] = word(gg + 8, 16 + 4 * tt);
        }
        std::memcpy(dst + i * 16, out, 16);
    }
}

} // namespace hearth::kernels::dataflow
