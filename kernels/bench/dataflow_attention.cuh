// hearth-bench-dataflow's decode attention as tasks of the tensor-core kernel (--depth D, kinds
// 13-14; experiment, the engine does not use it). Qwen3-8B's attention: 32 query heads over 8 KV
// heads of 128, per-head q/k RMSNorm, RoPE on (i, i + 64), an f16 cache of rows [position][KV head
// · 128].
//
// After the q/k/v groups are counted in (their raw sums, 1/rms applied, in Args::qkvRaw), the block
// taskOfBlock names runs task r: cache rows [r·span, (r+1)·span) below the new position, which the loader
// streamed into the ring like weights (they do not depend on the token; 8 rows a page, a K page
// then its V page), and, in the task holding it, the new position itself, computed from the raw k
// and v (and written to the cache). Worker warp w takes KV head w and its 4 query heads (each lane
// dims lane + 32i, so RoPE's pairs stay in the lane), keeps an online softmax per head and writes
// its partial {max, sum, o} per head. When all partials are in, block h < 32 (warp 0, or every worker
// warp with --combine-block) combines query head h and writes it as 4 groups of o's x (the MmaX
// layout); o waits for the 32 heads. The token-independent constants (norm weights, RoPE at the
// position) are taken before the wait (TaskConstants).
#pragma once

#include "dataflow_mma.cuh"

