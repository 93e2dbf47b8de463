// hearth-bench-kernels: batch-1 GEMV bandwidth on the current GPU.
//
//   hearth-bench-kernels [--sweep] [--no-shapes] [--no-chain] [--no-launch-cost] [--types Q4_K,Q6_K,...] [--shape K N[,N...]]
//                        [--rows R[,R...]]
//
// Per shape: GB/s = (bytes of W + x + y) / median time per launch. Launches are captured in a
// CUDA graph that rotates through enough copies of W (>= 256 MB per rotation, >= 2 copies) that
// the 60 MB L2 holds none of the next launch's weights; the median is over graph replays.
// --sweep also times every rows-per-block choice and prints the best beside the default; --rows adds
// one row per listed rows-per-block choice (PDL), for fits of time against bytes at a fixed choice.
//
// Launch cost: an empty kernel chained with and without PDL, and a grid-wide barrier, i.e. the
// fixed cost a GEMV pays per launch before it streams, against a persistent kernel's barrier.
//
// Chain: the GEMVs of one Qwen3-32B Q4_K_M decode step (64 layers of q, k, v, o, gate+up, down
// with llama.cpp's use_more_bits type mix, then the Q6_K LM head; attention and norms left
// out, the x quantizations kept), graph-captured and timed end to end in several variants.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "hearth_kernels/gemv.h"
#include "hearth_kernels/gemv_experiments.h"
#include "../pdl.cuh"

using namespace hearth::kernels;

#define CK(expr)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (expr);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr, cudaGetErrorString(e_)); \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

