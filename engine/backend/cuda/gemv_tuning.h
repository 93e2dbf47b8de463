// Rows per block for a model's decode GEMVs, measured on the GPU that runs them.
//
// How many output rows a GEMV block takes decides how the grid falls into waves over the SMs,
// and the best choice follows no rule of the shape: on an H200 it moves by up to a third between
// neighbouring shapes (docs/PERFORMANCE.md, 2026-12-02), and a consumer card's 46-128 SMs move it
// again. So each shape the decode step runs is timed once, with every choice, over all of the
// model's matrices of that shape in one CUDA graph launched as the step launches them, and the
// fastest is kept. The choice changes no result: a row's sum runs in the same order whatever the
// rows per block (gemv_kernel.cuh). Likewise whether a layer's two projection runs of different
// types go in one launch (launchGemvPair, bit-identical to two): it saves a hand-over between
// kernels on some shapes and costs on others (docs/PERFORMANCE.md, 2026-12-02, sixth session).
#pragma once

#include <cuda_runtime.h>

#include <map>
#include <set>
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

// A layer's two projection runs that launchGemvPair could take in one launch (one x, one k).
struct GemvPairSite {
    GemvSite first, second;
};

class GemvTuning {
public:
    // GemvLaunch::rowsPerBlock for matrix m (the gate of a fused gate+up when gateUp): 0 keeps
    // the kernel's own choice.
    int rowsPerBlock(const DeviceMatrix& m, bool gateUp) const;
    // Whether projection runs a then b go in one launch (launchGemvPair).
    bool paired(const DeviceMatrix& a, const DeviceMatrix& b) const;

    // Times the sites shape by shape, then the pairs shape by shape at the rows chosen. A shape
    // is left to the kernel's choice (a pair to two launches) when its matrices together are
    // less than twice the L2 (the step finds none of them there; a timing that did would measure
    // the L2) or when no choice beats it by more than the noise. `base` is how the step
    // launches (PDL). Leaves nothing enqueued on `stream`.
    static Result<GemvTuning> measure(const std::vector<GemvSite>& sites, const std::vector<GemvPairSite>& pairs,
                                      const kernels::GemvLaunch& base, cudaStream_t stream);

    // Sets a choice directly (tests: every choice must give the same logits).
    void set(const DeviceMatrix& m, bool gateUp, int rows);
    void setPaired(const DeviceMatrix& a, const DeviceMatrix& b);

    // A GEMV shape: type, n, k, and whether it is a fused gate+up.
    using Shape = std::tuple<int, int, int, bool>;
    static Shape shapeOf(const DeviceMatrix& m, bool gateUp) { return {int(m.type), m.n, m.k, gateUp}; }
    // A pair's shape: both matrices' types and rows, and their k.
    using PairShape = std::tuple<int, int, int, int, int>;
    static PairShape pairShapeOf(const DeviceMatrix& a, const DeviceMatrix& b) {
        return {int(a.type), a.n, int(b.type), b.n, a.k};
    }

private:
    std::map<Shape, int> m_rows;      // the shapes whose choice is not the kernel's own
    std::set<PairShape> m_pairs;      // the pair shapes that run as one launch
};

} // namespace hearth::cuda
