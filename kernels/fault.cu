// Test-only faults (HEARTH_FAULT, engine/backend/cuda/device_health.cpp): a kernel that writes to an
// address no allocation owns, which leaves the context with a sticky "illegal address" error as a
// real bug would.
#include "hearth_kernels/ops.h"

namespace hearth::kernels {
namespace {

__global__ void illegalWriteKernel(float* p) { p[threadIdx.x] = 1.0f; }

} // namespace

cudaError_t launchFaultIllegalAddress(cudaStream_t stream) {
    illegalWriteKernel<<<1, 32, 0, stream>>>(reinterpret_cast<float*>(uintptr_t(0x10)));
    return cudaGetLastError();
}

} // namespace hearth::kernels
