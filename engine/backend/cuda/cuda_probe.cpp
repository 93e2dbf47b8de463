// Device discovery inside the CUDA module: what the engine shows as "which GPU did we find".
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstring>

#include "backend/cuda_module_abi.h"

namespace {

// Why CUDA cannot start, in words a user can act on (the runtime's own strings speak of
// versions and "insufficient" drivers without saying what is missing), and as a probe code
// (HEARTH_CUDA_PROBE_*; 0 when the driver works but sees no GPU).
int describeFailure(cudaError_t err, char* error, int errorBytes) {
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver); // 0 when no driver library could be loaded
    cudaRuntimeGetVersion(&runtime);
    if (err == cudaErrorNoDevice) {
        std::snprintf(error, errorBytes, "no CUDA device found: the NVIDIA driver is installed but sees no NVIDIA GPU");
        return 0;
    }
    if (driver == 0) {
        void* libcuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
        if (!libcuda) {
            std::snprintf(error, errorBytes, "no NVIDIA driver is installed (libcuda.so.1 was not found)");
            return HEARTH_CUDA_PROBE_NO_DRIVER;
        }
        dlclose(libcuda);
        std::snprintf(error, errorBytes, "the NVIDIA driver is installed but does not work (%s); is its kernel "
                                         "module loaded?", cudaGetErrorString(err));
        return HEARTH_CUDA_PROBE_DRIVER_BROKEN;
    }
    if (err == cudaErrorInsufficientDriver) {
        std::snprintf(error, errorBytes, "the NVIDIA driver is too old: it supports CUDA %d.%d, this build needs "
                                         "CUDA %d.%d; update the driver",
                      driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
        return HEARTH_CUDA_PROBE_DRIVER_TOO_OLD;
    }
    std::snprintf(error, errorBytes, "CUDA could not start: %s", cudaGetErrorString(err));
    return HEARTH_CUDA_PROBE_FAILED;
}

} // namespace

extern "C" __attribute__((visibility("default"))) int hearth_cuda_abi_version(void) {
    return HEARTH_CUDA_ABI_VERSION;
}

extern "C" __attribute__((visibility("default"))) int hearth_cuda_probe(HearthCudaDevice* devices,
                                                                        int maxDevices, char* error,
                                                                        int errorBytes) {
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) return describeFailure(err, error, errorBytes);
    int written = 0;
    for (int i = 0; i < count && written < maxDevices; ++i) {
        cudaDeviceProp prop{};
        if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
        HearthCudaDevice& d = devices[written++];
        std::memset(&d, 0, sizeof d);
        std::snprintf(d.name, sizeof d.name, "%s", prop.name);
        d.major = prop.major;
        d.minor = prop.minor;
        d.totalBytes = prop.totalGlobalMem;
        size_t freeBytes = 0, totalBytes = 0;
        if (cudaSetDevice(i) == cudaSuccess && cudaMemGetInfo(&freeBytes, &totalBytes) == cudaSuccess) {
            d.freeBytes = freeBytes;
            d.totalBytes = totalBytes;
        }
    }
    if (written == 0) std::snprintf(error, errorBytes, "no CUDA device found");
    return written;
}
