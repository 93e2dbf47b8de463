// Which compute devices this machine offers the engine. Qt-free; safe to call from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hearth {

enum class DeviceKind { Cpu, Cuda };

struct DeviceInfo {
    DeviceKind kind = DeviceKind::Cpu;
    int index = 0;              // CUDA ordinal; 0 for the CPU
    std::string name;           // "NVIDIA H200", "AMD EPYC 7R13 (16 threads)"
    uint64_t totalBytes = 0;    // device memory (CPU: physical RAM)
    uint64_t freeBytes = 0;     // free now (CPU: MemAvailable)
    std::string computeCapability; // "9.0" for CUDA, empty for the CPU
};

struct DeviceReport {
    std::vector<DeviceInfo> devices; // the CPU first, then each usable CUDA device
    bool cudaBuilt = false;          // this build includes the CUDA backend module
    // Why no CUDA device is usable ("no NVIDIA driver", "module libhearth_cuda.so not found:
    // ..."); empty when at least one CUDA device is listed.
    std::string cudaUnavailableReason;
};

// Probes the CPU and (by loading the CUDA backend module at run time) the NVIDIA GPUs.
// Never fails: problems end up in cudaUnavailableReason. The result is cached after the first call.
const DeviceReport& probeDevices();
// The CPU with its memory read now (probeDevices() keeps its first reading).
DeviceInfo probeCpuNow();

const char* deviceKindName(DeviceKind kind); // "cpu" / "cuda"

} // namespace hearth
