// The element-wise activations as the CPU reference defines them (engine/backend/cpu/cpu_ops.h):
// one copy for every kernel that applies them outside a GEMV (the GEMV's fused SwiGLU uses the
// fast __expf form of its own, gemv_kernel.cuh).
#pragma once

#include <cuda_runtime.h>

namespace hearth::kernels::detail {

__device__ __forceinline__ float sigmoidOf(float x) { return 1.0f / (1.0f + expf(-x)); }
__device__ __forceinline__ float siluOf(float x) { return x / (1.0f + expf(-x)); }

} // namespace hearth::kernels::detail
