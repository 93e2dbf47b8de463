// Device discovery: the CPU from /proc, CUDA devices through the run-time loaded backend module.
#include "hearth/devices.h"

#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "backend/cuda_module.h"

namespace hearth {
namespace {

uint64_t meminfoBytes(const std::string& field) {
    std::ifstream in("/proc/meminfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind(field + ":", 0) == 0) {
            std::istringstream is(line.substr(field.size() + 1));
            uint64_t kib = 0;
            is >> kib;
            return kib * 1024;
        }
    }
    return 0;
}

std::string cpuModelName() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("model name", 0) == 0) {
            auto colon = line.find(':');
            if (colon != std::string::npos) {
                std::string name = line.substr(colon + 1);
                name.erase(0, name.find_first_not_of(" \t"));
                return name;
            }
        }
    }
    return "CPU";
}

} // namespace

DeviceInfo probeCpuNow() {
    DeviceInfo cpu;
    cpu.kind = DeviceKind::Cpu;
    unsigned threads = std::thread::hardware_concurrency();
    cpu.name = cpuModelName() + " (" + std::to_string(threads ? threads : 1) + " threads)";
    cpu.totalBytes = meminfoBytes("MemTotal");
    cpu.freeBytes = meminfoBytes("MemAvailable");
    return cpu;
}

namespace {

void setUnavailable(DeviceReport& report, CudaUnavailable why, std::string words) {
    report.cudaUnavailable = why;
    report.cudaUnavailableReason = std::move(words);
}

CudaUnavailable probeFailure(int code) {
    switch (code) {
    case 0: return CudaUnavailable::NoDevice;
    case HEARTH_CUDA_PROBE_NO_DRIVER: return CudaUnavailable::NoDriver;
    case HEARTH_CUDA_PROBE_DRIVER_BROKEN: return CudaUnavailable::DriverBroken;
    case HEARTH_CUDA_PROBE_DRIVER_TOO_OLD: return CudaUnavailable::DriverTooOld;
    default: return CudaUnavailable::CudaError;
    }
}

void probeCuda(DeviceReport& report) {
    const CudaModule& module = CudaModule::instance();
    report.cudaBuilt = module.failure() != CudaUnavailable::NotBuilt;
    if (!module.usable()) return setUnavailable(report, module.failure(), module.failureReason());
    const HearthCudaProbeFn probe = module.probe();
    HearthCudaDevice devices[16];
    char error[512] = {};
    int count = probe(devices, 16, error, sizeof error);
    for (int i = 0; i < count; ++i) {
        DeviceInfo info;
        info.kind = DeviceKind::Cuda;
        info.index = i;
        info.name = devices[i].name;
        info.totalBytes = devices[i].totalBytes;
        info.freeBytes = devices[i].freeBytes;
        info.computeCapability = std::to_string(devices[i].major) + "." + std::to_string(devices[i].minor);
        report.devices.push_back(info);
    }
    if (count <= 0) setUnavailable(report, probeFailure(count), error[0] ? error : "no CUDA device found");
}

} // namespace

const DeviceReport& probeDevices() {
    static const DeviceReport report = [] {
        DeviceReport r;
        r.devices.push_back(probeCpuNow());
        probeCuda(r);
        return r;
    }();
    return report;
}

const char* deviceKindName(DeviceKind kind) {
    switch (kind) {
    case DeviceKind::Cpu: return "cpu";
    case DeviceKind::Cuda: return "cuda";
    case DeviceKind::Auto: return "auto";
    }
    return "unknown";
}

const char* cudaUnavailableName(CudaUnavailable reason) {
    switch (reason) {
    case CudaUnavailable::None: return "none";
    case CudaUnavailable::NotBuilt: return "not_built";
    case CudaUnavailable::ModuleMissing: return "module_missing";
    case CudaUnavailable::LibraryMissing: return "library_missing";
    case CudaUnavailable::ModuleBroken: return "module_broken";
    case CudaUnavailable::ModuleMismatch: return "module_mismatch";
    case CudaUnavailable::NoDriver: return "no_driver";
    case CudaUnavailable::DriverBroken: return "driver_broken";
    case CudaUnavailable::DriverTooOld: return "driver_too_old";
    case CudaUnavailable::NoDevice: return "no_device";
    case CudaUnavailable::CudaError: return "cuda_error";
    }
    return "unknown";
}

} // namespace hearth