namespace {

constexpr double kBandwidth = 4.5e12; // measured plain-read bandwidth of the H200 (DESIGN.md)

enum class T { Q4K, Q6K, Q8_0, BF16, Q5K, Q4_0 };
struct TypeInfo {
    T t;
    GemvType type;
    const char* name;
    int blockElems;
    bool x8;
};
const TypeInfo kTypes[] = {
    {T::Q4K, GemvType::Q4_K, "Q4_K", 256, true},  {T::Q6K, GemvType::Q6_K, "Q6_K", 256, true},
    {T::Q8_0, GemvType::Q8_0, "Q8_0", 32, true},  {T::BF16, GemvType::BF16, "BF16", 8, false},
    {T::Q5K, GemvType::Q5_K, "Q5_K", 256, true},  {T::Q4_0, GemvType::Q4_0, "Q4_0", 32, true},
};
const TypeInfo& info(T t) {
    for (const auto& i : kTypes)
        if (i.t == t) return i;
    std::abort();
}
size_t matBytes(T t, int n, int k) { return size_t(n) * gemvRowBytes(info(t).type, k); }
size_t xBytes(T t, int k) { return info(t).x8 ? gemvX8Bytes(k) : size_t(k) * 4; }

// The engine's entries for variant 0, the experiment entries otherwise.
cudaError_t gemv(T t, const void* w, const void* x, float* y, int n, int k, cudaStream_t s, const GemvExperiment& o) {
    if (o.variant) return launchGemvExperiment(info(t).type, w, x, y, n, k, s, o);
    return launchGemv(info(t).type, w, x, y, n, k, s, o);
}
cudaError_t gateUp(T t, const void* wg, const void* wu, const void* x, float* y, int n, int k, cudaStream_t s,
                   const GemvExperiment& o) {
    if (o.variant) return launchGemvGateUpExperiment(info(t).type, wg, wu, x, y, n, k, s, o);
    return launchGemvGateUp(info(t).type, wg, wu, x, y, n, k, s, o);
}

__device__ __forceinline__ uint64_t mix(uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
// A finite fp16 around 2^-9 with random mantissa.
__device__ __forceinline__ uint16_t randHalf(uint64_t h) { return uint16_t(0x1800 | (h & 0x3FF)); }

// Random bytes, then valid scale fields: the device layout of each type (gemv.h).
__global__ void fillKernel(uint8_t* p, size_t bytes, uint64_t seed, int type, size_t) {
    const size_t stride = size_t(gridDim.x) * blockDim.x;
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i * 8 < bytes; i += stride) {
        const uint64_t h = mix(seed ^ (i * 0x100000001B3ull));
        if (type == int(T::BF16)) { // 4 bf16 in [-2^-6, 2^-6]
            uint64_t v = 0;
            for (int j = 0; j < 4; ++j) {
                const uint64_t r = h >> (16 * j);
                v |= uint64_t((r & 0x8000) | 0x3C00 | (r & 0x7F)) << (16 * j);
            }
            reinterpret_cast<uint64_t*>(p)[i] = v;
        } else {
            reinterpret_cast<uint64_t*>(p)[i] = h;
        }
    }
}
// Valid scale fields over the random bytes (a second kernel: the first may still write them).
__global__ void fixScalesKernel(uint8_t* p, uint64_t seed, int type, size_t blocks) {
    const size_t stride = size_t(gridDim.x) * blockDim.x;
    for (size_t b = size_t(blockIdx.x) * blockDim.x + threadIdx.x; b < blocks; b += stride) {
        const uint64_t h = mix(seed ^ 0xABCDEFull ^ (b * 0x9E37ull));
        uint16_t* d = nullptr;
        switch (T(type)) {
        case T::Q4K: d = reinterpret_cast<uint16_t*>(p + b * 144); d[1] = randHalf(h >> 20); break;
        case T::Q5K: d = reinterpret_cast<uint16_t*>(p + b * 176); d[1] = randHalf(h >> 20); break;
        case T::Q6K: d = reinterpret_cast<uint16_t*>(p + blocks * 208) + b; break;
        case T::Q8_0: d = reinterpret_cast<uint16_t*>(p + blocks * 32) + b; break;
        case T::Q4_0: d = reinterpret_cast<uint16_t*>(p + blocks * 16) + b; break;
        default: break;
        }
        if (d) d[0] = randHalf(h);
    }
}
void fillRandom(T t, void* w, int n, int k, uint64_t seed) {
    const size_t bytes = matBytes(t, n, k);
    const size_t blocks = t == T::BF16 ? 0 : size_t(n) * (k / info(t).blockElems);
    fillKernel<<<4096, 256>>>(static_cast<uint8_t*>(w), bytes, seed, int(t), blocks);
    CK(cudaGetLastError());
    if (blocks) fixScalesKernel<<<4096, 256>>>(static_cast<uint8_t*>(w), seed, int(t), blocks);
    CK(cudaGetLastError());
}
__global__ void fillX(float* x, int k, uint64_t seed) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < k) x[i] = float(int(mix(seed ^ uint64_t(i)) & 0xFFFF) - 32768) / 32768.0f;
}

// Median milliseconds of one replay of the graph `body` captures, over `reps` replays.
double timeGraph(const std::function<void(cudaStream_t)>& body, cudaStream_t s, int reps = 15) {
    cudaGraph_t g;
    cudaGraphExec_t ge;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    body(s);
    CK(cudaStreamEndCapture(s, &g));
    CK(cudaGraphInstantiate(&ge, g, 0));
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int i = 0; i < 3; ++i) CK(cudaGraphLaunch(ge, s));
    std::vector<float> ms;
    for (int i = 0; i < reps; ++i) {
        CK(cudaEventRecord(a, s));
        CK(cudaGraphLaunch(ge, s));
        CK(cudaEventRecord(b, s));
        CK(cudaEventSynchronize(b));
        float t;
        CK(cudaEventElapsedTime(&t, a, b));
        ms.push_back(t);
    }
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    CK(cudaGraphExecDestroy(ge));
    CK(cudaGraphDestroy(g));
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

struct Shape {
    int k, n;
};
const Shape kShapes[] = {{4096, 4096},  {4096, 1024},  {4096, 12288}, {12288, 4096}, {5120, 25600},
                         {25600, 5120}, {5120, 17408}, {17408, 5120}, {5120, 12288}, {6144, 5120},
                         {4096, 151936}, {5120, 151936}, {5120, 248320}};