namespace hearth::kernels::dataflow {

constexpr int kHeadsPerKv = kHeads / kKvHeads;
constexpr int kPartialFloats = 2 + kHeadDim; // a head's {max, sum, o[128]}
static_assert(kKvHeads == 8, "a worker warp per KV head: 8 workers");

// How the rows below the new position (depth) are split: `tasks` ranges of `span` rows, the last
// also holding the new position. At least minRows rows a task, at most one task a block.
struct AttentionSchedule {
    int tasks, span;
};
inline AttentionSchedule attentionSchedule(int depth, int blocks, int minRows) {
    const int rows = depth + 1;
    const int tasks = std::max(1, std::min(blocks, (rows + minRows - 1) / minRows));
    return {tasks, (rows + tasks - 1) / tasks};
}

// What a task needs that does not depend on the token, for the lane's dims lane + 32i: the q and k
// norms' weights and RoPE's cos/sin at the new position. Taken before the task waits for q/k/v, so
// that after the wait q (and the new row's k and v) is the only round trip; loaded after the wait,
// head by head behind q, these dependent loads cost ~9 µs a layer (--attn-skip 1, tenth session).
struct TaskConstants {
    float qw[4], kw[4], cos[2], sin[2];
};
__device__ __forceinline__ TaskConstants taskConstants(const Args& a, const Layer& L) {
    const int lane = int(threadIdx.x & 31);
    TaskConstants c;
#pragma unroll
    for (int i = 0; i < 4; ++i) c.qw[i] = L.qNorm[lane + 32 * i], c.kw[i] = L.kNorm[lane + 32 * i];
#pragma unroll
    for (int i = 0; i < 2; ++i) sincosf(float(a.depth) * a.invFreq[lane + 32 * i], &c.sin[i], &c.cos[i]);
    return c;
}

// A head's 128 values, lane holding dims lane + 32i: RMSNorm by w, then RoPE on (i, i + 64).
__device__ __forceinline__ void normRope(float (&x)[4], const float (&w)[4], const TaskConstants& c) {
    float sq = 0.0f;
#pragma unroll
    for (int i = 0; i < 4; ++i) sq += x[i] * x[i];
    const float inv = rsqrtf(warpSum(sq) / float(kHeadDim) + kEps);
#pragma unroll
    for (int i = 0; i < 4; ++i) x[i] *= inv * w[i];
#pragma unroll
    for (int i = 0; i < 2; ++i) { // pairs (d, d + 64), d = lane + 32i
        const float lo = x[i], hi = x[i + 2];
        x[i] = lo * c.cos[i] - hi * c.sin[i];
        x[i + 2] = hi * c.cos[i] + lo * c.sin[i];
    }
}

// Row j of a page (this KV head's slice; rows Stride halves apart), the lane's dims lane + 32i; zeros
// past the page's rows.
template <int Stride>
__device__ __forceinline__ void rowDims(const __half* page, int j, int rows, float (&out)[4]) {
    const int lane = int(threadIdx.x & 31);
#pragma unroll
    for (int i = 0; i < 4; ++i) out[i] = j < rows ? __half2float(page[j * Stride + lane + 32 * i]) : 0.0f;
}

// One row's K and V (4 dims a lane) into the online softmax of a KV head's 4 query heads.
__device__ __forceinline__ void rowIntoHeads(const float (&k)[4], const float (&v)[4], const float (&q)[kHeadsPerKv][4],
                                             float (&m)[kHeadsPerKv], float (&l)[kHeadsPerKv],
                                             float (&o)[kHeadsPerKv][4]) {
#pragma unroll
    for (int h = 0; h < kHeadsPerKv; ++h) {
        const float s = warpSum(q[h][0] * k[0] + q[h][1] * k[1] + q[h][2] * k[2] + q[h][3] * k[3]);
        const float mNew = fmaxf(m[h], s), scale = __expf(m[h] - mNew), p = __expf(s - mNew);
        l[h] = l[h] * scale + p;
#pragma unroll
        for (int i = 0; i < 4; ++i) o[h][i] = o[h][i] * scale + p * v[i];
        m[h] = mNew;
    }
}

// KV head kv's 4 query heads, ready for the rows: q (all loads first, one round trip), normed and
// rotated (unless !norm: --attn-skip 1) and scaled by 1/sqrt(128); an empty online softmax each.
__device__ __forceinline__ void queryHeads(const Args& a, const TaskConstants& tc, int kv, bool norm,
                                           float (&q)[kHeadsPerKv][4], float (&m)[kHeadsPerKv],
                                           float (&l)[kHeadsPerKv], float (&o)[kHeadsPerKv][4]) {
    const int lane = int(threadIdx.x & 31);
#pragma unroll
    for (int h = 0; h < kHeadsPerKv; ++h)
#pragma unroll
        for (int i = 0; i < 4; ++i) q[h][i] = __ldcg(a.qkvRaw + (kv * kHeadsPerKv + h) * kHeadDim + lane + 32 * i);
#pragma unroll
    for (int h = 0; h < kHeadsPerKv; ++h) {
        if (norm) normRope(q[h], tc.qw, tc);
#pragma unroll
        for (int i = 0; i < 4; ++i) q[h][i] *= 0.08838834764831845f, o[h][i] = 0.0f; // 1/sqrt(128)
        m[h] = -INFINITY, l[h] = 0.0f;
    }
}

// The new position's row of KV head kv, from the raw k and v: k normed and rotated, both rounded to f16
// and written to the cache (as the chain reads them back), then into the 4 query heads' softmax.
__device__ __forceinline__ void newRowIntoHeads(const Args& a, const Layer& L, const TaskConstants& tc, int kv,
                                                const float (&q)[kHeadsPerKv][4], float (&m)[kHeadsPerKv],
                                                float (&l)[kHeadsPerKv], float (&o)[kHeadsPerKv][4]) {
    const int lane = int(threadIdx.x & 31);
    float k[4], v[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        k[i] = __ldcg(a.qkvRaw + H + kv * kHeadDim + lane + 32 * i);
        v[i] = __ldcg(a.qkvRaw + H + kKvHeads * kHeadDim + kv * kHeadDim + lane + 32 * i);
    }
    normRope(k, tc.kw, tc);
    const size_t row = (size_t(a.depth) * kKvHeads + kv) * kHeadDim;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        k[i] = __half2float(__float2half_rn(k[i]));
        v[i] = __half2float(__float2half_rn(v[i]));
        L.kCache[row + lane + 32 * i] = __float2half_rn(k[i]);
        L.vCache[row + lane + 32 * i] = __float2half_rn(v[i]);
    }
    rowIntoHeads(k, v, q, m, l, o);
}

