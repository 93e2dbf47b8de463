// Device discovery: the CPU from /proc, CUDA devices through the run-time loaded backend module.
#include "hearth/devices.h"

#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "backend/cuda_module_abi.h"

namespace hearth {
namespace {
namespace fs = std::filesystem;

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

// Where the CUDA module may be: $HEARTH_CUDA_MODULE, beside the executable's lib folders (build
// tree and install tree), then the loader's own search path.
std::vector<std::string> moduleCandidates(const std::string& moduleName) {
    std::vector<std::string> out;
    if (const char* env = std::getenv("HEARTH_CUDA_MODULE"); env && *env) out.emplace_back(env);
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        fs::path dir = exe.parent_path();
        for (const fs::path& rel : {fs::path("lib"), fs::path("../lib"), fs::path("../lib/hearth"),
                                    fs::path("../../lib")}) {
            fs::path candidate = dir / rel / moduleName;
            if (fs::exists(candidate, ec)) out.push_back(candidate.lexically_normal().string());
        }
    }
    out.push_back(moduleName);
    return out;
}

void setUnavailable(DeviceReport& report, CudaUnavailable why, std::string words) {
    report.cudaUnavailable = why;
    report.cudaUnavailableReason = std::move(words);
}

// dlerror's "libcudart.so.13: cannot open shared object file: ..." in plain words: which
// library is missing (libcuda is the driver's).
void moduleLoadFailure(DeviceReport& report, const std::string& moduleName, const std::string& error) {
    const size_t missing = error.find(": cannot open shared object file");
    if (missing == std::string::npos)
        return setUnavailable(report, CudaUnavailable::ModuleBroken, "the CUDA backend could not be loaded (" + error + ")");
    const std::string library = error.substr(0, missing);
    const std::string file = fs::path(library).filename().string();
    if (file == moduleName)
        return setUnavailable(report, CudaUnavailable::ModuleMissing, "the CUDA backend could not be loaded: its module " +
                                                                          moduleName + " is missing from this installation");
    if (file.rfind("libcuda.so", 0) == 0)
        return setUnavailable(report, CudaUnavailable::NoDriver,
                              "the CUDA backend could not be loaded: no NVIDIA driver is installed (" + file + " was not found)");
    setUnavailable(report, CudaUnavailable::LibraryMissing,
                   "the CUDA backend could not be loaded: it needs " + library + ", which is not installed");
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
    const std::string moduleName = HEARTH_CUDA_MODULE_NAME;
    report.cudaBuilt = !moduleName.empty();
    if (!report.cudaBuilt) {
        return setUnavailable(report, CudaUnavailable::NotBuilt, "this build of Hearth has no CUDA backend");
    }
    void* handle = nullptr;
    std::string firstError; // of the first module file that exists: why it would not load
    for (const std::string& candidate : moduleCandidates(moduleName)) {
        handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle) break;
        const char* error = dlerror();
        std::error_code ec;
        if (firstError.empty() && error && (fs::exists(candidate, ec) || candidate == moduleName)) firstError = error;
    }
    if (!handle) {
        return moduleLoadFailure(report, moduleName, firstError);
    }
    // The module stays loaded for the life of the process (the backend will use it).
    auto version = reinterpret_cast<HearthCudaAbiVersionFn>(dlsym(handle, "hearth_cuda_abi_version"));
    auto probe = reinterpret_cast<HearthCudaProbeFn>(dlsym(handle, "hearth_cuda_probe"));
    if (!version || !probe || version() != HEARTH_CUDA_ABI_VERSION) {
        return setUnavailable(report, CudaUnavailable::ModuleMismatch,
                              "the CUDA backend module does not match this version of Hearth");
    }
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
    return kind == DeviceKind::Cuda ? "cuda" : "cpu";
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