void benchShapes(const std::vector<T>& types, bool sweep, int onlyK, const std::vector<int>& onlyN,
                 const std::vector<int>& forcedRows, cudaStream_t s) {
    std::printf("\n| type | k→n | bytes (W+x+y) | median µs | GB/s | %% of 4.5 TB/s | config |\n");
    std::printf("|---|---|---|---|---|---|---|\n");
    float* xf;
    void* xq;
    CK(cudaMalloc(&xf, 25600 * 4));
    CK(cudaMalloc(&xq, gemvX8Bytes(25600)));
    float* y;
    CK(cudaMalloc(&y, 248320 * 4));
    for (T t : types) {
        std::vector<Shape> list(std::begin(kShapes), std::end(kShapes));
        if (onlyK) {
            list.clear();
            for (int n : onlyN) list.push_back(Shape{onlyK, n});
        }
        for (const Shape& sh : list) {
            if (sh.k > 25600 || sh.n > 248320 || sh.k <= 0 || sh.n <= 0) {
                std::fprintf(stderr, "shape %d->%d outside the benchmark's buffers (k <= 25600, n <= 248320)\n", sh.k, sh.n);
                continue;
            }
            const size_t wb = matBytes(t, sh.n, sh.k);
            const int copies = int(std::max<size_t>(2, (256ull << 20) / wb + 1));
            std::vector<void*> w(copies);
            for (int c = 0; c < copies; ++c) {
                CK(cudaMalloc(&w[c], wb));
                fillRandom(t, w[c], sh.n, sh.k, 1000 * c + 17);
            }
            fillX<<<(sh.k + 255) / 256, 256>>>(xf, sh.k, 99);
            CK(launchQuantizeX8(xf, sh.k, xq, s));
            const void* x = info(t).x8 ? xq : static_cast<const void*>(xf);
            const int launches = copies * std::max(1, (48 + copies - 1) / copies);
            auto run = [&](const GemvExperiment& o) {
                return timeGraph(
                           [&](cudaStream_t st) {
                               for (int i = 0; i < launches; ++i) CK(gemv(t, w[i % copies], x, y, sh.n, sh.k, st, o));
                           },
                           s) /
                       launches;
            };
            const double total = double(wb + xBytes(t, sh.k) + size_t(sh.n) * 4);
            auto row = [&](double ms, const char* cfg) {
                const double gbs = total / (ms * 1e-3) / 1e9;
                std::printf("| %s | %d→%d | %.1f MB | %.2f | %.0f | %.1f %% | %s |\n", info(t).name, sh.k, sh.n,
                            total / 1e6, ms * 1e3, gbs, 100.0 * gbs * 1e9 / kBandwidth, cfg);
            };
            row(run(GemvExperiment{}), "auto");
            row(run(GemvExperiment{true, 0, 0}), "auto, PDL");
            for (int r : forcedRows) {
                const std::string cfg = "rows " + std::to_string(r) + ", PDL";
                row(run(GemvExperiment{true, r, 0}), cfg.c_str());
            }
            if (sweep) {
                // Every rows-per-block choice for each experimental variant (gemv_experiments.h).
                std::vector<int> variants = {0, 2, 4};
                if (t == T::Q4K) variants = {0, 1, 2, 4};
                double best = 1e30;
                int bestR = 0, bestV = 0;
                std::string byVariant;
                for (int v : variants) {
                    double bv = 1e30;
                    int bvR = 0;
                    for (int r : {1, 2, 4, 8}) {
                        const double ms = run(GemvExperiment{true, r, 0, v});
                        if (ms < bv) bv = ms, bvR = r;
                    }
                    if (bv < best) best = bv, bestR = bvR, bestV = v;
                    char b[48];
                    std::snprintf(b, sizeof b, " v%d:%.0f%%(r%d)", v, 100.0 * total / (bv * 1e-3) / kBandwidth, bvR);
                    byVariant += b;
                }
                char cfg[256];
                std::snprintf(cfg, sizeof cfg, "best, PDL: rows %d variant %d;%s", bestR, bestV, byVariant.c_str());
                row(best, cfg);
            }
            std::fflush(stdout);
            for (void* p : w) CK(cudaFree(p));
        }
    }
    // the activation quantization itself
    for (int k : {4096, 5120, 8192, 25600}) {
        const double ms = timeGraph(
                              [&](cudaStream_t st) {
                                  for (int i = 0; i < 100; ++i) CK(launchQuantizeX8(xf, k, xq, st));
                              },
                              s) /
                          100;
        std::printf("| quantize x → X8 | %d | %.2f MB | %.2f | | | back-to-back |\n", k, (k * 4 + gemvX8Bytes(k)) / 1e6,
                    ms * 1e3);
    }
    CK(cudaFree(xf));
    CK(cudaFree(xq));
    CK(cudaFree(y));
}

