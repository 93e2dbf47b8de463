// Experiment (the engine does not use it): can a persistent decode kernel keep HBM busy through
// its dependency waits if the weight loads never wait for them?
//
//   hearth-bench-dataflow [--layers L] [--reps N] [--stages S] [--kind 0..14] [--attention] [--variant V] [--opts O]
//                         [--trace] [--depth D [--task-rows R] [--batched] [--combine-block] [--task-offset B]
//                         [--kv-ranges R] [--attn-skip BITS] [--hybrid]]
//
// The earlier persistent experiment (docs/experiments/decode-persistent-ffn.patch) held one
// register tile across each wait: at every grid barrier or group signal the block stopped
// loading. Here each SM runs one block of two roles, as Hazy Research's Llama-1B megakernel
// does: a loader warp streams the block's weights, in the order they will be used, into a ring of
// shared-memory stages (cp.async.bulk with an mbarrier per stage) and waits only for a free stage;
// eight worker warps wait for the activations they need (counters in global memory, no grid
// barrier), multiply from shared memory and free the stage. Weights do not depend on the
// activations, so while the workers wait the loader keeps S stages (up to ~190 KB) in flight.
//
// Both paths run L SwiGLU blocks of a Qwen3-8B shape (hidden 4096, ffn 12288, Q4_K gate/up/down,
// every layer its own weights): h += delta; xn = RMSNorm(h)·w; act = silu(gate·xn)·(up·xn);
// delta = down·act.
//  - chain: the session's kernels with PDL in one graph: launchRmsNorm (residual add, X8 out) →
//    launchGemvGateUp → launchQuantizeX8 → launchGemv, 4 launches a layer.
//  - dataflow: one kernel. Block b owns whole groups of 32 rows: about 3 of gate/up's 384 groups
//    and one of down's 128. A gate/up group done, its 32 act values go out as one X8 group and a
//    counter; down waits for all 384, then adds its 32 rows to h and writes them as the next
//    layer's X8 group of h·w (the int8 values do not depend on 1/rms) with the group's Σh²; the
//    next gate/up waits for all 128 and scales its sums by 1/rms from the 128 partial sums.
// --attention puts the attention block's GEMVs in front of each FFN block (norm → q/k/v → o, the
// attention itself stubbed: o reads q's X8), in the chain (8 launches a layer) and in the kernel
// (q/k/v groups spread over the blocks, o's 128 groups on blocks 0..127, four waits a layer):
// what a whole decode layer's waits cost before attention is built into the kernel. --depth D makes
// the attention real (a cache of D random rows; the chain runs the engine's q/k norm + RoPE + cache
// write and decode attention; kinds 13-14 run dataflow_attention.cuh's tasks of at least
// --task-rows rows, default 32, row by row or with --batched a page of rows at once, combined per
// query head by warp 0 or with --combine-block by every worker warp of its block; --task-offset B puts
// task 0 on block B; --kv-ranges R instead runs dataflow_head_tasks.cuh's tasks per KV head and range;
// --attn-skip drops pieces for timing, Args::attnSkip); with --layers 1 the k/v and the attention
// output are compared too. --hybrid (with --depth) also times the chain's attention kernels between
// per-layer launches of the kernel on o, the FFN and the next layer's q/k/v.
// Output: µs per layer against the bound (a layer's 85 MB at 4.5 TB/s), the final h against the
// chain's, and variants that leave out the waits, the weight loads or both (wrong results: they
// time the streaming, the waits and the workers' arithmetic apart), for 8 and 16 worker warps,
// with act's X8 held in registers or copied into shared memory for the down phase, with the
// groups counted in by a fence on every lane or by one release atomic, and with a loader of
// 16-byte cp.async pieces (what consumer GPUs without bulk copies would run) beside the bulk one.
// --opts: bit 0 polls counters with relaxed loads and one acquire, bit 1 lets mbarrier waits
// suspend; --variant V times only variant V (for ncu). Kinds 0-3 are dataflow_workers.cuh (dp4a);
// kinds 4-14 dataflow_mma*.cuh (the dots on the tensor cores, weights repacked into tiles of 16 rows;
// of these only kinds 13-14 take --attention and --depth; see the kinds table below); --trace prints
// the timeline of kinds 7-9, 12 and 14 of a layer (dataflow_trace.cuh: hand-over latencies, phase
// times, ring stalls).
// (Kind 4 was a thread per Q4_K block of four rows until b7d842e: slower than kind 0.)
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "../gemv_q4k.cuh"
#include "../x8_group.cuh"
#include "dataflow_args.cuh"
#include "dataflow_harness.cuh"
#include "dataflow_primitives.cuh"
#include "dataflow_mma_kernel.cuh"
#include "dataflow_trace.cuh"
#include "dataflow_workers.cuh"
#include "hearth_kernels/gemv.h"
#include "hearth_kernels/ops.h"

