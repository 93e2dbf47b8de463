#include "backend/cuda/device_health.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace hearth::cuda {
namespace {

std::mutex g_mutex;
bool g_lost = false;
std::string g_reason;
std::atomic<int> g_decodes{0};

bool isSticky(cudaError_t err) {
    switch (err) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorContextIsDestroyed:
    case cudaErrorDevicesUnavailable: return true;
    default: return false;
    }
}

} // namespace

Fault injectedFault() {
    static const Fault fault = [] {
        const char* v = std::getenv("HEARTH_FAULT");
        if (!v) return Fault::None;
        if (!std::strcmp(v, "oom-load")) return Fault::OomLoad;
        if (!std::strcmp(v, "oom-step")) return Fault::OomStep;
        if (!std::strcmp(v, "nonsticky")) return Fault::NonSticky;
        if (!std::strcmp(v, "sticky")) return Fault::Sticky;
        return Fault::None;
    }();
    return fault;
}

bool faultStepNow() {
    static const int step = [] {
        const char* v = std::getenv("HEARTH_FAULT_STEP");
        return v ? std::max(1, std::atoi(v)) : 2;
    }();
    return g_decodes.fetch_add(1) + 1 == step;
}

Status deviceHealth() {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (!g_lost) return Status::ok();
    return Status(StatusCode::DeviceLost, g_reason);
}

Status classifyFailure(Status failed) {
    if (failed.isOk() || failed.code() == StatusCode::DeviceLost) return failed;
    // A sticky error shows again on every call; a non-sticky one is consumed by reading it.
    cudaGetLastError();
    const cudaError_t sync = cudaDeviceSynchronize();
    const cudaError_t again = cudaGetLastError();
    const cudaError_t err = isSticky(sync) ? sync : again;
    if (!isSticky(err)) return failed;
    std::lock_guard<std::mutex> lock(g_mutex);
    g_lost = true;
    g_reason = std::string("the GPU must be reset: restart Hearth (") + cudaGetErrorName(err) + ": " +
               cudaGetErrorString(err) + "; it happened during: " + failed.message() + ")";
    return Status(StatusCode::DeviceLost, g_reason);
}

} // namespace hearth::cuda