// ---- the fixed cost of a launch and of a grid-wide barrier ----------------------------------

// A kernel that does nothing but the PDL hand-over the GEMVs do (let the next start, wait for
// the previous): what a launch costs in a graph before any byte is streamed.
__global__ void handOverKernel(float* sink) {
    detail::pdlTrigger();
    detail::pdlWait();
    if (blockIdx.x == 0 && threadIdx.x == 0) sink[0] += 1.0f;
}

// `iters` grid-wide barriers (all blocks co-resident: cooperative launch): the alternative to a
// kernel boundary inside a persistent kernel.
__global__ void gridBarrierKernel(unsigned* counter, int iters) {
    for (int i = 1; i <= iters; ++i) {
        __syncthreads();
        if (threadIdx.x == 0) {
            __threadfence();
            atomicAdd(counter, 1u);
            while (*reinterpret_cast<volatile unsigned*>(counter) < unsigned(i) * gridDim.x) {
            }
            __threadfence();
        }
        __syncthreads();
    }
}

void benchLaunchCost(cudaStream_t s) {
    float* sink;
    CK(cudaMalloc(&sink, 4));
    std::printf("\n| fixed cost | grid | µs per launch / barrier |\n|---|---|---|\n");
    for (unsigned grid : {1u, 132u, 1056u, 6400u})
        for (bool pdl : {false, true}) {
            constexpr int kLaunches = 400;
            const double ms = timeGraph(
                [&](cudaStream_t st) {
                    for (int i = 0; i < kLaunches; ++i)
                        CK(detail::launchEx(handOverKernel, grid, 96u, st, pdl, sink));
                },
                s);
            std::printf("| empty kernel (96 threads/block)%s | %u | %.2f |\n", pdl ? ", PDL" : "", grid,
                        ms * 1e3 / kLaunches);
        }
    int dev = 0, sms = 0, perSM = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSM, gridBarrierKernel, 256, 0));
    unsigned* counter;
    CK(cudaMalloc(&counter, 4));
    for (int blocks : {sms, sms * std::min(perSM, 4)}) {
        constexpr int kIters = 2000;
        int iters = kIters;
        void* args[] = {&counter, &iters};
        cudaEvent_t a, b;
        CK(cudaEventCreate(&a));
        CK(cudaEventCreate(&b));
        CK(cudaMemsetAsync(counter, 0, 4, s));
        CK(cudaLaunchCooperativeKernel((void*)gridBarrierKernel, dim3(blocks), dim3(256), args, 0, s)); // warm-up
        CK(cudaMemsetAsync(counter, 0, 4, s));
        CK(cudaEventRecord(a, s));
        CK(cudaLaunchCooperativeKernel((void*)gridBarrierKernel, dim3(blocks), dim3(256), args, 0, s));
        CK(cudaEventRecord(b, s));
        CK(cudaEventSynchronize(b));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a, b));
        std::printf("| grid-wide barrier (atomic counter, 256 threads/block) | %d | %.2f |\n", blocks, ms * 1e3 / kIters);
        CK(cudaEventDestroy(a));
        CK(cudaEventDestroy(b));
    }
    CK(cudaFree(counter));
    CK(cudaFree(sink));
}

