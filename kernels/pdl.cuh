// Programmatic dependent launch (sm_90+): a kernel launched with `pdl` may start while the kernel
// before it in the stream finishes. Such a kernel calls pdlWait() before it reads anything its
// predecessors wrote (work before that — a GEMV's first weight loads — overlaps their tail), and
// pdlTrigger() to let its own successor be scheduled. Both are no-ops for a plain launch and
// below sm_90, so every kernel of a decode step can carry them and the step launches it either way.
#pragma once

#include <cuda_runtime.h>

namespace hearth::kernels::detail {

// Wait for the previous kernel's memory (no-op when not launched as a dependent).
__device__ __forceinline__ void pdlWait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
// Allow the next kernel in the stream to be scheduled (its prologue overlaps our tail).
__device__ __forceinline__ void pdlTrigger() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;");
#endif
}

template <class Kern, class... Args>
cudaError_t launchEx(Kern kernel, dim3 grid, dim3 block, size_t sharedBytes, cudaStream_t stream, bool pdl,
                     Args... args) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = sharedBytes;
    cfg.stream = stream;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = attr;
    cfg.numAttrs = pdl ? 1 : 0;
    return cudaLaunchKernelEx(&cfg, kernel, args...);
}

template <class Kern, class... Args>
cudaError_t launchEx(Kern kernel, unsigned grid, unsigned block, cudaStream_t stream, bool pdl, Args... args) {
    return launchEx(kernel, dim3(grid), dim3(block), 0, stream, pdl, args...);
}

} // namespace hearth::kernels::detail
