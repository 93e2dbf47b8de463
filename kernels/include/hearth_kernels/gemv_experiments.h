// GEMV tuning experiments, kept selectable for hearth-bench-kernels (and checked by cuda.gemv)
// so their measurements can be repeated; docs/PERFORMANCE.md says what each one measured. Not
// for the engine: it uses gemv.h, which always runs variant 0, the measured best.
#pragma once

#include "hearth_kernels/gemv.h"

namespace hearth::kernels {

// Bits of GemvExperiment::variant.
enum GemvVariant : int {
    kGemvQ4K32Units = 1,    // Q4_K with 32-element units
    kGemvPairsBypassL1 = 2, // paired 16-byte weight loads bypass L1 (Q4_K/Q5_K/Q6_K/Q8_0)
    kGemvPipelinedK = 4,    // software-pipelined k loop (every type)
};

// A launch with experiment bits; variant 0 is exactly launchGemv/launchGemvGateUp.
struct GemvExperiment : GemvLaunch {
    int variant = 0;
};

cudaError_t launchGemvExperiment(GemvType type, const void* w, const void* x, float* y, int n, int k,
                                 cudaStream_t stream, const GemvExperiment& opt);
cudaError_t launchGemvGateUpExperiment(GemvType type, const void* wg, const void* wu, const void* x, float* y,
                                       int n, int k, cudaStream_t stream, const GemvExperiment& opt);

} // namespace hearth::kernels
