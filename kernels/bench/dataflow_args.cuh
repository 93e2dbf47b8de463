// hearth-bench-dataflow's shape, the arguments its kernels share, the schedule of whole groups and
// the loader warp that streams a block's pages in that order (experiment; the engine does not use
// it). See bench_dataflow_ffn.cu.
#pragma once

#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>

#include "../gemv_kernel.cuh"
#include "../x8_group.cuh"
#include "dataflow_primitives.cuh"

namespace hearth::kernels::dataflow {

using namespace hearth::kernels::detail;

constexpr int H = 4096, F = 12288, QKV = 6144; // QKV: q (32 heads of 128) | k | v (8 heads each)
constexpr float kEps = 1e-6f;
constexpr int kUpRowBytes = H / 256 * 144, kDownRowBytes = F / 256 * 144;
constexpr int kUpGroups = F / 32, kDownGroups = H / 32, kQkvGroups = QKV / 32, kQGroups = H / 32;
constexpr int kMaxStages = 12;
// --depth: Qwen3-8B's attention (dataflow_attention.cuh); the loader streams cache rows 8 a page.
constexpr int kHeads = 32, kKvHeads = 8, kHeadDim = 128;
constexpr int kKvRowBytes = kKvHeads * kHeadDim * 2; // one f16 cache row, every KV head
constexpr int kKvRowsPerPage = 8;                    // 16 KB, within a stage of pages of 8 tiles
constexpr size_t kMaxSharedBytes = 232448 - 4096; // an H200 block's opt-in shared memory, less the static

struct Layer {
    const uint8_t *gate, *up, *down;
    const float* norm; // the FFN's
    const uint8_t *qkv, *o;
    const float* attnNorm;
    const float *qNorm, *kNorm; // --depth: the per-head q/k norms (128 each)
    __half *kCache, *vCache;    // --depth: the f16 cache, [position][KV head · 128]
};

struct Args {
    const Layer* layers;
    int count;
    int stages;
    int attention;          // 1: each layer starts with q/k/v and o (attention stubbed: o reads q)
    float* h;               // the residual stream, updated in place by the o and down groups
    int8_t* xn8[2];         // X8 of h·w (the FFN's norm) for layer l in xn8[l & 1]
    float* groupSq[2];      // Σh² of each group of 32, likewise
    int8_t* xa8[2];         // X8 of h·w (the attention's norm), likewise
    float* groupSqA[2];
    int8_t* act8;           // X8 of act
    int8_t* q8;             // X8 of q (the stubbed attention's output, o's input)
    float* kv;              // k and v (written, not read: the stub has no cache)
    unsigned* upDone;       // per layer: gate/up groups finished
    unsigned* hReady;       // per layer (count + 1): down groups finished (layer 0: the prologue)
    unsigned* qDone;        // per layer: q groups finished
    unsigned* hMid;         // per layer: o groups finished
    int waits;              // 0: no waits on counters (wrong results: the streaming alone)
    int loads;              // 0: the loader copies nothing (wrong results: the workers' arithmetic alone)
    int releaseSignal;      // 1: a group is counted in by one release atomic after __syncwarp, not a
                            // fence on every lane of the warp first
    int relaxedWaits;       // 1: counters are polled with relaxed loads, one acquire at the end
    unsigned suspendNs;     // > 0: mbarrier waits suspend (at most this long) instead of spinning
    unsigned long long* trace = nullptr; // kinds 7-9: [layer][block][kTracePoints] %globaltimer stamps
    // --depth D (kinds 13-14): the attention itself in the kernel (dataflow_attention.cuh) instead of
    // the stub; depth < 0: the stub.
    int depth = -1;
    int attnTasks = 0, attnSpan = 0; // attentionSchedule
    float* qkvRaw = nullptr;          // the q/k/v sums, 1/rms applied (fp32, QKV)
    float* partial = nullptr;         // [task][head][max, sum, o[128]]
    int8_t* oX = nullptr;             // o's x (the combined heads), MmaX layout
    const float* invFreq = nullptr;   // RoPE's 64 inverse frequencies
    unsigned* qkvDone = nullptr;      // per layer: q/k/v groups counted in
    unsigned* partDone = nullptr;     // per layer: tasks' warps that wrote their partials
    unsigned* oIn = nullptr;          // per layer: query heads combined
    int attnBatched = 0;              // 1: a page of rows at once (pageOfRows), else row by row
    int combineBlock = 0;             // 1: a head's combine on every worker warp of its block, else warp 0
    // timing only (wrong results), bits: 1 q's norm and RoPE, 2 the rows, 4 the partials' stores; the
    // waits of 8 the tasks for q/k/v, 16 the combine for the partials, 32 o for the combine; 64 the
    // tasks (and their pages), 128 the combine; in the combine 256 the partials' loads, 512 o's x stores
    int attnSkip = 0;
    int taskOffset = 0; // the block that runs task 0 (taskOfBlock)
    int kvRanges = 0;   // > 0: dataflow_head_tasks.cuh, tasks per (KV head, range), attnTasks = 8 · kvRanges
    unsigned* kvArrivals = nullptr; // --kv-ranges: per layer and KV head, the ranges' blocks counted in
    // Phases 4l + {0 q/k/v (and the attention tasks), 1 o, 2 gate/up, 3 down} in [phaseBegin, phaseEnd)
    // run. --hybrid launches the kernel once a layer on [4l + 1, 4l + 5): o, the FFN and the next layer's
    // q/k/v, the attention between launches being the chain's kernels (PDL); its o reads their X8.
    int phaseBegin = 0, phaseEnd = 1 << 30;
    int hybrid = 0;
    const int8_t* oEngineX8 = nullptr;
};

// The moments kinds 7-9 stamp into Args::trace (--trace), per layer and block.
enum TracePoint {
    kUpWaitBegin,   // workers: before waiting for h
    kUpStart,       // workers: h's x copied, gate/up begins
    kUpEnd,         // workers: the last gate/up group handed to the epilogue warp
    kDownStart,     // workers: act's x copied, down begins
    kDownEnd,       // workers: the down group handed over
    kUpSignalled,   // epilogue warp: the last gate/up group counted in
    kDownSignalled, // epilogue warp: the down group counted in
    // Durations (ns) summed over the layer: the loader waiting for a free stage while issuing gate/up
    // and down pages (the ring full), and worker warp 0 waiting for a page in each phase (the ring empty).
    kLoaderFullUp,
    kLoaderFullDown,
    kWorkerEmptyUp,
    kWorkerEmptyDown,
    kSm, // the SM the block runs on (%smid), not a time
    kUpEndLast,   // workers: the last worker warp's last gate/up group handed over (kUpEnd is warp 0's)
    kDownEndLast, // workers: the last worker warp's down group handed over
    kUpSumsSeen,   // epilogue warp: the last gate/up group's sums complete (its mbarrier)
    kDownSumsSeen, // epilogue warp: the down group's sums complete
    // --depth (kind 14): the attention's phases
    kQkvSignalled,  // epilogue warp: the block's last q/k/v group counted in
    kTaskStart,     // workers: the task begins (q/k/v counted in, the barrier passed)
    kTaskEnd,       // workers (warp 0): the task's partials counted in
    kCombineEnd,    // worker warp 0 of block h < 32: query head h combined and counted in
    kOStart,        // workers: o's x copied, o begins
    kOSignalled,    // epilogue warp: the o group counted in
    kTracePoints
};
__device__ __forceinline__ unsigned long long globalNs() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
__device__ __forceinline__ void stamp(const Args& a, int layer, TracePoint p) {
    if (!a.trace || (threadIdx.x & 31) != 0) return;
    a.trace[(size_t(layer) * gridDim.x + blockIdx.x) * kTracePoints + p] = globalNs();
}
__device__ __forceinline__ void stampSm(const Args& a, int layer) {
    if (!a.trace || (threadIdx.x & 31) != 0) return;
    unsigned sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    a.trace[(size_t(layer) * gridDim.x + blockIdx.x) * kTracePoints + kSm] = sm;
}
__device__ __forceinline__ void stampLast(const Args& a, int layer, TracePoint p) { // the latest of the warps
    if (!a.trace || (threadIdx.x & 31) != 0) return;
    atomicMax(&a.trace[(size_t(layer) * gridDim.x + blockIdx.x) * kTracePoints + p], globalNs());
}
__device__ __forceinline__ void addDuration(const Args& a, int layer, TracePoint p, unsigned long long ns) {
    if (!a.trace || (threadIdx.x & 31) != 0) return;
    a.trace[(size_t(layer) * gridDim.x + blockIdx.x) * kTracePoints + p] += ns;
}

// ---- the schedule: which groups block b owns ---------------------------------------------------

// Whether phase 4l + k of Args' window runs in this launch (--hybrid).
__device__ __forceinline__ bool inWindow(const Args& a, int phase) {
    return a.phaseBegin <= phase && phase < a.phaseEnd;
}
__device__ __forceinline__ void gridDependencyWait() { asm volatile("griddepcontrol.wait;" ::: "memory"); }

// Block b's attention task, or -1: tasks run on blocks taskOffset, taskOffset + 1, ... (mod the grid),
// so that they can be kept off the blocks that combine (0-31).
__device__ __forceinline__ int taskOfBlock(const Args& a, int b) {
    const int r = (b - a.taskOffset + int(gridDim.x)) % int(gridDim.x);
    return r < a.attnTasks ? r : -1;
}
// --depth: task r's cached rows, [taskBegin, taskEnd) (the new position, depth, is computed).
__device__ __forceinline__ int taskBegin(const Args& a, int r) { return min(r * a.attnSpan, a.depth); }
__device__ __forceinline__ int taskEnd(const Args& a, int r) { return min((r + 1) * a.attnSpan, a.depth); }

__device__ __forceinline__ int upBegin(int b) { return int(b * kUpGroups / gridDim.x); }
__device__ __forceinline__ int upEnd(int b) { return int((b + 1) * kUpGroups / gridDim.x); }
__device__ __forceinline__ int qkvBegin(int b) { return int(b * kQkvGroups / gridDim.x); }
__device__ __forceinline__ int qkvEnd(int b) { return int((b + 1) * kQkvGroups / gridDim.x); }
// Down's and o's group b (both 128 of 32 rows): blocks 0..127, the others only in the wide phases.
__device__ __forceinline__ bool ownsDown(int b) { return b < kDownGroups; } // needs gridDim ≥ 128

// Workers' group of 32 h rows (block b < 128): h·w as an X8 group of `xn`, Σh² to `sq`.
__device__ __forceinline__ void writeGroupSq(float v, int row, float* sq) { // the group's Σh²
    const float s = warpSum(v * v);
    if ((threadIdx.x & 31) == 0) sq[row >> 5] = s;
}
__device__ __forceinline__ void writeNormGroup(float v, int row, const float* w, int8_t* xn, float* sq) {
    storeX8Group(v * w[row], int(threadIdx.x & 31), H, row >> 5, xn);
    writeGroupSq(v, row, sq);
}

// The worker warps of a block meet (named barrier 1; the loader warp is not in it).
template <class C>
__device__ __forceinline__ void workersSync() {
    asm volatile("bar.sync 1, %0;" ::"n"(C::kWarps * 32) : "memory");
}

// 1/rms of h from its 128 groups' Σh² (each warp for itself).
__device__ __forceinline__ float invRmsOfGroups(const float* groupSq) {
    const int lane = int(threadIdx.x & 31);
    float sq = 0.0f;
#pragma unroll
    for (int i = 0; i < kDownGroups / 32; ++i) sq += __ldcg(groupSq + 32 * i + lane);
    return rsqrtf(warpSum(sq) / float(H) + kEps);
}

// Thread 0 sets up the ring's barriers: a stage is full after fullArrivals (and its bytes), empty
// after emptyArrivals warps have freed it.
__device__ __forceinline__ void initStages(uint64_t* full, uint64_t* empty, int stages, unsigned fullArrivals,
                                           unsigned emptyArrivals) {
    if (threadIdx.x == 0) {
        for (int s = 0; s < stages; ++s) {
            mbarInit(&full[s], fullArrivals);
            mbarInit(&empty[s], emptyArrivals);
        }
#if __CUDA_ARCH__ >= 900
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
    }
    __syncthreads();
}

// A worker warp's side of the ring: it takes every page of the block's stream in order (the
// loader's numbering), waiting for each to land, and frees each for the loader.
struct RingPages {
    const uint8_t* ring;
    uint64_t* full;
    uint64_t* empty;
    int stageBytes;
    unsigned stages, suspendNs, page;
    __device__ const uint8_t* take(unsigned ahead = 0) { // the next page, or the one `ahead` pages after it
        const unsigned p = page + ahead, s = p % stages, round = p / stages;
        mbarWait(&full[s], round & 1u, suspendNs);
        return ring + size_t(s) * unsigned(stageBytes);
    }
    __device__ void release() {
        __syncwarp();
        if ((threadIdx.x & 31) == 0) mbarArrive(&empty[page % stages]);
        ++page;
    }
};

// The loader: every page of every layer in the order the workers take them.
template <class C>
__device__ void loader(const Args& a, uint8_t* ring, uint64_t* full, uint64_t* empty) {
    const int lane = int(threadIdx.x & 31);
    if (C::kBulk && lane != 0) return;
    const int b = int(blockIdx.x);
    unsigned page = 0;
    auto issue = [&](const uint8_t* src, unsigned bytes) {
        const unsigned s = page % unsigned(a.stages), round = page / unsigned(a.stages);
        uint8_t* dst = ring + size_t(s) * C::kStageBytes;
        mbarWait(&empty[s], (round & 1u) ^ 1u, a.suspendNs);
        if (!a.loads) {
            mbarArrive(&full[s]);
        } else if constexpr (C::kBulk) {
            mbarExpect(&full[s], bytes);
            bulkLoad(dst, src, bytes, &full[s]);
        } else {
            for (unsigned i = 16u * unsigned(lane); i < bytes; i += 16u * 32u) pieceLoad(dst + i, src + i);
            pieceArrive(&full[s]); // this lane's pieces, counted in as they land
        }
        ++page;
    };
    // A group of 32 rows of k = H: its pages, one matrix's or (two) interleaved.
    auto groupH = [&](const uint8_t* m0, const uint8_t* m1, int g) {
        for (int p = 0; p < 32 / C::kUpPageRows; ++p) {
            const size_t off = size_t(32 * g + C::kUpPageRows * p) * kUpRowBytes;
            issue(m0 + off, C::kUpPageRows * kUpRowBytes);
            if (m1) issue(m1 + off, C::kUpPageRows * kUpRowBytes);
        }
    };
    for (int l = 0; l < a.count; ++l) {
        const Layer& L = a.layers[l];
        if (a.attention) {
            for (int g = qkvBegin(b); g < qkvEnd(b); ++g) groupH(L.qkv, nullptr, g);
            if (ownsDown(b)) groupH(L.o, nullptr, b);
        }
        for (int g = upBegin(b); g < upEnd(b); ++g) groupH(L.gate, L.up, g);
        if (ownsDown(b))
            for (int p = 0; p < C::kDownPages; ++p)
                issue(L.down + size_t(32 * b + C::kDownPageRows * p) * kDownRowBytes,
                      C::kDownPageRows * kDownRowBytes);
    }
}

} // namespace hearth::kernels::dataflow
