// hearth-bench-dataflow's kinds 4-12 (experiment; the engine does not use it): the tile format, the
// dots and the loader of the dataflow kernel with the Q4_K dots on the tensor cores (the kernel's
// roles: dataflow_mma_kernel.cuh). The dp4a workers of kinds 0-3 issue 3.7 warp instructions a
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
// meet in shared memory at the end of a group, as in kinds 0-3, or go to an epilogue warp (Parts).
// Each phase's x (X8 of h·w, of act) is rewritten once after its wait into shared memory in fragment
// order (MmaX), so a lane's B fragments for a tile are 64 contiguous bytes — or (kinds 11-14) written
// in that order by its producers and taken in one bulk copy.
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
// A: the attention block's phases compiled in (--attention, --depth; an instantiation of their own,
// since they cost the FFN-only kernel registers and time).
// (Tried and not kept, in git history: two pages taken at once so that two tiles are in flight per
// warp, 26.2-26.6 µs a layer against 25.5-26.0 at 1ef5a0c; tiles claimed one at a time from a counter
// by the next free warp, 26.9-27.3 at 8d0475f; a lean epilogue — one arrival a warp, h kept in
// registers, the next norm's weights loaded before the wait — 27.5-28.6 at cb36cab.)
// (P, per-warp pages — a page to one warp, so a stage is freed by one warp — was kind 11 at b24f791:
// slower, 30.5 µs a layer against 27.5.)
template <int PB, int W = 8, bool E = false, bool T = true, bool D = false, bool A = false>
struct MmaConfig {
    static constexpr bool kBulk = true, kEpilogue = E, kTrace = T, kDirectX = D, kAttention = A;
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
    static_assert(!A || D, "the attention's phases read x in the fragment layout");
};

// Called by a whole warp, lane l holding element l of group `group` of a k-element vector: the
// group as storeX8Group quantizes it (the same int8 values, d and d·Σq), written straight into the
// MmaX layout at `base` (global memory) — the fragments' words and its half of the chunk's record.
__device__ __forceinline__ void storeMmaXGroup(float v, int lane, int k, int group, int8_t* base) {
    float d;
    const int q = quantizeX8Lane(v, d);
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
        writeGroupSq(v, row, sq);
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
    // A page of `bytes` ≤ a stage, whose copies fill(stage, bar) issues.
    auto issueWith = [&](unsigned bytes, auto&& fill) {
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
            fill(ring + size_t(s) * C::kStageBytes, &full[s]);
        } else {
            mbarArrive(&full[s]);
        }
        ++page;
    };
    auto issue = [&](const uint8_t* src, unsigned bytes) {
        issueWith(bytes, [&](uint8_t* dst, uint64_t* bar) { bulkLoad(dst, src, bytes, bar); });
    };
    auto rowTile = [&](const uint8_t* m, int columns, int pageTiles, int rt) {
        for (int p = 0; p < columns / pageTiles; ++p)
            issue(m + (size_t(rt) * columns + size_t(p) * pageTiles) * kTileBytes, unsigned(pageTiles * kTileBytes));
    };
    for (int l = a.phaseBegin / 4; l < a.count && 4 * l < a.phaseEnd; ++l) {
        const Layer& L = a.layers[l];
        layer = l, phase = kLoaderFullUp;
        if (C::kAttention && a.attention && inWindow(a, 4 * l)) { // q/k/v groups, the task's rows
            for (int g = qkvBegin(b); g < qkvEnd(b); ++g)
                for (int half = 0; half < 2; ++half) rowTile(L.qkv, C::kUpColumns, C::kUpPageTiles, 2 * g + half);
            if (a.hybrid) {
                // no tasks: the attention is the chain's
            } else if (const int r = taskOfBlock(a, b); a.depth >= 0 && r >= 0 && !(a.attnSkip & 64) && a.kvRanges > 0)
                loadHeadTask(a, L, r, issueWith); // --kv-ranges: one KV head's rows, K then V in a page
            else if (const int r = taskOfBlock(a, b); a.depth >= 0 && r >= 0 && !(a.attnSkip & 64)) // --depth: the task's cache rows, K then V a page
                for (int p = taskBegin(a, r); p < taskEnd(a, r); p += kKvRowsPerPage) {
                    static_assert(kKvRowsPerPage * kKvRowBytes <= C::kStageBytes);
                    const unsigned bytes = unsigned(min(kKvRowsPerPage, taskEnd(a, r) - p) * kKvRowBytes);
                    issue(reinterpret_cast<const uint8_t*>(L.kCache) + size_t(p) * kKvRowBytes, bytes);
                    issue(reinterpret_cast<const uint8_t*>(L.vCache) + size_t(p) * kKvRowBytes, bytes);
                }
        }
        if (C::kAttention && a.attention && inWindow(a, 4 * l + 1) && ownsDown(b)) // o's group b
            for (int half = 0; half < 2; ++half) rowTile(L.o, C::kUpColumns, C::kUpPageTiles, 2 * b + half);
        if (!inWindow(a, 4 * l + 2)) continue;
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