// A query head's partial {max, sum, o} (kPartialFloats floats; a lane holding dims lane + 32i), merged
// online with others: a running maximum, so the partials' loads need not wait for a pass over them.
struct HeadPartial {
    float m = -INFINITY, l = 0.0f, o[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    __device__ void merge(float mr, float lr, const float (&or_)[4]) {
        if (lr == 0.0f) return; // an empty partial (a warp without pages)
        const float mNew = fmaxf(m, mr), scale = __expf(m - mNew), w = __expf(mr - mNew);
        l = l * scale + w * lr;
#pragma unroll
        for (int i = 0; i < 4; ++i) o[i] = o[i] * scale + w * or_[i];
        m = mNew;
    }
    __device__ void store(float* dst) const {
        const int lane = int(threadIdx.x & 31);
        if (lane == 0) dst[0] = m, dst[1] = l;
#pragma unroll
        for (int i = 0; i < 4; ++i) dst[2 + lane + 32 * i] = o[i];
    }
    __device__ void mergeFrom(const float* src, bool global) {
        const int lane = int(threadIdx.x & 31);
        float or_[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) or_[i] = global ? __ldcg(src + 2 + lane + 32 * i) : src[2 + lane + 32 * i];
        merge(global ? __ldcg(src) : src[0], global ? __ldcg(src + 1) : src[1], or_);
    }
};

// Reduce-scatter over the warp, one step: of its N values the lane keeps the half whose index bit
// (N/2) matches its own lane bit, adding the partner's copy of them; after the steps for 32..2, lane
// L holds the full sum of value L. (N a template argument: the indices stay in registers.)
template <int N>
__device__ __forceinline__ void reduceScatterStep(float (&v)[32], int lane) {
    const bool upper = (lane & (N / 2)) != 0;
#pragma unroll
    for (int j = 0; j < N / 2; ++j) {
        const float keep = upper ? v[j + N / 2] : v[j], give = upper ? v[j] : v[j + N / 2];
        v[j] = keep + __shfl_xor_sync(0xffffffffu, give, N / 2);
    }
}

// A page of up to 8 cache rows into the 4 query heads' online softmax at once (Batched tasks): each
// lane's partial dots for all 32 (row, head) pairs (its 4 dims), reduced and scattered so that lane
// 4·row + head ends with that pair's score (31 shuffles where a reduction per pair takes 160), the
// page's maxima and sums per head over the 8 lanes of a head, then every lane's o from the 32 weights.
// Rows are Stride halves apart.
template <int Stride = kKvHeads * kHeadDim>
__device__ __forceinline__ void pageOfRows(const __half* kp, const __half* vp, int rows,
                                           const float (&q)[kHeadsPerKv][4], float (&m)[kHeadsPerKv],
                                           float (&l)[kHeadsPerKv], float (&o)[kHeadsPerKv][4]) {
    static_assert(kKvRowsPerPage == 8 && kHeadsPerKv == 4, "32 (row, head) pairs, a lane each");
    const int lane = int(threadIdx.x & 31);
    float part[32]; // [4·row + head]
#pragma unroll
    for (int j = 0; j < 8; ++j) {
        float k[4];
        rowDims<Stride>(kp, j, rows, k);
#pragma unroll
        for (int h = 0; h < 4; ++h) part[4 * j + h] = q[h][0] * k[0] + q[h][1] * k[1] + q[h][2] * k[2] + q[h][3] * k[3];
    }
    reduceScatterStep<32>(part, lane);
    reduceScatterStep<16>(part, lane);
    reduceScatterStep<8>(part, lane);
    reduceScatterStep<4>(part, lane);
    reduceScatterStep<2>(part, lane);
    const int head = lane & 3;
    const float s = (lane >> 2) < rows ? part[0] : -INFINITY;
    float mx = s, mNew[kHeadsPerKv], scale[kHeadsPerKv], sumP[kHeadsPerKv];
#pragma unroll
    for (int w = 4; w < 32; w <<= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, w)); // over the 8 rows
#pragma unroll
    for (int h = 0; h < kHeadsPerKv; ++h) {
        mNew[h] = fmaxf(m[h], __shfl_sync(0xffffffffu, mx, h));
        scale[h] = __expf(m[h] - mNew[h]);
    }
    const float mine = head == 0 ? mNew[0] : head == 1 ? mNew[1] : head == 2 ? mNew[2] : mNew[3];
    const float p = __expf(s - mine);
    float rowSum = p;
#pragma unroll
    for (int w = 4; w < 32; w <<= 1) rowSum += __shfl_xor_sync(0xffffffffu, rowSum, w);
#pragma unroll
    for (int h = 0; h < kHeadsPerKv; ++h) {
        sumP[h] = __shfl_sync(0xffffffffu, rowSum, h);
        l[h] = l[h] * scale[h] + sumP[h];
        m[h] = mNew[h];
#pragma unroll
        for (int i = 0; i < 4; ++i) o[h][i] *= scale[h];
    }
#pragma unroll
    for (int j = 0; j < 8; ++j) {
        float v[4];
        rowDims<Stride>(vp, j, rows, v);
#pragma unroll
        for (int h = 0; h < kHeadsPerKv; ++h) {
            const float pj = __shfl_sync(0xffffffffu, p, 4 * j + h);
#pragma unroll
            for (int i = 0; i < 4; ++i) o[h][i] += pj * v[i];
        }
    }
}

