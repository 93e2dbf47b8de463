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

#define HEARTH_GPU_TEST_NEEDS_KERNELS(name)

namespace hearth::test {

// Announces the test; with `needsDevice`, ends it as skipped (77) where no CUDA device exists.
inline void startGpuTest(const char* name, bool needsDevice) {
    announce(name, "cuda");
    int devices = 0;
    if (needsDevice && (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0)) skipTest("no CUDA device");
}

} // namespace hearth::test

#else

#define HEARTH_GPU_TEST_NEEDS_KERNELS(name)                                                        \
    int main() {                                                                                   \
        hearth::test::announce(name, "cuda");                                                      \
        hearth::test::skipTest("built without the CUDA kernels");                                  \
    }

#endif