// ---- the Qwen3-32B Q4_K_M decode-step chain ------------------------------------------------

bool useMoreBits(int i, int n) { return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2; }

void benchChain(cudaStream_t s) {
    constexpr int L = 64, H = 5120, Q = 8192, KV = 1024, F = 25600, V = 151936;
    struct Layer {
        void* qkv; // [q; k; v if Q4_K] Q4_K rows
        bool vQ6;
        void* v6; // Q6_K v when use_more_bits
        void* o;
        void *gate, *up;
        void* down;
        bool downQ6;
    };
    std::vector<Layer> layers(L);
    size_t bytes = 0;
    uint64_t seed = 1;
    auto alloc = [&](T t, int n, int k) {
        void* p;
        CK(cudaMalloc(&p, matBytes(t, n, k)));
        fillRandom(t, p, n, k, seed++);
        bytes += matBytes(t, n, k);
        return p;
    };
    for (int i = 0; i < L; ++i) {
        Layer& l = layers[i];
        l.vQ6 = useMoreBits(i, L);
        l.downQ6 = useMoreBits(i, L);
        l.qkv = alloc(T::Q4K, Q + KV + (l.vQ6 ? 0 : KV), H);
        l.v6 = l.vQ6 ? alloc(T::Q6K, KV, H) : nullptr;
        l.o = alloc(T::Q4K, H, Q);
        l.gate = alloc(T::Q4K, F, H);
        l.up = alloc(T::Q4K, F, H);
        l.down = alloc(l.downQ6 ? T::Q6K : T::Q4K, H, F);
    }
    void* lm = alloc(T::Q6K, V, H);
    float *h, *qkvOut, *oOut, *act, *logits;
    void *xa, *xb;
    CK(cudaMalloc(&h, H * 4));
    CK(cudaMalloc(&qkvOut, (Q + 2 * KV) * 4));
    CK(cudaMalloc(&oOut, H * 4));
    CK(cudaMalloc(&act, F * 4));
    CK(cudaMalloc(&logits, size_t(V) * 4));
    CK(cudaMalloc(&xa, gemvX8Bytes(F)));
    CK(cudaMalloc(&xb, gemvX8Bytes(F)));
    fillX<<<(H + 255) / 256, 256>>>(h, H, 5);
    CK(cudaDeviceSynchronize());
    const size_t q4Row = matBytes(T::Q4K, 1, H);

    // fuse: q,k(,v) in one GEMV (rows concatenated at load); pdl: programmatic dependent launch.
    int launches = 0;
    auto step = [&](cudaStream_t st, bool fuse, bool pdl, bool quantKernels, int variant = 0) {
        launches = 0;
        const GemvExperiment o{pdl, 0, 0, variant};
        auto quant = [&](const float* x, int k, void* xq) {
            if (!quantKernels) return;
            CK(launchQuantizeX8(x, k, xq, st, o));
            ++launches;
        };
        auto mv = [&](T t, const void* w, const void* x, float* y, int n, int k) {
            CK(gemv(t, w, x, y, n, k, st, o));
            ++launches;
        };
        for (const Layer& l : layers) {
            quant(h, H, xa);
            if (fuse) {
                mv(T::Q4K, l.qkv, xa, qkvOut, Q + KV + (l.vQ6 ? 0 : KV), H);
            } else {
                mv(T::Q4K, l.qkv, xa, qkvOut, Q, H);
                mv(T::Q4K, static_cast<const uint8_t*>(l.qkv) + size_t(Q) * q4Row, xa, qkvOut + Q, KV, H);
                if (!l.vQ6) mv(T::Q4K, static_cast<const uint8_t*>(l.qkv) + size_t(Q + KV) * q4Row, xa, qkvOut + Q + KV, KV, H);
            }
            if (l.vQ6) mv(T::Q6K, l.v6, xa, qkvOut + Q + KV, KV, H);
            quant(qkvOut, Q, xb); // stands in for the attention output
            mv(T::Q4K, l.o, xb, oOut, H, Q);
            quant(oOut, H, xa); // stands in for residual + RMSNorm
            CK(gateUp(T::Q4K, l.gate, l.up, xa, act, F, H, st, o));
            ++launches;
            quant(act, F, xb);
            mv(l.downQ6 ? T::Q6K : T::Q4K, l.down, xb, h, H, F);
        }
        quant(h, H, xa);
        mv(T::Q6K, lm, xa, logits, V, H);
    };
    const double boundMs = double(bytes) / kBandwidth * 1e3;
    std::printf("\nchain: Qwen3-32B Q4_K_M, 64 layers + LM head, %.3f GB of weights, bound %.3f ms (%.0f tok/s)\n",
                bytes / 1e9, boundMs, 1e3 / boundMs);
    std::printf("| variant | launches | ms/token | tok/s | %% of bound | mean gap vs isolated kernels |\n|---|---|---|---|---|---|\n");

    // Isolated kernel time: every launch of the step timed alone in its own graph is too many
    // graphs; instead time each kind back to back over the 64 layers' distinct weights.
    auto isolated = [&](bool fuse) {
        double sum = 0;
        const GemvExperiment o{};
        auto kind = [&](const std::function<void(cudaStream_t, const Layer&)>& f) {
            sum += timeGraph([&](cudaStream_t st) {
                for (const Layer& l : layers) f(st, l);
            }, s);
        };
        kind([&](cudaStream_t st, const Layer&) { CK(launchQuantizeX8(h, H, xa, st, o)); });
        kind([&](cudaStream_t st, const Layer&) { CK(launchQuantizeX8(qkvOut, Q, xb, st, o)); });
        kind([&](cudaStream_t st, const Layer&) { CK(launchQuantizeX8(oOut, H, xa, st, o)); });
        kind([&](cudaStream_t st, const Layer&) { CK(launchQuantizeX8(act, F, xb, st, o)); });
        if (fuse) {
            kind([&](cudaStream_t st, const Layer& l) { CK(gemv(T::Q4K, l.qkv, xa, qkvOut, Q + KV + (l.vQ6 ? 0 : KV), H, st, o)); });
        } else {
            kind([&](cudaStream_t st, const Layer& l) { CK(gemv(T::Q4K, l.qkv, xa, qkvOut, Q, H, st, o)); });
            kind([&](cudaStream_t st, const Layer& l) {
                CK(gemv(T::Q4K, static_cast<const uint8_t*>(l.qkv) + size_t(Q) * q4Row, xa, qkvOut, KV, H, st, o));
                if (!l.vQ6) CK(gemv(T::Q4K, static_cast<const uint8_t*>(l.qkv) + size_t(Q + KV) * q4Row, xa, qkvOut, KV, H, st, o));
            });
        }
        kind([&](cudaStream_t st, const Layer& l) { if (l.vQ6) CK(gemv(T::Q6K, l.v6, xa, qkvOut, KV, H, st, o)); });
        kind([&](cudaStream_t st, const Layer& l) { CK(gemv(T::Q4K, l.o, xb, oOut, H, Q, st, o)); });
        kind([&](cudaStream_t st, const Layer& l) { CK(gateUp(T::Q4K, l.gate, l.up, xa, act, F, H, st, o)); });
        kind([&](cudaStream_t st, const Layer& l) { CK(gemv(l.downQ6 ? T::Q6K : T::Q4K, l.down, xb, h, H, F, st, o)); });
        sum += timeGraph([&](cudaStream_t st) { CK(gemv(T::Q6K, lm, xa, logits, V, H, st, o)); }, s);
        return sum;
    };
    for (bool fuse : {false, true}) {
        const double iso = isolated(fuse);
        for (bool pdl : {false, true}) {
            const double ms = timeGraph([&](cudaStream_t st) { step(st, fuse, pdl, true); }, s, 21);
            std::printf("| %s, %s | %d | %.3f | %.1f | %.1f %% | %.2f µs (isolated sum %.3f ms) |\n",
                        fuse ? "q/k/v fused" : "q/k/v separate", pdl ? "PDL" : "no PDL", launches, ms, 1e3 / ms,
                        100.0 * boundMs / ms, (ms - iso) * 1e3 / launches, iso);
            std::fflush(stdout);
        }
    }
    // The X8 inputs produced by the kernels this chain leaves out (RMSNorm, attention, which
    // would quantize in their epilogues): the GEMVs alone, still each waiting on the previous.
    for (int v : {0, 1, 2, 4}) {
        double ms = timeGraph([&](cudaStream_t st) { step(st, true, true, true, v); }, s, 21);
        std::printf("| q/k/v fused, PDL, variant %d | %d | %.3f | %.1f | %.1f %% | |\n", v, launches, ms, 1e3 / ms,
                    100.0 * boundMs / ms);
        ms = timeGraph([&](cudaStream_t st) { step(st, true, true, false, v); }, s, 21);
        std::printf("| q/k/v fused, PDL, variant %d, no quantize kernels | %d | %.3f | %.1f | %.1f %% | |\n", v, launches,
                    ms, 1e3 / ms, 100.0 * boundMs / ms);
        std::fflush(stdout);
    }
    for (Layer& l : layers) {
        for (void* p : {l.qkv, l.v6, l.o, l.gate, l.up, l.down})
            if (p) CK(cudaFree(p));
    }
    CK(cudaFree(lm));
    for (void* p : {(void*)h, (void*)qkvOut, (void*)oOut, (void*)act, (void*)logits, xa, xb}) CK(cudaFree(p));
}

