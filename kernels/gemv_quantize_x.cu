// x (fp32) -> X8: int8 values with one scale per 32 elements (gemv.h). Groups of 32 match the
// blocks of every quantized format (a Q4_K/Q5_K sub-block, two Q6_K sub-blocks, a Q8_0/Q4_0
// block), so a GEMV needs one int->float conversion per group; the stored integer half-sums
// let Q6_K (−32) and Q4_0 (−8) fold their offsets into the integer dot product, and d·Σq turns
// the K-quant mins into one multiply. A warp quantizes one group: max and sums by shuffles.
#include "gemv_kernel.cuh"
#include "x8_group.cuh"

namespace hearth::kernels {
namespace {

static __global__ void quantizeX8Kernel(const float* __restrict__ x, int k, int8_t* __restrict__ xq) {
    // The next kernel may be scheduled at once: it waits for our completion (griddepcontrol.wait
    // covers the whole chain of prerequisites) before it reads xq, and a GEMV uses the time to
    // fetch weights. x is the previous kernel's output: wait for it.
    detail::pdlTrigger();
    detail::pdlWait();
    const int i = blockIdx.x * blockDim.x + threadIdx.x; // k % 32 == 0: warps never straddle groups
    if (i - int(threadIdx.x & 31) >= k) return;          // whole warp past the end
    detail::storeX8Group(x[i], int(threadIdx.x & 31), k, i >> 5, xq);
}

} // namespace

cudaError_t launchQuantizeX8(const float* x, int k, void* xq, cudaStream_t stream, const GemvLaunch& opt) {
    if (!x || !xq || k <= 0 || k % 32 != 0) return cudaErrorInvalidValue;
    return detail::launchEx(quantizeX8Kernel, unsigned((k + 255) / 256), 256u, stream, opt.pdl, x, k,
                            static_cast<int8_t*>(xq));
}

} // namespace hearth::kernels
