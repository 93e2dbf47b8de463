// Batch-1 GEMV kernels (kernels/gemv_*.cu) against the CPU reference (dequantizeRow, dot in
// double) on fresh random blocks, for every weight type, every benchmark shape, ragged row
// counts, every launch configuration and the fused gate+up+SiLU. Outputs are poisoned (NaN)
// before each launch. Skipped (77) where no CUDA device exists.
//
// Quantized types read x as X8 (int8 per 16 with a scale), so each is judged twice, each output
// row on its own: against the reference on the X8 values themselves (the kernel's own arithmetic:
// fp32 rounding only), and against the reference on the fp32 x (what the 8-bit activation costs).
#include "gpu_test.h"

HEARTH_GPU_TEST_NEEDS_KERNELS("gemv")
#ifdef HEARTH_HAVE_KERNELS

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "base/thread_pool.h"
#include "hearth_kernels/gemv.h"
#include "hearth_kernels/gemv_experiments.h"
#include "quant/dequantize.h"
#include "quant/types.h"

using namespace hearth;
using namespace hearth::kernels;

namespace {

#define CUDA_OK(expr)                                                                              \
    do {                                                                                           \
        const cudaError_t e_ = (expr);                                                             \
        CHECK_MSG(e_ == cudaSuccess, #expr << ": " << cudaGetErrorString(e_));                     \
    } while (0)

struct TypeCase {
    DType type;
    const char* name;
    int blockElems, blockBytes;
    bool repack; // device layout differs from GGUF
};
const TypeCase kTypes[] = {
    {DType::Q4_K, "Q4_K", 256, 144, false}, {DType::Q5_K, "Q5_K", 256, 176, false},
    {DType::Q6_K, "Q6_K", 256, 210, true},  {DType::Q8_0, "Q8_0", 32, 34, true},
    {DType::Q4_0, "Q4_0", 32, 18, true},    {DType::BF16, "BF16", 8, 16, false},
};

uint64_t splitmix(uint64_t& s) {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void parallelFor(int64_t n, const std::function<void(int64_t, int64_t)>& f) {
    static ThreadPool pool(0); // every hardware thread
    pool.parallelFor(n, f);
}

// A random finite fp16 scale with random mantissa (|d| in [2^-11, 2^-9)), optionally signed.
uint16_t randScale(uint64_t h, bool sign) {
    return uint16_t((sign ? (h & 0x8000) : 0) | ((0x10 + (h >> 16) % 3) << 10) | (h & 0x3FF));
}

// Fresh random GGUF rows of `type`: every quant bit random, scales finite.
std::vector<uint8_t> randomRows(const TypeCase& tc, int n, int k, uint64_t seed) {
    const size_t rowBytes = size_t(k / tc.blockElems) * tc.blockBytes;
    std::vector<uint8_t> w(rowBytes * n);
    parallelFor(n, [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
            uint64_t s = seed * 0x100000001B3ull + uint64_t(r);
            uint8_t* row = w.data() + r * rowBytes;
            if (tc.type == DType::BF16) {
                for (int i = 0; i < k; ++i) {
                    const float v = float(int(splitmix(s) & 0xFFFF) - 32768) / 32768.0f;
                    const uint16_t b = floatToBf16(v);
                    std::memcpy(row + 2 * i, &b, 2);
                }
                continue;
            }
            for (size_t i = 0; i < rowBytes; i += 8) {
                const uint64_t h = splitmix(s);
                std::memcpy(row + i, &h, std::min<size_t>(8, rowBytes - i));
            }
            for (int b = 0; b < k / tc.blockElems; ++b) {
                uint8_t* blk = row + size_t(b) * tc.blockBytes;
                const uint64_t h = splitmix(s);
                uint16_t d = randScale(h, tc.type == DType::Q8_0 || tc.type == DType::Q4_0);
                uint16_t dmin = randScale(h >> 32, false);
                switch (tc.type) {
                case DType::Q4_K:
                case DType::Q5_K:
                    std::memcpy(blk, &d, 2);
                    std::memcpy(blk + 2, &dmin, 2);
                    break;
                case DType::Q6_K: std::memcpy(blk + 208, &d, 2); break;
                default: std::memcpy(blk, &d, 2); break;
                }
            }
        }
    });
    return w;
}

// The worst row: max over r of |y_r − ref_r| / rms(ref). Each row is judged on its own, so that
// one wrong row of an LM head fails (pooled over 151936 rows, ‖y − ref‖/‖ref‖ would show it at
// 1/390 of its size). The scale is the RMS over all rows, not |ref_r|, which a single dot product
// can cancel to near zero. `bad` counts non-finite outputs (left out of the maximum).
struct RowError {
    double worst = 0, pooled = 0; // pooled: ‖y − ref‖/‖ref‖, printed for comparison
    int row = 0, bad = 0;
};

RowError rowError(const std::vector<float>& y, const std::vector<double>& ref) {
    double den = 0, num = 0;
    for (double r : ref) den += r * r;
    const double scale = std::sqrt(std::max(den / double(ref.size()), 1e-300));
    RowError e;
    for (size_t i = 0; i < y.size(); ++i) {
        if (!std::isfinite(y[i])) {
            ++e.bad;
            continue;
        }
        const double d = std::fabs(double(y[i]) - ref[i]);
        num += d * d;
        if (d / scale > e.worst) {
            e.worst = d / scale;
            e.row = int(i);
        }
    }
    e.pooled = std::sqrt(num / std::max(den, 1e-300));
    return e;
}

struct Device {
    void* w = nullptr;      // device layout
    void* wu = nullptr;     // second matrix (gate+up)
    float* x = nullptr;     // fp32 x
    void* xq = nullptr;     // X8 x
    float* y = nullptr;
    ~Device() {
        for (void* p : {w, wu, static_cast<void*>(x), xq, static_cast<void*>(y)})
            if (p) cudaFree(p);
    }
};

GemvType gemvType(DType t) {
    switch (t) {
    case DType::Q4_K: return GemvType::Q4_K;
    case DType::Q5_K: return GemvType::Q5_K;
    case DType::Q6_K: return GemvType::Q6_K;
    case DType::Q8_0: return GemvType::Q8_0;
    case DType::Q4_0: return GemvType::Q4_0;
    default: return GemvType::BF16;
    }
}

// Uploads GGUF rows and converts them to the device layout.
void* upload(const TypeCase& tc, const std::vector<uint8_t>& rows, int n, int k) {
    void *src = nullptr, *dst = nullptr;
    CUDA_OK(cudaMalloc(&src, rows.size()));
    CUDA_OK(cudaMemcpy(src, rows.data(), rows.size(), cudaMemcpyHostToDevice));
    if (!tc.repack) return src;
    CUDA_OK(cudaMalloc(&dst, rows.size()));
    CUDA_OK(launchGemvRepack(gemvType(tc.type), src, dst, n, k, nullptr));
    CUDA_OK(cudaDeviceSynchronize());
    cudaFree(src);
    return dst;
}

// The engine's entries (gemv.h) for variant 0, the experiment entries otherwise.
cudaError_t launch(const TypeCase& tc, bool glu, const Device& d, int n, int k, const GemvExperiment& o) {
    const void* x = tc.type == DType::BF16 ? static_cast<const void*>(d.x) : d.xq;
    const GemvType t = gemvType(tc.type);
    if (o.variant)
        return glu ? launchGemvGateUpExperiment(t, d.w, d.wu, x, d.y, n, k, nullptr, o)
                   : launchGemvExperiment(t, d.w, x, d.y, n, k, nullptr, o);
    return glu ? launchGemvGateUp(t, d.w, d.wu, x, d.y, n, k, nullptr, o)
               : launchGemv(t, d.w, x, d.y, n, k, nullptr, o);
}

// Reference W·x for both x forms, in double over dequantizeRow's floats.
void reference(const TypeCase& tc, const std::vector<uint8_t>& w, int n, int k, const std::vector<float>& x,
               const std::vector<float>& x8, std::vector<double>& ref, std::vector<double>& ref8) {
    const size_t rowBytes = size_t(k / tc.blockElems) * tc.blockBytes;
    ref.assign(n, 0.0);
    ref8.assign(n, 0.0);
    parallelFor(n, [&](int64_t r0, int64_t r1) {
        std::vector<float> row(k);
        for (int64_t r = r0; r < r1; ++r) {
            dequantizeRow(tc.type, w.data() + r * rowBytes, row.data(), k);
            double a = 0, b = 0;
            for (int i = 0; i < k; ++i) {
                a += double(row[i]) * x[i];
                b += double(row[i]) * x8[i];
            }
            ref[r] = a;
            ref8[r] = b;
        }
    });
}

double silu(double g) { return g / (1.0 + std::exp(-g)); }

int gCase = 0;

// One (type, shape) case; `configs` are the launch options to try on the same data.
void runCase(const TypeCase& tc, int n, int k, bool glu, const std::vector<GemvExperiment>& configs) {
    const uint64_t seed = 0x5EED0000ull + uint64_t(++gCase) * 7919;
    const auto wg = randomRows(tc, n, k, seed);
    const auto wu = glu ? randomRows(tc, n, k, seed + 1) : std::vector<uint8_t>{};
    std::vector<float> x(k);
    uint64_t s = seed ^ 0xABCDull;
    for (float& v : x) v = float(int(splitmix(s) & 0xFFFF) - 32768) / 32768.0f;

    Device d;
    d.w = upload(tc, wg, n, k);
    if (glu) d.wu = upload(tc, wu, n, k);
    CUDA_OK(cudaMalloc(&d.x, size_t(k) * 4));
    CUDA_OK(cudaMalloc(&d.xq, gemvX8Bytes(k)));
    CUDA_OK(cudaMalloc(&d.y, size_t(n) * 4));
    CUDA_OK(cudaMemcpy(d.x, x.data(), size_t(k) * 4, cudaMemcpyHostToDevice));
    CUDA_OK(launchQuantizeX8(d.x, k, d.xq, nullptr));
    std::vector<uint8_t> xq(gemvX8Bytes(k));
    CUDA_OK(cudaMemcpy(xq.data(), d.xq, xq.size(), cudaMemcpyDeviceToHost));
    std::vector<float> x8(k);
    for (int i = 0; i < k; ++i) {
        float scale;
        std::memcpy(&scale, xq.data() + gemvX8RecordOffset(k, i / 32), 4);
        x8[i] = float(int8_t(xq[gemvX8ValueOffset(k, i)])) * scale;
    }
    const bool isBf16 = tc.type == DType::BF16;
    const std::vector<float>& xUsed = isBf16 ? x : x8;

    std::vector<double> ref, ref8, refU, ref8U;
    reference(tc, wg, n, k, x, xUsed, ref, ref8);
    if (glu) {
        reference(tc, wu, n, k, x, xUsed, refU, ref8U);
        for (int i = 0; i < n; ++i) {
            ref[i] = silu(ref[i]) * refU[i];
            ref8[i] = silu(ref8[i]) * ref8U[i];
        }
    }
    // Worst-row bounds (see rowError), from a run on an H200 over every case below. On identical
    // inputs (fp32 rounding only) the worst row was 6.9e-7 (gemv) and 2.0e-6 (gate+up: SiLU's
    // products spread wider) over all types. Against fp32 x, what 8-bit x costs a row: up to 2.1e-2
    // (gemv) and 8.9e-2 (gate+up); pooled over the rows, 2.5e-3 to 1.0e-2.
    const double tight = 1e-5;
    const double fp32Bound = glu ? 0.12 : 3e-2;
    // Rows per block and PDL change no result (a row's sum runs in the same order), which the
    // session's measured choice of rows per block (gemv_tuning.h) relies on: per warp count, the
    // plain variant's outputs are equal bit for bit.
    std::vector<std::pair<int, std::vector<float>>> firstByWarps;
    for (const GemvExperiment& o : configs) {
        CUDA_OK(cudaMemset(d.y, 0xFF, size_t(n) * 4)); // NaN
        CUDA_OK(launch(tc, glu, d, n, k, o));
        CUDA_OK(cudaDeviceSynchronize());
        std::vector<float> y(n);
        CUDA_OK(cudaMemcpy(y.data(), d.y, size_t(n) * 4, cudaMemcpyDeviceToHost));
        if (o.variant == 0) {
            auto same = std::find_if(firstByWarps.begin(), firstByWarps.end(), [&](const auto& f) { return f.first == o.warps; });
            if (same == firstByWarps.end())
                firstByWarps.emplace_back(o.warps, y);
            else
                CHECK_MSG(std::memcmp(same->second.data(), y.data(), size_t(n) * 4) == 0,
                          tc.name << (glu ? " gate+up " : " gemv ") << k << "->" << n << " rows/block " << o.rowsPerBlock
                                  << " warps " << o.warps << " pdl " << int(o.pdl)
                                  << ": not bit-identical to the first choice with these warps");
        }
        const RowError e8 = rowError(y, ref8), e = rowError(y, ref);
        std::printf("%s %s %d->%d rows/block %d warps %d variant %d pdl %d: worst row %.2e (row %d; pooled %.2e)%s, "
                    "vs fp32 x %.2e (pooled %.2e)%s\n",
                    tc.name, glu ? "gate+up" : "gemv", k, n, o.rowsPerBlock, o.warps, o.variant, int(o.pdl), e8.worst,
                    e8.row, e8.pooled, isBf16 ? "" : " on X8 x", e.worst, e.pooled, e8.bad ? "  NON-FINITE" : "");
        CHECK_MSG(e8.bad == 0, tc.name << " " << k << "->" << n << ": " << e8.bad
                                       << " outputs unwritten or non-finite");
        CHECK_MSG(e8.worst <= tight, tc.name << " " << k << "->" << n << ": row " << e8.row << " error " << e8.worst
                                             << " > " << tight);
        // (one or a few rows: their RMS may itself be a cancelled dot product, so no bound there)
        if (n >= 32)
            CHECK_MSG(e.worst <= fp32Bound, tc.name << " " << k << "->" << n << ": row " << e.row
                                                    << " error vs fp32 x " << e.worst << " > " << fp32Bound);
    }
}

// Two matrices of different types in one launch (launchGemvPair): each output bit for bit what
// its own launch with the same rows per block writes, for both orders, every pair of rows-per-block
// choices, the 8B's q/k beside v and ragged row counts; and the calls it refuses.
void pairCases() {
    const TypeCase &q4 = kTypes[0], &q6 = kTypes[2];
    CHECK(gemvPairSupported(GemvType::Q4_K, GemvType::Q6_K) && gemvPairSupported(GemvType::Q6_K, GemvType::Q4_K));
    CHECK(!gemvPairSupported(GemvType::Q4_K, GemvType::Q4_K) && !gemvPairSupported(GemvType::Q8_0, GemvType::Q6_K));
    const int k = 4096;
    std::vector<float> x(k);
    uint64_t s = 0x9A1Bull;
    for (float& v : x) v = float(int(splitmix(s) & 0xFFFF) - 32768) / 32768.0f;
    Device d;
    CUDA_OK(cudaMalloc(&d.x, size_t(k) * 4));
    CUDA_OK(cudaMalloc(&d.xq, gemvX8Bytes(k)));
    CUDA_OK(cudaMemcpy(d.x, x.data(), size_t(k) * 4, cudaMemcpyHostToDevice));
    CUDA_OK(launchQuantizeX8(d.x, k, d.xq, nullptr));
    const int shapes[][2] = {{5120, 1024}, {1000, 33}};
    for (const auto& order : {std::pair{&q4, &q6}, std::pair{&q6, &q4}})
        for (const auto& shape : shapes) {
            const TypeCase &ta = *order.first, &tb = *order.second;
            const int na = shape[0], nb = shape[1];
            void* wa = upload(ta, randomRows(ta, na, k, 0x9A17ull + uint64_t(na)), na, k);
            void* wb = upload(tb, randomRows(tb, nb, k, 0x9A18ull + uint64_t(nb)), nb, k);
            float *ya = nullptr, *yb = nullptr, *wantA = nullptr, *wantB = nullptr;
            for (float** p : {&ya, &yb, &wantA, &wantB}) CUDA_OK(cudaMalloc(p, size_t(std::max(na, nb)) * 4));
            for (int ra : {0, 1, 2, 4, 8})
                for (int rb : {0, 1, 2, 4, 8}) {
                    for (float* p : {ya, yb, wantA, wantB}) CUDA_OK(cudaMemset(p, 0xFF, size_t(std::max(na, nb)) * 4));
                    CUDA_OK(launchGemv(gemvType(ta.type), wa, d.xq, wantA, na, k, nullptr, GemvLaunch{false, ra, 0}));
                    CUDA_OK(launchGemv(gemvType(tb.type), wb, d.xq, wantB, nb, k, nullptr, GemvLaunch{false, rb, 0}));
                    CUDA_OK(launchGemvPair({gemvType(ta.type), wa, ya, na, ra}, {gemvType(tb.type), wb, yb, nb, rb},
                                           d.xq, k, nullptr));
                    CUDA_OK(cudaDeviceSynchronize());
                    std::vector<float> ga(static_cast<size_t>(na)), gb(static_cast<size_t>(nb)), ea(ga), eb(gb);
                    CUDA_OK(cudaMemcpy(ga.data(), ya, ga.size() * 4, cudaMemcpyDeviceToHost));
                    CUDA_OK(cudaMemcpy(gb.data(), yb, gb.size() * 4, cudaMemcpyDeviceToHost));
                    CUDA_OK(cudaMemcpy(ea.data(), wantA, ea.size() * 4, cudaMemcpyDeviceToHost));
                    CUDA_OK(cudaMemcpy(eb.data(), wantB, eb.size() * 4, cudaMemcpyDeviceToHost));
                    CHECK_MSG(std::memcmp(ga.data(), ea.data(), ga.size() * 4) == 0 &&
                                  std::memcmp(gb.data(), eb.data(), gb.size() * 4) == 0,
                              "pair " << ta.name << " (" << na << " rows, " << ra << " a block) + " << tb.name << " ("
                                      << nb << " rows, " << rb << " a block) differs from two launches");
                }
            // Refused, launching nothing.
            const GemvMatrix a{gemvType(ta.type), wa, ya, na, 0}, b{gemvType(tb.type), wb, yb, nb, 0};
            CHECK(launchGemvPair(a, GemvMatrix{gemvType(ta.type), wb, yb, nb, 0}, d.xq, k, nullptr) ==
                  cudaErrorInvalidValue); // a same-type pair
            CHECK(launchGemvPair(a, GemvMatrix{b.type, b.w, b.y, b.n, 3}, d.xq, k, nullptr) == cudaErrorInvalidValue);
            CHECK(launchGemvPair(a, GemvMatrix{b.type, nullptr, b.y, b.n, 0}, d.xq, k, nullptr) ==
                  cudaErrorInvalidValue);
            CHECK(launchGemvPair(a, GemvMatrix{b.type, b.w, b.y, 0, 0}, d.xq, k, nullptr) == cudaErrorInvalidValue);
            CHECK(launchGemvPair(a, b, d.xq, 100, nullptr) == cudaErrorInvalidValue);
            CHECK(launchGemvPair(a, b, nullptr, k, nullptr) == cudaErrorInvalidValue);
            for (void* p : {wa, wb, static_cast<void*>(ya), static_cast<void*>(yb), static_cast<void*>(wantA),
                            static_cast<void*>(wantB)})
                cudaFree(p);
        }
}

} // namespace

int main() {
    test::startGpuTest("gemv", /*needsDevice=*/true);

    // Argument checks: no launch, an error.
    CHECK(gemvSupports(GemvType::Q4_K, 8, 256) && gemvSupports(GemvType::BF16, 1, 8));
    CHECK(!gemvSupports(GemvType::Q4_K, 4, 100) && !gemvSupports(GemvType::Q8_0, 4, 48));
    CHECK(!gemvSupports(GemvType::Q6_K, 0, 256) && !gemvSupports(GemvType(99), 4, 256));
    CHECK(gemvNeedsRepack(GemvType::Q6_K) && !gemvNeedsRepack(GemvType::Q4_K));
    CHECK(gemvRowBytes(GemvType::Q4_K, 4096) == 16 * 144 && gemvRowBytes(GemvType::Q6_K, 4096) == 16 * 210);
    CHECK(gemvRowBytes(GemvType::Q8_0, 64) == 68 && gemvRowBytes(GemvType::BF16, 16) == 32);
    CHECK(gemvRowBytes(GemvType::F32, 3) == 12 && gemvRowBytes(GemvType::Q4_K, 100) == 0);
    CHECK(gemvTakesRowsPerBlock(GemvType::Q4_K) && gemvTakesRowsPerBlock(GemvType::BF16));
    CHECK(!gemvTakesRowsPerBlock(GemvType::F16) && !gemvTakesRowsPerBlock(GemvType::Q5_0));
    CHECK(launchGemv(GemvType::Q4_K, nullptr, nullptr, nullptr, 8, 256, nullptr) == cudaErrorInvalidValue);
    {
        Device d;
        CUDA_OK(cudaMalloc(&d.w, 4096));
        CUDA_OK(cudaMalloc(&d.xq, 4096));
        CUDA_OK(cudaMalloc(&d.y, 4096));
        CHECK(launchGemv(GemvType::Q4_K, d.w, d.xq, d.y, 4, 100, nullptr) == cudaErrorInvalidValue);
        CHECK(launchGemv(GemvType::Q8_0, d.w, d.xq, d.y, 4, 48, nullptr) == cudaErrorInvalidValue);
        CHECK(launchGemv(GemvType::Q4_K, d.w, d.xq, d.y, 4, 256, nullptr, GemvLaunch{false, 3, 0}) ==
              cudaErrorInvalidValue);
        CHECK(launchGemvGateUp(GemvType::Q4_K, d.w, nullptr, d.xq, d.y, 4, 256, nullptr) == cudaErrorInvalidValue);
        CHECK(launchGemvRepack(GemvType::Q4_K, d.w, d.xq, 4, 256, nullptr) == cudaErrorInvalidValue);
    }

    const int shapes[][2] = {{4096, 4096},  {4096, 1024},  {4096, 12288}, {12288, 4096}, {5120, 25600},
                             {25600, 5120}, {5120, 17408}, {17408, 5120}, {5120, 12288}, {6144, 5120},
                             {4096, 151936}, {5120, 151936}, {5120, 248320}};
    std::vector<GemvExperiment> variants;
    for (int r : {1, 2, 4, 8})
        for (int w : {0, 1, 3, 8}) variants.push_back(GemvExperiment{false, r, w});
    variants.push_back(GemvExperiment{true, 0, 0});
    // the tuning variants (32-element Q4_K units, L1-allocating pairs, pipelined k loop)
    for (int v : {1, 2, 4, 5, 6, 7}) {
        for (int r : {1, 2, 4, 8}) variants.push_back(GemvExperiment{false, r, 0, v});
        variants.push_back(GemvExperiment{true, 2, 3, v});
    }
    std::vector<GemvExperiment> gluVariants;
    for (int r : {1, 2, 4})
        for (int w : {0, 1, 8}) gluVariants.push_back(GemvExperiment{false, r, w});
    gluVariants.push_back(GemvExperiment{true, 0, 0});
    for (int v : {1, 2, 4, 7}) gluVariants.push_back(GemvExperiment{false, 2, 0, v});

    // The X8 layout (gemv.h) is a bijection onto its buffer for whole and partial tiles/units.
    for (int k : {32, 96, 800, 2048, 2080, 4096, 5120, 25600}) {
        std::vector<int> hits(gemvX8Bytes(k), 0);
        for (int i = 0; i < k; ++i) ++hits.at(gemvX8ValueOffset(k, i));
        for (int g = 0; g < k / 32; ++g)
            for (int b = 0; b < 16; ++b) ++hits.at(gemvX8RecordOffset(k, g) + b);
        int twice = 0, unused = 0;
        for (int h : hits) twice += h > 1, unused += h == 0;
        CHECK_MSG(twice == 0, "X8 layout, k " << k << ": " << twice << " bytes used twice");
        CHECK_MSG(unused == (k % 64 ? 48 : 0), "X8 layout, k " << k << ": " << unused << " bytes unused");
    }

    for (const TypeCase& tc : kTypes) {
        // k = 800: a half unit in the last X8 tile (types with blocks of 32 or fewer)
        if (tc.blockElems <= 32) runCase(tc, 70, 800, false, variants);
        for (const auto& s : shapes) runCase(tc, s[1], s[0], false, {GemvExperiment{}});
        // ragged row counts and short rows, under every configuration
        for (int n : {1, 7, 33, 1000}) runCase(tc, n, 4096, false, variants);
        runCase(tc, 33, 256, false, variants);
        runCase(tc, 5, 768, false, variants);
        // fused gate + up + SiLU
        runCase(tc, 25600, 5120, true, {GemvExperiment{}, GemvExperiment{true, 0, 0}});
        runCase(tc, 1000, 4096, true, gluVariants);
        runCase(tc, 33, 256, true, gluVariants);
    }
    pairCases();
    return test::finish();
}

#endif // HEARTH_HAVE_KERNELS