// One worker warp's share of task r: KV head `kv` (= the warp) and its 4 query heads. `take(ahead)`
// and `release()` are the workers' ring (every worker warp takes every page). Batched: a page's rows
// at once (pageOfRows), else one at a time, each with a reduction per query head.
template <bool Batched, class Take, class Release>
__device__ void attentionTask(const Args& a, const Layer& L, const TaskConstants& tc, int r, int kv, Take&& take,
                              Release&& release) {
    const int lane = int(threadIdx.x & 31);
    constexpr int kRowsPerPage = kKvRowsPerPage;
    float q[kHeadsPerKv][4], o[kHeadsPerKv][4], m[kHeadsPerKv], l[kHeadsPerKv];
    queryHeads(a, tc, kv, !(a.attnSkip & 1), q, m, l, o);
    for (int p = taskBegin(a, r); p < taskEnd(a, r); p += kRowsPerPage) {
        const int rows = min(kRowsPerPage, taskEnd(a, r) - p);
        const __half* kp = reinterpret_cast<const __half*>(take(0u)) + kv * kHeadDim;
        const __half* vp = reinterpret_cast<const __half*>(take(1u)) + kv * kHeadDim;
        if (a.attnSkip & 2) {
            // --attn-skip 2: the pages taken and released, their rows not read (timing only)
        } else if constexpr (Batched) {
            pageOfRows(kp, vp, rows, q, m, l, o);
        } else {
            for (int j = 0; j < rows; ++j) {
                float k[4], v[4];
                rowDims<kKvHeads * kHeadDim>(kp, j, rows, k);
                rowDims<kKvHeads * kHeadDim>(vp, j, rows, v);
                rowIntoHeads(k, v, q, m, l, o);
            }
        }
        release();
        release();
    }
    if (r * a.attnSpan <= a.depth && a.depth < (r + 1) * a.attnSpan) // this task holds the new position
        newRowIntoHeads(a, L, tc, kv, q, m, l, o);
    if (a.attnSkip & 4) return; // timing only: no partials written
#pragma unroll
    for (int h = 0; h < kHeadsPerKv; ++h) {
        float* part = a.partial + (size_t(r) * kHeads + kv * kHeadsPerKv + h) * kPartialFloats;
        if (lane == 0) part[0] = m[h], part[1] = l[h];
#pragma unroll
        for (int i = 0; i < 4; ++i) part[2 + lane + 32 * i] = o[h][i];
    }
}

// Block `head` (< 32), once every task's partials are in: query head `head` combined and written as
// groups 4·head .. 4·head + 3 of o's x. `warps` warps take part (this is warp `warp`): each sums the
// tasks warp, warp + warps, ...; with more than one their sums meet in `scratch` (warps ×
// kPartialFloats floats of shared memory, between two `sync()`s of exactly those warps) and warp 0
// writes the groups. The partials are merged online (a running maximum), so a warp's loads of all
// its tasks go out at once: one round trip, not a pass for the maximum first. One warp alone reads
// every task's partial in a chain of L2 round trips.
template <class Sync>
__device__ void combineHead(const Args& a, int head, int tasks, int warp, int warps, float* scratch, Sync&& sync) {
    const int lane = int(threadIdx.x & 31);
    HeadPartial sum;
#pragma unroll 8 // eight tasks' loads in flight
    for (int r = warp; r < tasks; r += warps) {
        if (a.attnSkip & 256) break; // timing only: no partial read
        sum.mergeFrom(a.partial + (size_t(r) * kHeads + head) * kPartialFloats, true);
    }
    if (warps > 1) {
        sum.store(scratch + warp * kPartialFloats);
        sync();
        if (warp == 0) // warps past the tasks' count hold nothing
            for (int w = 1; w < min(warps, tasks); ++w) sum.mergeFrom(scratch + w * kPartialFloats, false);
    }
    if (warp == 0 && !(a.attnSkip & 512)) // timing only: o's x not written
#pragma unroll
        for (int i = 0; i < 4; ++i) storeMmaXGroup(sum.o[i] / sum.l, lane, H, head * 4 + i, a.oX);
}

} // namespace hearth::kernels::dataflow