// "1,2,4" -> {1, 2, 4} (a command line's list).
std::vector<int> intList(const char* p) {
    std::vector<int> out;
    while (*p) {
        out.push_back(std::atoi(p));
        while (*p && *p != ',') ++p;
        if (*p == ',') ++p;
    }
    return out;
}

} // namespace

int main(int argc, char** argv) {
    bool sweep = false, shapes = true, chain = true, launchCost = true;
    int onlyK = 0;
    std::vector<int> onlyN; // --shape K N[,N...]: any shapes, not only the table's
    std::vector<int> forcedRows;
    std::vector<T> types;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--sweep") sweep = true;
        else if (a == "--no-shapes") shapes = false;
        else if (a == "--no-chain") chain = false;
        else if (a == "--no-launch-cost") launchCost = false;
        else if (a == "--shape" && i + 2 < argc) {
            onlyK = std::atoi(argv[++i]);
            onlyN = intList(argv[++i]);
        }
        else if (a == "--rows" && i + 1 < argc) {
            for (const int r : intList(argv[++i]))
                if (r == 1 || r == 2 || r == 4 || r == 8) forcedRows.push_back(r);
        }
        else if (a == "--types" && i + 1 < argc) {
            const std::string list = argv[++i];
            for (const auto& ti : kTypes)
                if (list.find(ti.name) != std::string::npos) types.push_back(ti.t);
        } else {
            std::fprintf(stderr, "usage: %s [--sweep] [--no-shapes] [--no-chain] [--no-launch-cost] [--types Q4_K,...] [--shape K N[,N...]] [--rows R[,R...]]\n",
                         argv[0]);
            return 2;
        }
    }
    if (types.empty())
        for (const auto& ti : kTypes) types.push_back(ti.t);
    int dev = 0;
    cudaDeviceProp p;
    if (cudaGetDeviceCount(&dev) != cudaSuccess || dev == 0) {
        std::fprintf(stderr, "no CUDA device\n");
        return 77;
    }
    CK(cudaGetDeviceProperties(&p, 0));
    std::printf("device: %s, %d SMs, L2 %d MB, sm_%d%d; bandwidth reference 4.5 TB/s (measured plain read)\n", p.name,
                p.multiProcessorCount, p.l2CacheSize >> 20, p.major, p.minor);
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    if (shapes) benchShapes(types, sweep, onlyK, onlyN, forcedRows, s);
    if (chain) benchChain(s);
    if (launchCost) benchLaunchCost(s);
    CK(cudaStreamDestroy(s));
    return 0;
}
