// Which compute devices this machine offers the engine. Qt-free; safe to call from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hearth/status.h"

namespace hearth {

// Auto (only as a request, in ModelParams): CUDA when a usable device is present, else the CPU.
enum class DeviceKind { Cpu, Cuda, Auto };

struct DeviceInfo {
    DeviceKind kind = DeviceKind::Cpu;
    int index = 0;              // CUDA ordinal; 0 for the CPU
    std::string name;           // "NVIDIA H200", "AMD EPYC 7R13 (16 threads)"
    uint64_t totalBytes = 0;    // device memory (CPU: physical RAM)
    uint64_t freeBytes = 0;     // free now (CPU: MemAvailable)
    std::string computeCapability; // "9.0" for CUDA, empty for the CPU
};

// Why no CUDA device is usable, for a program to act on (the app words its own message from it).
enum class CudaUnavailable {
    None,           // at least one CUDA device is listed
    NotBuilt,       // this build of Hearth has no CUDA backend
    ModuleMissing,  // the CUDA backend module is missing from the installation
    LibraryMissing, // the module needs a library (the CUDA runtime, cuBLAS) that is not installed
    ModuleBroken,   // the module is there but could not be loaded for another reason
    ModuleMismatch, // the module belongs to another version of Hearth
    NoDriver,       // no NVIDIA driver is installed
    DriverBroken,   // the driver is installed but does not work (kernel module not loaded?)
    DriverTooOld,   // the driver supports an older CUDA than the module needs
    NoDevice,       // the driver sees no NVIDIA GPU
    CudaError,      // CUDA failed to start for another reason
};
const char* cudaUnavailableName(CudaUnavailable reason); // "none", "not_built", "module_missing", ...

struct DeviceReport {
    std::vector<DeviceInfo> devices; // the CPU first, then each usable CUDA device
    bool cudaBuilt = false;          // this build includes the CUDA backend module
    CudaUnavailable cudaUnavailable = CudaUnavailable::None;
    // The same in the engine's words, with the details a log needs (the missing library, the
    // driver and runtime versions); empty when at least one CUDA device is listed.
    std::string cudaUnavailableReason;
};

// Probes the CPU and (by loading the CUDA backend module at run time) the NVIDIA GPUs.
// Never fails: problems end up in cudaUnavailable and cudaUnavailableReason. The result is
// cached after the first call.
const DeviceReport& probeDevices();
// The CPU with its memory read now (probeDevices() keeps its first reading).
DeviceInfo probeCpuNow();

const char* deviceKindName(DeviceKind kind); // "cpu" / "cuda"

// This machine's memory read bandwidth in GB/s, measured now: `threads` threads (0: all hardware
// threads) each sum their slice of a buffer far larger than the caches (twice the last-level cache,
// at least 256 MiB, at most an eighth of the memory); the best of a few passes. Takes about half a
// second to a second; the CPU decode bound (hearth-cli bench, the app's "will it
// fit") divides it by the bytes a token reads. 0 when the buffer cannot be allocated.
double measureCpuReadBandwidthGBps(int threads = 0);

// One matrix product on the CPU's kernels, timed (hearth-cli bench --matvec): a rows × cols
// matrix of a GGUF type ("Q4_K", "Q8_0", "F16", ...; any case) of random weights (64 random rows
// repeated down the matrix: quantizing every row would take seconds), times
// `tokens` random vectors (1: decode's matrix-vector product), on `threads` threads (0: all),
// the fast kernels or the reference; `reps` timed runs after a warm-up. The same matrix every
// run, as ggml's test-backend-ops times its products (a matrix smaller than the last-level cache
// is then read from the cache). Errors: InvalidArgument (an unknown or unsupported type, cols
// not a whole number of the type's blocks, sizes out of range), OutOfMemory.
struct CpuMatVecTiming {
    double medianMicroseconds = 0;
    double bestMicroseconds = 0;
    uint64_t weightBytes = 0; // the matrix as stored: what one product reads
};
Result<CpuMatVecTiming> timeCpuMatVec(const std::string& type, int64_t rows, int64_t cols, int tokens, int threads,
                                      bool fastKernels, int reps);

// The CPU thread pool's cost per job (hearth-cli bench --pool): `reps` jobs of next to no work on
// `threads` threads (0: all), split as the decode step splits a product — fixed parts, one a
// thread, and claimed ranges (768 rows in grains of 16: a small-100m product's rows) —, each timed
// from the call to the return. What a small model pays per product beyond reading its weights.
// Errors: InvalidArgument (reps < 1, threads < 0).
struct CpuPoolTiming {
    double fixedMedianMicroseconds = 0;
    double claimedMedianMicroseconds = 0;
};
Result<CpuPoolTiming> timeCpuPoolJobs(int threads, int reps);

} // namespace hearth
