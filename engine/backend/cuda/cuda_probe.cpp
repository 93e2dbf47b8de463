// Device discovery inside the CUDA module: what the engine shows as "which GPU did we find".
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>

#include "backend/cuda_module_abi.h"

extern "C" __attribute__((visibility("default"))) int hearth_cuda_abi_version(void) {
    return HEARTH_CUDA_ABI_VERSION;
}

extern "C" __attribute__((visibility("default"))) int hearth_cuda_probe(HearthCudaDevice* devices,
                                                                        int maxDevices, char* error,
                                                                        int errorBytes) {
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        int driver = 0;
        cudaDriverGetVersion(&driver);
        if (driver == 0)
            std::snprintf(error, errorBytes, "no NVIDIA driver found (%s)", cudaGetErrorString(err));
        else
            std::snprintf(error, errorBytes, "CUDA runtime error: %s", cudaGetErrorString(err));
        return -1;
    }
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
