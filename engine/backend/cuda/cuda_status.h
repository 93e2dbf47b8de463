// cudaError_t -> hearth::Status for the CUDA module's host code. The kernels' launchers return
// cudaError_t (kernels/ knows nothing of the engine); the module turns a failure into a Status
// that names the call that failed and where, and hands that to the engine.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "hearth/status.h"

namespace hearth::cuda {

// `operation`: the failing call as written; file and line: where it was made. Out of memory and
// invalid values (a launcher refusing a shape) keep their own codes; anything else is Internal.
inline Status cudaStatus(cudaError_t err, const char* operation, const char* file, int line) {
    if (err == cudaSuccess) return Status::ok();
    const char* base = file;
    for (const char* p = file; *p; ++p)
        if (*p == '/') base = p + 1;
    std::string m = std::string(operation) + ": " + cudaGetErrorString(err) + " (" + cudaGetErrorName(err) +
                    ") at " + base + ":" + std::to_string(line);
    switch (err) {
    case cudaErrorMemoryAllocation: return outOfMemory(std::move(m));
    case cudaErrorInvalidValue: return invalidArgument(std::move(m));
    default: return internalError(std::move(m));
    }
}

} // namespace hearth::cuda

// Returns the Status of a failed CUDA call from the enclosing function (which returns Status or
// Result<T>): HEARTH_CUDA_CHECK(cudaMalloc(&p, bytes));
#define HEARTH_CUDA_CHECK(expr)                                                                    \
    do {                                                                                           \
        const cudaError_t hearthCudaErr_ = (expr);                                                 \
        if (hearthCudaErr_ != cudaSuccess)                                                         \
            return ::hearth::cuda::cudaStatus(hearthCudaErr_, #expr, __FILE__, __LINE__);         \
    } while (0)
