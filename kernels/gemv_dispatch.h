// What the public GEMV entries (gemv.cu) hand to each weight family (gemv_<type>.cu), after
// checking the type, the shape and the pointers once for all of them.
#pragma once

#include <cuda_runtime.h>

#include "hearth_kernels/gemv.h"

namespace hearth::kernels::detail {

struct GemvCall {
    const void* wa;
    const void* wb; // the up matrix of gate+up (glu), else null
    const void* x;
    float* y;
    int n;
    int k;
    cudaStream_t stream;
    GemvLaunch opt;
    bool glu;    // fused gate + up + SiLU
    int variant; // GemvExperiment::variant (gemv_experiments.h); 0 from launchGemv
};

cudaError_t gemvQ4K(const GemvCall& call);
cudaError_t gemvQ5K(const GemvCall& call);
cudaError_t gemvQ6K(const GemvCall& call);
cudaError_t gemvQ8_0(const GemvCall& call);
cudaError_t gemvQ4_0(const GemvCall& call);
cudaError_t gemvBF16(const GemvCall& call);
cudaError_t gemvGeneric(GemvType type, const GemvCall& call); // F32, F16, Q5_0
// Two matrices in one launch (gemv_pair.cu; launchGemvPair checked the rest).
bool gemvPairTakes(GemvType first, GemvType second);
cudaError_t gemvPair(const GemvMatrix& first, const GemvMatrix& second, const void* x, int k, cudaStream_t stream,
                     bool pdl);

// GGUF rows -> the repacked device layout (shape and pointers already checked).
cudaError_t repackQ6K(const void* gguf, void* dst, int n, int k, cudaStream_t stream);
cudaError_t repackQ8_0(const void* gguf, void* dst, int n, int k, cudaStream_t stream);
cudaError_t repackQ4_0(const void* gguf, void* dst, int n, int k, cudaStream_t stream);

} // namespace hearth::kernels::detail
