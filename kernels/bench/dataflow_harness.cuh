// hearth-bench-dataflow's harness (experiment, host side and set-up kernels): the CUDA check that
// ends the bench, random Q4_K blocks, floats and halves, timing by events, and --layers 1's
// comparison of a layer's k/v and attention output with the chain's.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "dataflow_mma.cuh"

namespace hearth::kernels::dataflow {

#define CK(expr)                                                                                              \
    do {                                                                                                      \
        const cudaError_t e_ = (expr);                                                                        \
        if (e_ != cudaSuccess) {                                                                              \
            std::fprintf(stderr, "%s: %s (%s:%d)\n", #expr, cudaGetErrorString(e_), __FILE__, __LINE__);      \
            std::exit(1);                                                                                     \
        }                                                                                                     \
    } while (0)


// ---- set-up ------------------------------------------------------------------------------------

__global__ void fillQ4K(uint8_t* w, size_t blocks, uint64_t seed) {
    for (size_t b = blockIdx.x * size_t(blockDim.x) + threadIdx.x; b < blocks; b += size_t(gridDim.x) * blockDim.x) {
        uint8_t* p = w + b * 144;
        uint64_t s = seed ^ (b * 0x9E3779B97F4A7C15ull);
        auto next = [&] {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            return s;
        };
        const __half d = __float2half(0.002f + 0.002f * float(next() & 1023) / 1023.0f);
        // dmin = 7.5·d: the mean of d·sc·q (q 0..15) cancels that of dmin·m (sc, m uniform 6-bit),
        // so sums over a row stay ~sqrt(k) and 36 layers stay finite.
        const __half dmin = __float2half(7.5f * __half2float(d));
        std::memcpy(p, &d, 2);
        std::memcpy(p + 2, &dmin, 2);
        for (int i = 4; i < 144; i += 4) {
            const uint32_t r = uint32_t(next());
            std::memcpy(p + i, &r, 4);
        }
    }
}

__global__ void fillFloats(float* x, int n, float value, uint64_t seed) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (seed == 0) {
        x[i] = value;
        return;
    }
    uint64_t s = seed ^ (uint64_t(i) * 0x9E3779B97F4A7C15ull);
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    x[i] = value + float(int(s & 0xFFFF) - 32768) / 32768.0f;
}
// n random f16 values in (-2, 2): a cache's rows (--depth).
__global__ void fillHalves(__half* x, size_t n, uint64_t seed) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
        uint64_t s = seed ^ (uint64_t(i) * 0x9E3779B97F4A7C15ull);
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        x[i] = __float2half(float(int(s & 0xFFFF) - 32768) / 16384.0f);
    }
}

// --layers 1 with the attention (kinds 13-14): the kernel's k/v (raw) against the chain's, and o's
// input — the kernel's MmaX vector (q for the stub, the combined heads with --depth) — against the
// chain's fp32 values and against the chain's own X8 groups of them (int8 values that differ, and
// by how much): a part that is wrong shows there; int8 rounding flips differ by one.
void compareLayerZero(const float* chainQkv, const float* chainAttn, const int8_t* chainX8, const float* gotKv,
                      const int8_t* gotX, bool depth) {
    std::vector<float> want(QKV), attn(H), kv(QKV - H), x(H);
    CK(cudaMemcpy(want.data(), chainQkv, QKV * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(attn.data(), chainAttn, H * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(kv.data(), gotKv, (QKV - H) * 4, cudaMemcpyDeviceToHost));
    std::vector<uint8_t> mx(MmaX::bytes(H)), cx(gemvX8Bytes(H));
    CK(cudaMemcpy(mx.data(), gotX, mx.size(), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(cx.data(), chainX8, cx.size(), cudaMemcpyDeviceToHost));
    int differ = 0, worst = 0;
    for (int e = 0; e < H; ++e) { // MmaX: frags [column][t][group of the column], then records [column][chunk]
        const int group = e / 32, i = e % 32, column = group / 8, j = group % 8, tt = (i % 16) / 4;
        const int8_t q = int8_t(mx[size_t(((column * 4 + tt) * 8 + j) * 8 + (i >= 16 ? 4 : 0) + i % 4)]);
        float rec[4];
        std::memcpy(rec, mx.data() + size_t(H / 256) * 4 * 64 + size_t(column * 4 + j / 2) * 16, 16);
        x[size_t(e)] = float(q) * rec[(j % 2) * 2];
        const int qc = int8_t(cx[gemvX8ValueOffset(H, e)]);
        differ += qc != q, worst = std::max(worst, std::abs(qc - int(q)));
    }
    auto rel = [](const float* a, const float* b, int n) {
        double num = 0, den = 0;
        for (int i = 0; i < n; ++i) num += double(a[i] - b[i]) * (a[i] - b[i]), den += double(b[i]) * b[i];
        return std::sqrt(num / std::max(den, 1e-30));
    };
    std::printf("layer 0 against the chain: k/v %.2e, %s %.2e against its fp32 values; int8 values differing from "
                "the chain's X8: %d of %d, by at most %d\n",
                rel(kv.data(), want.data() + H, QKV - H), depth ? "attention output" : "q",
                rel(x.data(), depth ? attn.data() : want.data(), H), differ, H, worst);
}

// What `record` launches on s, captured as one graph, instantiated.
inline cudaGraphExec_t captureGraph(cudaStream_t s, const std::function<void()>& record) {
    cudaGraph_t g;
    cudaGraphExec_t e;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    record();
    CK(cudaStreamEndCapture(s, &g));
    CK(cudaGraphInstantiate(&e, g, 0));
    CK(cudaGraphDestroy(g));
    return e;
}

double timeMs(cudaStream_t s, int reps, const std::function<void()>& run) {
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    run(); // warm-up
    std::vector<float> ms;
    for (int r = 0; r < reps; ++r) {
        CK(cudaEventRecord(a, s));
        run();
        CK(cudaEventRecord(b, s));
        CK(cudaEventSynchronize(b));
        float t = 0;
        CK(cudaEventElapsedTime(&t, a, b));
        ms.push_back(t);
    }
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    std::nth_element(ms.begin(), ms.begin() + reps / 2, ms.end());
    return ms[reps / 2];
}

} // namespace hearth::kernels::dataflow
