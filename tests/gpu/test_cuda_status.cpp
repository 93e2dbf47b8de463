// HEARTH_CUDA_CHECK (engine/backend/cuda/cuda_status.h): a failed CUDA call becomes a Status with
// the matching code and a message that names the call, the CUDA error and file:line; a call that
// succeeds falls through. Needs the CUDA runtime library but no device: the launcher used here
// refuses its arguments before it touches one.
#include "gpu_test.h"

HEARTH_GPU_TEST_NEEDS_KERNELS("cuda_status")
#ifdef HEARTH_HAVE_KERNELS

#include <string>

#include "backend/cuda/cuda_status.h"
#include "hearth_kernels/gemv.h"

using namespace hearth;

namespace {

cudaError_t fails(cudaError_t e) { return e; }

int gReached = 0;   // calls that got past the check
int gCheckLine = 0; // the line of the check in `check`

Status check(cudaError_t e) {
    gCheckLine = __LINE__ + 1;
    HEARTH_CUDA_CHECK(fails(e));
    ++gReached;
    return Status::ok();
}

Result<int> checkInResult(cudaError_t e) {
    HEARTH_CUDA_CHECK(fails(e));
    return 7;
}

Status launchQ4K(int k) {
    HEARTH_CUDA_CHECK(kernels::launchGemv(kernels::GemvType::Q4_K, nullptr, nullptr, nullptr, 8, k, nullptr));
    return Status::ok();
}

} // namespace

int main() {
    test::startGpuTest("cuda_status", /*needsDevice=*/false);

    CHECK_OK(check(cudaSuccess));
    CHECK_EQ(gReached, 1);

    const std::string where = "test_cuda_status.cpp:" + std::to_string(gCheckLine);
    CHECK_ERR(check(cudaErrorMemoryAllocation), StatusCode::OutOfMemory, "fails(e): ");
    CHECK_ERR(check(cudaErrorMemoryAllocation), StatusCode::OutOfMemory, "(cudaErrorMemoryAllocation)");
    CHECK_ERR(check(cudaErrorMemoryAllocation), StatusCode::OutOfMemory, where);
    CHECK_ERR(check(cudaErrorLaunchFailure), StatusCode::Internal, "(cudaErrorLaunchFailure) at " + where);
    CHECK_EQ(gReached, 1); // a failure returned before the rest of the function

    const Result<int> ok = checkInResult(cudaSuccess);
    CHECK(ok.isOk() && ok.value() == 7);
    CHECK_ERR(checkInResult(cudaErrorMemoryAllocation), StatusCode::OutOfMemory, "fails(e)");

    // A launcher's refusal names the launch as written.
    CHECK_ERR(launchQ4K(100), StatusCode::InvalidArgument, "kernels::launchGemv(kernels::GemvType::Q4_K");
    CHECK_ERR(launchQ4K(100), StatusCode::InvalidArgument, "(cudaErrorInvalidValue)");
    return test::finish();
}

#endif // HEARTH_HAVE_KERNELS
