// The dlopen'ed CUDA backend module (libhearth_cuda.so): one object owns the library handle and
// the entry points resolved from it, or says in words and as a reason code why there is none.
#pragma once

#include <string>

#include "backend/cuda_module_abi.h"
#include "hearth/devices.h"

namespace hearth {

// The module's model and session entry points (ABI 4).
struct CudaModelApi {
    HearthCudaModelLoadFn modelLoad = nullptr;
    HearthCudaModelFreeFn modelFree = nullptr;
    HearthCudaModelMemoryFn modelMemory = nullptr;
    HearthCudaSessionCreateFn sessionCreate = nullptr;
    HearthCudaSessionFreeFn sessionFree = nullptr;
    HearthCudaSessionMemoryFn sessionMemory = nullptr;
    HearthCudaPrefillFn prefill = nullptr;
    HearthCudaDecodeFn decode = nullptr;
    HearthCudaCheckpointFn checkpoint = nullptr;
    HearthCudaRewindFn rewind = nullptr;
};

class CudaModule {
public:
    // Finds and loads the module: $HEARTH_CUDA_MODULE, the lib folders beside the executable
    // (build and install trees), then the loader's search path. Never fails: see failure().
    explicit CudaModule(const std::string& moduleName);
    ~CudaModule(); // unloads the module
    CudaModule(const CudaModule&) = delete;
    CudaModule& operator=(const CudaModule&) = delete;

    // The process's module, loaded on first use and kept for the life of the process (unloading
    // CUDA while its runtime tears down at exit is not safe).
    static const CudaModule& instance();

    bool usable() const { return m_probe != nullptr; }
    CudaUnavailable failure() const { return m_failure; }       // None when usable
    const std::string& failureReason() const { return m_reason; } // plain words for logs and the CLI
    HearthCudaProbeFn probe() const { return m_probe; }
    const CudaModelApi& api() const { return m_api; }

private:
    void fail(CudaUnavailable why, std::string words);
    void describeLoadError(const std::string& moduleName, const std::string& error);

    void* m_handle = nullptr;
    HearthCudaProbeFn m_probe = nullptr;
    CudaModelApi m_api;
    CudaUnavailable m_failure = CudaUnavailable::None;
    std::string m_reason;
};

} // namespace hearth
