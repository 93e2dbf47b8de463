// Rows per block for a model's decode GEMVs, measured on the GPU that runs them.
//
// How many output rows a GEMV block takes decides how the grid falls into waves over the SMs,
// and the best choice follows no rule of the shape: on an H200 it moves by up to a third between
// neighbouring shapes (docs/PERFORMANCE.md, 2026-12-02), and a consumer card's 46-128 SMs move it
// again. So each shape the decode step runs is timed once, with every choice, over all of the
// model's matrices of that shape in one CUDA graph launched as the step launches them, and the
// fastest is kept. The choice changes no result: a row's sum runs in the same order whatever the
// rows per block (gemv_kernel.cuh).
#pragma once

#include <cuda_runtime.h>

#include <map>
#include <tuple>
#include <vector>

#include "backend/cuda/device_weights.h"
#include "hearth/status.h"
#include "hearth_kernels/gemv.h"

namespace hearth::cuda {

// One GEMV of the decode step as the session launches it: y = a·x, or for a fused gate+up
// (b = up) y = silu(a·x)·(b·x).
struct GemvSite {
    const DeviceMatrix* a = nullptr;
    const DeviceMatrix* b = nullptr;
    const void* x = nullptr;
    float* y = nullptr;
};

class GemvTuning {
public:
    // GemvLaunch::rowsPerBlock for matrix m (the gate of a fused gate+up when gateUp): 0 keeps
    // the kernel's own choice.
    int rowsPerBlock(const DeviceMatrix& m, bool gateUp) const;
    int tunedShapes() const { return int(m_rows.size()); }

    // Times the sites shape by shape. A shape is left to the kernel's choice when its matrices
    // together are less than twice the L2 (the step finds none of them there; a timing that
    // did would measure the L2) or when no choice beats the kernel's by more than the noise.
    // `base` is how the step launches (PDL). Leaves nothing enqueued on `stream`.
    static Result<GemvTuning> measure(const std::vector<GemvSite>& sites, const kernels::GemvLaunch& base,
                                      cudaStream_t stream);

    // Sets a choice directly (tests: every choice must give the same logits).
    void set(const DeviceMatrix& m, bool gateUp, int rows);

    // A GEMV shape: type, n, k, and whether it is a fused gate+up.
    using Shape = std::tuple<int, int, int, bool>;
    static Shape shapeOf(const DeviceMatrix& m, bool gateUp) { return {int(m.type), m.n, m.k, gateUp}; }

private:
    std::map<Shape, int> m_rows; // the shapes whose choice is not the kernel's own
};

} // namespace hearth::cuda
