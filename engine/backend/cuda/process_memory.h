// What this process holds on a GPU as the driver counts it (NVML, loaded at run time), and what
// the module itself allocated: their difference is the CUDA context and the libraries' memory,
// the "CUDA context" of the VRAM meter.
#pragma once

#include <cstdint>
#include <optional>

namespace hearth::cuda {

// Bytes the module's own allocations hold (weights and sessions), kept by them.
void addAllocatedBytes(int64_t delta);
uint64_t allocatedBytes();

// This process's device memory on `device` (a CUDA ordinal), or nullopt where NVML is missing or
// does not list the process (e.g. inside a PID namespace).
std::optional<uint64_t> processDeviceBytes(int device);

} // namespace hearth::cuda
