// The start the GPU tests of the CUDA kernels share. They compile in every build; where the build
// has no kernels (no CUDA), HEARTH_GPU_TEST_NEEDS_KERNELS(name) is the whole test, a main() that
// reports the skip, and the rest of the file is left out:
//
//     #include "gpu_test.h"
//     HEARTH_GPU_TEST_NEEDS_KERNELS("gemv")
//     #ifdef HEARTH_HAVE_KERNELS
//     ...
//     int main() {
//         hearth::test::startGpuTest("gemv", /*needsDevice=*/true);
//     ...
//     #endif
#pragma once

#include "check.h"
#include "testdata.h"

#ifdef HEARTH_HAVE_KERNELS

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#define HEARTH_GPU_TEST_NEEDS_KERNELS(name)

namespace hearth::test {

// Announces the test; with `needsDevice`, ends it as skipped (77) where no CUDA device exists.
inline void startGpuTest(const char* name, bool needsDevice) {
    announce(name, "cuda");
    int devices = 0;
    if (needsDevice && (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0)) skipTest("no CUDA device");
}

// n values drawn from N(0, scale²).
inline std::vector<float> randomNormal(std::mt19937& rng, size_t n, float scale = 1.0f) {
    std::normal_distribution<float> d(0.0f, scale);
    std::vector<float> v(n);
    for (float& x : v) x = d(rng);
    return v;
}

// A device buffer poisoned with NaN (0xFF bytes) before each use.
struct Buffer {
    void* p = nullptr;
    size_t bytes = 0;
    explicit Buffer(size_t n) : bytes(n) {
        CHECK(cudaMalloc(&p, std::max<size_t>(n, 1)) == cudaSuccess);
        poison();
    }
    ~Buffer() { cudaFree(p); }
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    void poison() { cudaMemset(p, 0xFF, bytes); }
    template <typename T>
    T* as() const { return static_cast<T*>(p); }
    void upload(const void* src) { CHECK(cudaMemcpy(p, src, bytes, cudaMemcpyHostToDevice) == cudaSuccess); }
    template <typename T>
    std::vector<T> download(size_t count) const {
        std::vector<T> out(count);
        CHECK(cudaMemcpy(out.data(), p, count * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess);
        return out;
    }
};

inline double maxAbs(const std::vector<float>& v) {
    double m = 0;
    for (float x : v) m = std::max(m, double(std::fabs(x)));
    return m;
}

// Worst |a - b| / max|b|, infinity when a has a NaN.
inline double worstError(const std::vector<float>& a, const std::vector<float>& b) {
    double worst = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        if (std::isnan(a[i])) return std::numeric_limits<double>::infinity();
        worst = std::max(worst, std::fabs(double(a[i]) - b[i]));
    }
    return worst / std::max(maxAbs(b), 1e-30);
}

} // namespace hearth::test

#else

#define HEARTH_GPU_TEST_NEEDS_KERNELS(name)                                                        \
    int main() {                                                                                   \
        hearth::test::announce(name, "cuda");                                                      \
        hearth::test::skipTest("built without the CUDA kernels");                                  \
    }

#endif