using namespace hearth::kernels;
using namespace hearth::kernels::detail;
using namespace hearth::kernels::dataflow;

int main(int argc, char** argv) {
    int count = 36, reps = 20, attention = 0, variant = -1, opts = 0, trace = 0, depth = -1, taskRows = 32,
        batched = 0, combineBlock = 0, attnSkip = 0, taskOffset = 0, kvRanges = 0, hybridMode = 0; // variant -1: all five; opts: bit 0 relaxed waits, bit 1
                                                           // suspending mbarrier waits
    std::vector<int> stageChoices = {4, 0}, kindChoices = {0, 1, 2, 3}; // stages 0: as many as fit
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--layers" && i + 1 < argc) count = std::max(1, std::atoi(argv[++i]));
        else if (a == "--reps" && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
        else if (a == "--stages" && i + 1 < argc) stageChoices = {std::clamp(std::atoi(argv[++i]), 2, kMaxStages)};
        else if (a == "--kind" && i + 1 < argc) kindChoices = {std::clamp(std::atoi(argv[++i]), 0, 14)};
        else if (a == "--opts" && i + 1 < argc) opts = std::clamp(std::atoi(argv[++i]), 0, 3);
        else if (a == "--attention") attention = 1;
        else if (a == "--depth" && i + 1 < argc) depth = std::clamp(std::atoi(argv[++i]), 0, 65535), attention = 1;
        else if (a == "--task-rows" && i + 1 < argc) taskRows = std::clamp(std::atoi(argv[++i]), 1, 65536);
        else if (a == "--batched") batched = 1;
        else if (a == "--combine-block") combineBlock = 1;
        else if (a == "--hybrid") hybridMode = 1;
        else if (a == "--kv-ranges" && i + 1 < argc) kvRanges = std::clamp(std::atoi(argv[++i]), 1, 16);
        else if (a == "--task-offset" && i + 1 < argc) taskOffset = std::clamp(std::atoi(argv[++i]), 0, 131);
        else if (a == "--attn-skip" && i + 1 < argc) attnSkip = std::clamp(std::atoi(argv[++i]), 0, 1023);
        else if (a == "--trace") trace = 1;
        else if (a == "--variant" && i + 1 < argc) variant = std::clamp(std::atoi(argv[++i]), 0, 4);
        else {
            std::fprintf(stderr, "usage: %s [--layers L] [--reps N] [--stages 2..%d] [--kind 0..14] [--attention] [--depth D] [--task-rows R] [--batched] [--combine-block] [--attn-skip 0..1023] [--task-offset B] [--kv-ranges 1..16] [--hybrid] [--variant 0..4] [--opts 0..3] [--trace]\n",
                         argv[0], kMaxStages);
            return 2;
        }
    }
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::fprintf(stderr, "no CUDA device\n");
        return 77;
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    if (prop.major < 9) {
        std::fprintf(stderr, "the dataflow kernel needs sm_90 (bulk copies and mbarrier transactions)\n");
        return 77;
    }
    if (prop.multiProcessorCount < kDownGroups) {
        std::fprintf(stderr, "the schedule needs at least %d SMs\n", kDownGroups);
        return 77;
    }
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    const size_t upBytes = size_t(kUpRowBytes) * F, downBytes = size_t(kDownRowBytes) * H;
    std::vector<Layer> layers(count), tiled(count);
    std::vector<void*> allocations;
    auto alloc = [&](size_t bytes) {
        void* p = nullptr;
        CK(cudaMalloc(&p, bytes));
        allocations.push_back(p);
        return p;
    };
    for (int l = 0; l < count; ++l) {
        auto* g = static_cast<uint8_t*>(alloc(upBytes));
        auto* u = static_cast<uint8_t*>(alloc(upBytes));
        auto* d = static_cast<uint8_t*>(alloc(downBytes));
        auto* n = static_cast<float*>(alloc(H * 4));
        fillQ4K<<<1024, 256, 0, s>>>(g, upBytes / 144, 3 * l + 1);
        fillQ4K<<<1024, 256, 0, s>>>(u, upBytes / 144, 3 * l + 2);
        fillQ4K<<<1024, 256, 0, s>>>(d, downBytes / 144, 3 * l + 3);
        fillFloats<<<H / 256, 256, 0, s>>>(n, H, 0.0f, 1000 + l); // norm weights in (-1, 1)
        layers[l] = {g, u, d, n, nullptr, nullptr, nullptr};
        { // kinds 4-14 read the same weights repacked into tiles (dataflow_mma.cuh)
            auto* tg = static_cast<uint8_t*>(alloc(upBytes));
            auto* tu = static_cast<uint8_t*>(alloc(upBytes));
            auto* td = static_cast<uint8_t*>(alloc(downBytes));
            repackQ4KTiles<<<1024, 256, 0, s>>>(g, tg, F, H);
            repackQ4KTiles<<<1024, 256, 0, s>>>(u, tu, F, H);
            repackQ4KTiles<<<1024, 256, 0, s>>>(d, td, H, F);
            tiled[l] = {tg, tu, td, n, nullptr, nullptr, nullptr};
        }
        if (attention) {
            auto* qkv = static_cast<uint8_t*>(alloc(size_t(kUpRowBytes) * QKV));
            auto* o = static_cast<uint8_t*>(alloc(size_t(kUpRowBytes) * H));
            auto* an = static_cast<float*>(alloc(H * 4));
            fillQ4K<<<1024, 256, 0, s>>>(qkv, size_t(kUpRowBytes) * QKV / 144, 3 * l + 100001);
            fillQ4K<<<1024, 256, 0, s>>>(o, size_t(kUpRowBytes) * H / 144, 3 * l + 100002);
            fillFloats<<<H / 256, 256, 0, s>>>(an, H, 0.0f, 2000 + l);
            layers[l].qkv = qkv, layers[l].o = o, layers[l].attnNorm = an;
            if (depth >= 0) { // q/k norms and a cache of depth random rows (+ the new one)
                auto* qn = static_cast<float*>(alloc(kHeadDim * 4));
                auto* kn = static_cast<float*>(alloc(kHeadDim * 4));
                fillFloats<<<1, kHeadDim, 0, s>>>(qn, kHeadDim, 1.0f, 3000 + l); // around 1, as trained norms are
                fillFloats<<<1, kHeadDim, 0, s>>>(kn, kHeadDim, 1.0f, 4000 + l);
                const size_t cacheBytes = size_t(depth + 1) * kKvRowBytes;
                auto* kc = static_cast<__half*>(alloc(cacheBytes));
                auto* vc = static_cast<__half*>(alloc(cacheBytes));
                fillHalves<<<1024, 256, 0, s>>>(kc, cacheBytes / 2, 5000 + l);
                fillHalves<<<1024, 256, 0, s>>>(vc, cacheBytes / 2, 6000 + l);
                layers[l].qNorm = qn, layers[l].kNorm = kn, layers[l].kCache = kc, layers[l].vCache = vc;
            }
            auto* tq = static_cast<uint8_t*>(alloc(size_t(kUpRowBytes) * QKV));
            auto* to = static_cast<uint8_t*>(alloc(size_t(kUpRowBytes) * H));
            repackQ4KTiles<<<1024, 256, 0, s>>>(qkv, tq, QKV, H);
            repackQ4KTiles<<<1024, 256, 0, s>>>(o, to, H, H);
            tiled[l].qkv = tq, tiled[l].o = to, tiled[l].attnNorm = an;
            tiled[l].qNorm = layers[l].qNorm, tiled[l].kNorm = layers[l].kNorm;
            tiled[l].kCache = layers[l].kCache, tiled[l].vCache = layers[l].vCache;
        }
    }
    auto* dLayers = static_cast<Layer*>(alloc(sizeof(Layer) * count));
    CK(cudaMemcpy(dLayers, layers.data(), sizeof(Layer) * count, cudaMemcpyHostToDevice));
    auto* dTiled = static_cast<Layer*>(alloc(sizeof(Layer) * count));
    CK(cudaMemcpy(dTiled, tiled.data(), sizeof(Layer) * count, cudaMemcpyHostToDevice));
    auto* h0 = static_cast<float*>(alloc(H * 4));
    auto* h = static_cast<float*>(alloc(H * 4));
    auto* delta = static_cast<float*>(alloc(H * 4));
    auto* act = static_cast<float*>(alloc(F * 4));
    void* xa = alloc(gemvX8Bytes(F));
    void* xb = alloc(gemvX8Bytes(F));
    int8_t* xn8[2] = {static_cast<int8_t*>(alloc(gemvX8Bytes(H))), static_cast<int8_t*>(alloc(gemvX8Bytes(H)))};
    float* groupSq[2] = {static_cast<float*>(alloc(4 * kDownGroups)), static_cast<float*>(alloc(4 * kDownGroups))};
    int8_t* xa8[2] = {static_cast<int8_t*>(alloc(gemvX8Bytes(H))), static_cast<int8_t*>(alloc(gemvX8Bytes(H)))};
    float* groupSqA[2] = {static_cast<float*>(alloc(4 * kDownGroups)), static_cast<float*>(alloc(4 * kDownGroups))};
    auto* act8 = static_cast<int8_t*>(alloc(gemvX8Bytes(F)));
    auto* q8 = static_cast<int8_t*>(alloc(gemvX8Bytes(H)));
    auto* kv = static_cast<float*>(alloc(4 * (QKV - H)));
    auto* qkvOut = static_cast<float*>(alloc(4 * QKV)); // the chain's
    void* xq = alloc(gemvX8Bytes(H));
    const size_t counterBytes = sizeof(unsigned) * (7 * count + 1 + kKvHeads * count); // + kvArrivals
    auto* counters = static_cast<unsigned*>(alloc(counterBytes));
    // --depth: RoPE's frequencies (θ = 1e6, Qwen3's), the tasks' buffers, the chain's attention.
    std::vector<float> freqs(kHeadDim / 2);
    for (int i = 0; i < kHeadDim / 2; ++i) freqs[size_t(i)] = float(std::pow(1e6, -2.0 * i / kHeadDim));
    auto* invFreq = static_cast<float*>(alloc(freqs.size() * 4));
    CK(cudaMemcpy(invFreq, freqs.data(), freqs.size() * 4, cudaMemcpyHostToDevice));
    // --kv-ranges R: 8R tasks, a KV head's rows in R ranges of a multiple of 16 rows (headTaskEnd).
    const AttentionSchedule sched =
        kvRanges > 0 ? AttentionSchedule{kKvHeads * kvRanges,
                                         std::max(1, (std::max(depth, 1) + kvRanges - 1) / kvRanges + 15) / 16 * 16}
                     : attentionSchedule(std::max(depth, 0), prop.multiProcessorCount, taskRows);
    auto* qkvRaw = static_cast<float*>(alloc(4 * QKV));
    auto* partial = static_cast<float*>(alloc(size_t(sched.tasks) * kHeads * kPartialFloats * 4));
    auto* oX = static_cast<int8_t*>(alloc(MmaX::bytes(H)));
    auto* attnOut = static_cast<float*>(alloc(4 * H)); // the chain's
    const int splitKeys = std::max(64, (depth + 1 + 127) / 128 + 63) / 64 * 64; // as the session plans them
    const int splits = (depth + 1 + splitKeys - 1) / splitKeys;
    void* chainPartial = alloc(attentionPartialBytes(1, kHeads, kHeadDim, std::max(splits, 1)));
    fillFloats<<<H / 256, 256, 0, s>>>(h0, H, 0.0f, 12345);
    CK(cudaStreamSynchronize(s));
    const double bytes = double(upBytes * 2 + downBytes + (attention ? size_t(kUpRowBytes) * (QKV + H) : 0) +
                                (depth > 0 ? 2.0 * depth * kKvRowBytes : 0.0)) *
                         count;
    const double boundMs = bytes / 4.5e12 * 1e3;
    std::printf("device: %s, %d SMs; %d %s of Qwen3-8B (Q4_K), %.2f GB, bound %.3f ms at 4.5 TB/s\n", prop.name,
                prop.multiProcessorCount, count,
                depth >= 0  ? "layers (q/k/v, attention over the cache, o; the FFN)"
                : attention ? "layers (q/k/v, o with attention stubbed: o reads q; the FFN)"
                            : "FFN blocks",
                bytes / 1e9, boundMs);
    if (depth >= 0)
        std::printf("attention at depth %d: %d tasks of %d rows%s\n", depth, sched.tasks, sched.span,
                    kvRanges > 0 ? " of one KV head (--kv-ranges)" : "");

    // The chain, as the session launches it. Its attention (--depth): q/k norm + RoPE + the new row, then
    // the decode attention writing o's X8 input.
    auto chainAttention = [&](int l) {
        const QkvShape shape{kHeads, kKvHeads, kHeadDim, kHeadDim, false, invFreq, 1.0f, kEps};
        CK(launchQkvToCache(qkvOut, qkvOut + H, qkvOut + H + kKvHeads * kHeadDim, nullptr, nullptr, nullptr,
                            layers[l].qNorm, layers[l].kNorm, shape, 1, nullptr, depth, KvType::F16,
                            layers[l].kCache, layers[l].vCache, s, true));
        AttentionCall call{qkvOut, layers[l].kCache, layers[l].vCache, attnOut, kHeads, kKvHeads, kHeadDim, 1,
                           nullptr, depth, splits, splitKeys, KvType::F16, chainPartial, true};
        call.outX8 = xq;
        CK(launchAttention(call, s));
    };
    const GemvLaunch pdl{true, 0, 0};
    // The chain, as the session launches it, in one graph.
    const cudaGraphExec_t chain = captureGraph(s, [&] {
        for (int l = 0; l < count; ++l) {
            if (attention) {
                CK(launchRmsNorm(h, delta, layers[l].attnNorm, H, 1, kEps, NormOut{nullptr, nullptr, xa}, s, true));
                CK(launchGemv(GemvType::Q4_K, layers[l].qkv, xa, qkvOut, QKV, H, s, pdl));
                if (depth >= 0) {
                    chainAttention(l);
                } else {
                    CK(launchQuantizeX8(qkvOut, H, xq, s, pdl));
                }
                CK(launchGemv(GemvType::Q4_K, layers[l].o, xq, delta, H, H, s, pdl));
            }
            CK(launchRmsNorm(h, delta, layers[l].norm, H, 1, kEps, NormOut{nullptr, nullptr, xa}, s, true));
            CK(launchGemvGateUp(GemvType::Q4_K, layers[l].gate, layers[l].up, xa, act, F, H, s, GemvLaunch{true, 0, 0}));
            CK(launchQuantizeX8(act, F, xb, s, GemvLaunch{true, 0, 0}));
            CK(launchGemv(GemvType::Q4_K, layers[l].down, xb, delta, H, F, s, GemvLaunch{true, 0, 0}));
        }
    });
    auto reset = [&] {
        CK(cudaMemcpyAsync(h, h0, H * 4, cudaMemcpyDeviceToDevice, s));
        CK(cudaMemsetAsync(delta, 0, H * 4, s));
    };
    reset();
    CK(cudaGraphLaunch(chain, s));
    CK(cudaStreamSynchronize(s));
    std::vector<float> want(H), last(H);
    CK(cudaMemcpy(want.data(), h, H * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(last.data(), delta, H * 4, cudaMemcpyDeviceToHost));
    double wantSq = 0;
    for (int i = 0; i < H; ++i) want[i] += last[i], wantSq += double(want[i]) * want[i];
    std::printf("chain's final h: rms %.3g%s\n", std::sqrt(wantSq / H), std::isfinite(wantSq) ? "" : " NON-FINITE");

    // A configuration: a Workers<W, X8S, BULK> kernel (kind 0: <8, registers>, 1: <8, shared>, 2:
    // <16, shared>, 3: <8, shared, cp.async loader>) or dataflow_mma.cuh's (4: pages of 16 tiles, 5: of 8, 6: of 16 with 16 workers; 7, 8:
    // pages of 8 and 16 tiles with an epilogue warp; 9: 16 workers and an epilogue warp;
    // 10: kind 7 without the trace points compiled in; 11: kind 10 with x written in fragment order by its
    // producers and taken in one bulk copy; 12: kind 11 with the trace points; 13, 14: kinds 11, 12 with
    // the attention block's phases (--attention, --depth)), with S
    // stages (as many as fit when S is 0).
    struct Config {
        int kind, stages;
    };
    struct Kind {
        void (*kernel)(Args);
        int warps, threads, stageBytes, x8Bytes;
        const char* x8;
        bool tiled = false;    // weights in dataflow_mma.cuh's tiles
        bool attention = true; // --attention supported (not by the tiled kinds before 13)
    };
    using K0 = Workers<8, false>;
    using K1 = Workers<8, true>;
    using K2 = Workers<16, true>;
    using K3 = Workers<8, true, false>;
    using M16 = MmaConfig<16>;
    using M8 = MmaConfig<8>;
    using M16x16 = MmaConfig<16, 16>;
    using M8E = MmaConfig<8, 8, true>;
    using M16E = MmaConfig<16, 8, true>;
    using M16x16E = MmaConfig<16, 16, true>;
    using M8EQ = MmaConfig<8, 8, true, false>;
    using M8ED = MmaConfig<8, 8, true, false, true>;
    using M8EDT = MmaConfig<8, 8, true, true, true>;
    using M8EDA = MmaConfig<8, 8, true, false, true, true>;
    using M8EDAT = MmaConfig<8, 8, true, true, true, true>;
    const Kind kinds[] = {
        {dataflowFfn<K0>, K0::kWarps, K0::kThreads, K0::kStageBytes, K0::kX8Bytes, "act's X8 in registers"},
        {dataflowFfn<K1>, K1::kWarps, K1::kThreads, K1::kStageBytes, K1::kX8Bytes, "act's X8 in shared memory"},
        {dataflowFfn<K2>, K2::kWarps, K2::kThreads, K2::kStageBytes, K2::kX8Bytes, "act's X8 in shared memory"},
        {dataflowFfn<K3>, K3::kWarps, K3::kThreads, K3::kStageBytes, K3::kX8Bytes,
         "act's X8 in shared memory, cp.async loader"},
        {dataflowMma<M16>, M16::kWarps, M16::kThreads, M16::kStageBytes, M16::kX8Bytes,
         "mma dots, pages of 16 tiles, act's X8 in shared memory", true, false},
        {dataflowMma<M8>, M8::kWarps, M8::kThreads, M8::kStageBytes, M8::kX8Bytes,
         "mma dots, pages of 8 tiles, act's X8 in shared memory", true, false},
        {dataflowMma<M16x16>, M16x16::kWarps, M16x16::kThreads, M16x16::kStageBytes, M16x16::kX8Bytes,
         "mma dots, pages of 16 tiles, act's X8 in shared memory", true, false},
        {dataflowMma<M8E>, M8E::kWarps, M8E::kThreads, M8E::kStageBytes, M8E::kX8Bytes,
         "mma dots, pages of 8 tiles, an epilogue warp", true, false},
        {dataflowMma<M16E>, M16E::kWarps, M16E::kThreads, M16E::kStageBytes, M16E::kX8Bytes,
         "mma dots, pages of 16 tiles, an epilogue warp", true, false},
        {dataflowMma<M16x16E>, M16x16E::kWarps, M16x16E::kThreads, M16x16E::kStageBytes, M16x16E::kX8Bytes,
         "mma dots, pages of 16 tiles, an epilogue warp", true, false},
        {dataflowMma<M8EQ>, M8EQ::kWarps, M8EQ::kThreads, M8EQ::kStageBytes, M8EQ::kX8Bytes,
         "mma dots, pages of 8 tiles, an epilogue warp, no trace points", true, false},
        {dataflowMma<M8ED>, M8ED::kWarps, M8ED::kThreads, M8ED::kStageBytes, M8ED::kX8Bytes,
         "mma dots, pages of 8 tiles, an epilogue warp, x written in fragment order, no trace points", true, false},
        {dataflowMma<M8EDT>, M8EDT::kWarps, M8EDT::kThreads, M8EDT::kStageBytes, M8EDT::kX8Bytes,
         "mma dots, pages of 8 tiles, an epilogue warp, x written in fragment order", true, false},
        {dataflowMma<M8EDA>, M8EDA::kWarps, M8EDA::kThreads, M8EDA::kStageBytes, M8EDA::kX8Bytes,
         "mma dots, kind 11 with the attention, no trace points", true},
        {dataflowMma<M8EDAT>, M8EDAT::kWarps, M8EDAT::kThreads, M8EDAT::kStageBytes, M8EDAT::kX8Bytes,
         "mma dots, kind 11 with the attention", true},
    };
    constexpr int kKinds = int(sizeof(kinds) / sizeof(kinds[0]));
    auto stagesOf = [](const Kind& k, int want) {
        const int fit = std::min(kMaxStages, int((kMaxSharedBytes - size_t(k.x8Bytes)) / size_t(k.stageBytes)));
        return want > 0 ? std::min(want, fit) : fit;
    };
    // Runs config c once on stream s, counters zeroed first. waits = 0: the streaming alone;
    // loads = 0: the workers alone; release: groups counted in with a release atomic.
    // --hybrid: the kernel once a layer on phases [first, end) (Args::phaseBegin), launched with PDL
    // behind the chain's attention kernels instead of cooperatively; its o reads their X8 output.
    auto dataflow = [&](const Config& c, int waits, int loads, int release, unsigned long long* stamps = nullptr,
                        int first = -1, int end = 0) {
        const Kind& k = kinds[c.kind];
        Args a{k.tiled ? dTiled : dLayers,
               count,
               c.stages,
               attention,
               h,
               {xn8[0], xn8[1]},
               {groupSq[0], groupSq[1]},
               {xa8[0], xa8[1]},
               {groupSqA[0], groupSqA[1]},
               act8,
               q8,
               kv,
               counters,
               counters + count,
               counters + 2 * count + 1,
               counters + 3 * count + 1,
               waits,
               loads,
               release,
               opts & 1,
               (opts & 2) ? 1000000u : 0u,
               stamps,
               depth,
               sched.tasks,
               sched.span,
               qkvRaw,
               partial,
               oX,
               invFreq,
               counters + 4 * count + 1,
               counters + 5 * count + 1,
               counters + 6 * count + 1,
               batched,
               combineBlock,
               attnSkip,
               taskOffset,
               kvRanges,
               counters + 7 * count + 1};
        if (first >= 0) a.phaseBegin = first, a.phaseEnd = end, a.hybrid = 1, a.oEngineX8 = static_cast<const int8_t*>(xq),
                        a.qkvRaw = qkvOut;
        const size_t smem = size_t(c.stages) * k.stageBytes + size_t(k.x8Bytes);
        CK(cudaFuncSetAttribute(k.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(unsigned(prop.multiProcessorCount));
        cfg.blockDim = dim3(unsigned(k.threads));
        cfg.dynamicSmemBytes = smem;
        cfg.stream = s;
        cudaLaunchAttribute attr[1];
        attr[0].id = cudaLaunchAttributeCooperative; // every block resident: they wait on one another
        attr[0].val.cooperative = 1;
        if (first >= 0) { // one block an SM all the same; the blocks launch once the attention's have all started
            attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
            attr[0].val.programmaticStreamSerializationAllowed = 1;
        }
        cfg.attrs = attr;
        cfg.numAttrs = 1;
        if (first < 0) CK(cudaMemsetAsync(counters, 0, counterBytes, s)); // (--hybrid: once a token, hybridStep)
        CK(cudaLaunchKernelEx(&cfg, k.kernel, a));
    };
    std::vector<Config> configs;
    for (int kind = 0; kind < kKinds; ++kind) {
        if (std::find(kindChoices.begin(), kindChoices.end(), kind) == kindChoices.end()) continue;
        if (attention && !kinds[kind].attention) {
            std::printf("dataflow kernel %d: FFN blocks only (no --attention)\n", kind);
            continue;
        }
        if (depth >= 0 && !(kinds[kind].tiled && kinds[kind].attention)) {
            std::printf("dataflow kernel %d: attention stubbed only (no --depth)\n", kind);
            continue;
        }
        cudaFuncAttributes fa;
        CK(cudaFuncGetAttributes(&fa, kinds[kind].kernel));
        std::printf("dataflow kernel %d: %d worker warps, %s, %d registers, %zu B local, %d B a stage\n", kind,
                    kinds[kind].warps, kinds[kind].x8, fa.numRegs, fa.localSizeBytes, kinds[kind].stageBytes);
        for (int st : stageChoices) {
            const Config c{kind, stagesOf(kinds[kind], st)};
            if (std::none_of(configs.begin(), configs.end(),
                             [&](const Config& o) { return o.kind == c.kind && o.stages == c.stages; }))
                configs.push_back(c);
        }
    }
    if (trace) // one run of the whole kernel with the stamps (kinds 7-9, 12, 14), summarised
        for (const Config& c : configs) {
            const size_t n = size_t(count) * prop.multiProcessorCount * kTracePoints;
            unsigned long long* d = static_cast<unsigned long long*>(alloc(n * 8));
            CK(cudaMemsetAsync(d, 0, n * 8, s));
            dataflow(c, 1, 1, 0, d);
            std::vector<unsigned long long> stamps(n);
            CK(cudaMemcpyAsync(stamps.data(), d, n * 8, cudaMemcpyDeviceToHost, s));
            CK(cudaStreamSynchronize(s));
            printTimeline(stamps, c.kind, c.stages, count, prop.multiProcessorCount);
            if (depth >= 0) printAttentionTimeline(stamps, count, prop.multiProcessorCount, sched.tasks);
        }
    for (const Config& c : configs)
        for (int release : {0, 1}) {
            reset();
            dataflow(c, 1, 1, release);
            CK(cudaStreamSynchronize(s));
            std::vector<float> got(H);
            CK(cudaMemcpy(got.data(), h, H * 4, cudaMemcpyDeviceToHost));
            double num = 0;
            for (int i = 0; i < H; ++i) num += double(got[i] - want[i]) * (got[i] - want[i]);
            std::printf("dataflow kernel %d, %d stages%s, vs chain: |h - h_chain| / |h_chain| = %.2e%s\n", c.kind,
                        c.stages, release ? ", release signals" : "", std::sqrt(num / std::max(wantSq, 1e-30)),
                        std::isfinite(num) ? "" : "  NON-FINITE");
        }
    // --hybrid (with --depth): per layer the chain's attention kernels, then the kernel on o, the FFN and
    // the next layer's q/k/v; layer 0's q/k/v from the chain's norm and GEMV. One graph a token.
    auto hybridStep = [&](const Config& c) {
        CK(cudaMemsetAsync(counters, 0, counterBytes, s));
        CK(launchRmsNorm(h, delta, layers[0].attnNorm, H, 1, kEps, NormOut{nullptr, nullptr, xa}, s, true));
        CK(launchGemv(GemvType::Q4_K, layers[0].qkv, xa, qkvOut, QKV, H, s, pdl));
        for (int l = 0; l < count; ++l) {
            chainAttention(l);
            dataflow(c, 1, 1, 0, nullptr, 4 * l + 1, 4 * l + 5);
        }
    };
    std::vector<cudaGraphExec_t> hybrids;
    if (hybridMode && depth >= 0)
        for (const Config& c : configs) {
            if (!kinds[c.kind].tiled || !kinds[c.kind].attention) continue;
            const cudaGraphExec_t e = captureGraph(s, [&] { hybridStep(c); });
            reset();
            CK(cudaGraphLaunch(e, s));
            CK(cudaStreamSynchronize(s));
            std::vector<float> got(H);
            CK(cudaMemcpy(got.data(), h, H * 4, cudaMemcpyDeviceToHost));
            double num = 0;
            for (int i = 0; i < H; ++i) num += double(got[i] - want[i]) * (got[i] - want[i]);
            std::printf("hybrid %d (chain attention + kernel %d a layer), vs chain: |h - h_chain| / |h_chain| = %.2e%s\n",
                        c.kind, c.kind, std::sqrt(num / std::max(wantSq, 1e-30)), std::isfinite(num) ? "" : "  NON-FINITE");
            hybrids.push_back(e);
        }
    if (attention && count == 1 && !configs.empty() && kinds[configs.back().kind].tiled)
        compareLayerZero(qkvOut, attnOut, static_cast<const int8_t*>(xq), depth >= 0 ? qkvRaw + H : kv,
                         depth >= 0 ? oX : q8, depth >= 0);
    for (int round = 0; round < 2; ++round) {
        const double c = timeMs(s, reps, [&] { CK(cudaGraphLaunch(chain, s)); });
        std::printf("| chain (%d launches a layer, PDL, graph) | %.1f µs a layer | %.1f %% of the bound |\n",
                    attention ? 8 : 4, c * 1e3 / count, 100 * boundMs / c);
        for (size_t i = 0; i < hybrids.size(); ++i) {
            const double p = timeMs(s, reps, [&] { CK(cudaGraphLaunch(hybrids[i], s)); });
            std::printf("| hybrid: chain attention + the kernel a layer (PDL, graph) | %.1f µs a layer | %.1f %% |\n",
                        p * 1e3 / count, 100 * boundMs / p);
        }
        for (const Config& cf : configs)
            for (int v = 0; v < 5; ++v) {
                if (variant >= 0 && v != variant) continue;
                const int waits = v == 0 || v == 2 || v == 4, loads = v < 2 || v == 4, release = v == 4;
                const char* what[] = {"", ", no waits (wrong results)", ", no weight loads (wrong results)",
                                      ", neither waits nor loads (wrong results)", ", release signals"};
                const double p = timeMs(s, reps, [&] { dataflow(cf, waits, loads, release); });
                std::printf("| dataflow kernel %d (%d warps, %s), %d stages%s | %.1f µs a layer | %.1f %% |\n",
                            cf.kind, kinds[cf.kind].warps, kinds[cf.kind].x8, cf.stages, what[v], p * 1e3 / count,
                            100 * boundMs / p);
            }
    }
    for (cudaGraphExec_t e : hybrids) CK(cudaGraphExecDestroy(e));
    for (void* p : allocations) CK(cudaFree(p));
    CK(cudaGraphExecDestroy(chain));
    CK(cudaStreamDestroy(s));
    return 0;
}
