#include "backend/cuda/process_memory.h"

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <vector>

namespace hearth::cuda {
namespace {

std::atomic<int64_t> g_allocated{0};

// The few NVML entry points used, with the layouts the NVML reference gives.
struct NvmlProcessInfo {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
};
using NvmlDevice = void*;
struct Nvml {
    int (*init)() = nullptr;
    int (*byPciBusId)(const char*, NvmlDevice*) = nullptr;
    int (*processes)(NvmlDevice, unsigned int*, NvmlProcessInfo*) = nullptr;
    bool ok = false;
};

const Nvml& nvml() {
    static const Nvml api = [] {
        Nvml n;
        void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!lib) return n;
        n.init = reinterpret_cast<int (*)()>(dlsym(lib, "nvmlInit_v2"));
        n.byPciBusId = reinterpret_cast<int (*)(const char*, NvmlDevice*)>(dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2"));
        n.processes = reinterpret_cast<int (*)(NvmlDevice, unsigned int*, NvmlProcessInfo*)>(
            dlsym(lib, "nvmlDeviceGetComputeRunningProcesses_v3"));
        n.ok = n.init && n.byPciBusId && n.processes && n.init() == 0;
        return n;
    }();
    return api;
}

} // namespace

void addAllocatedBytes(int64_t delta) { g_allocated.fetch_add(delta); }
uint64_t allocatedBytes() { return uint64_t(std::max<int64_t>(0, g_allocated.load())); }

std::optional<uint64_t> processDeviceBytes(int device) {
    const Nvml& n = nvml();
    if (!n.ok) return std::nullopt;
    char bus[32] = {};
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, device) != cudaSuccess) return std::nullopt;
    NvmlDevice handle = nullptr;
    if (n.byPciBusId(bus, &handle) != 0) return std::nullopt;
    std::vector<NvmlProcessInfo> infos(64);
    unsigned int count = unsigned(infos.size());
    if (n.processes(handle, &count, infos.data()) != 0) return std::nullopt;
    const unsigned int self = unsigned(getpid());
    for (unsigned int i = 0; i < count && i < infos.size(); ++i)
        if (infos[i].pid == self && infos[i].usedGpuMemory != ~0ull) return uint64_t(infos[i].usedGpuMemory);
    return std::nullopt;
}

} // namespace hearth::cuda
