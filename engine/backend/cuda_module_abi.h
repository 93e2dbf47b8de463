// The C ABI between the engine and the dlopen'ed CUDA backend module (libhearth_cuda.so).
// Plain C types only, so the module and the engine need not share a C++ ABI. Versioned: the
// engine refuses a module whose hearth_cuda_abi_version() differs.
#pragma once

#include <stdint.h>

#define HEARTH_CUDA_ABI_VERSION 1

extern "C" {

struct HearthCudaDevice {
    char name[256];
    uint64_t totalBytes;
    uint64_t freeBytes;
    int major; // compute capability
    int minor;
};

// Why the probe failed, so the engine need not read the words: -1 any other failure (the only
// code of older modules), the rest as named.
#define HEARTH_CUDA_PROBE_FAILED (-1)
#define HEARTH_CUDA_PROBE_NO_DRIVER (-2)
#define HEARTH_CUDA_PROBE_DRIVER_BROKEN (-3)
#define HEARTH_CUDA_PROBE_DRIVER_TOO_OLD (-4)

typedef int (*HearthCudaAbiVersionFn)(void);
// Fills up to maxDevices entries and returns their count, or a HEARTH_CUDA_PROBE_* code below
// with a reason in `error` (NUL-terminated, at most errorBytes) when the CUDA runtime cannot be
// used at all. 0 devices: the driver works but sees no GPU.
typedef int (*HearthCudaProbeFn)(HearthCudaDevice* devices, int maxDevices, char* error, int errorBytes);

} // extern "C"
