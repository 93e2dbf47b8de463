#include "backend/cuda/gemv_tuning.h"

#include <algorithm>

#include "backend/cuda/cuda_status.h"

namespace hearth::cuda {
namespace {

using kernels::GemvType;

// Timed replays of each choice's graph (after one untimed), interleaved across the choices so
// that a slow moment of the GPU does not fall on one choice only; the median is compared.
constexpr int kReplays = 5;
// A choice replaces the kernel's own only when it is this much faster: the medians of one
// choice move by about 1 % from call to call.
constexpr double kMinGain = 0.02;

cudaError_t launchSite(const GemvSite& s, const kernels::GemvLaunch& opt, cudaStream_t stream) {
    if (s.b)
        return kernels::launchGemvGateUp(s.a->type, s.a->data, s.b->data, s.x, s.y, s.a->n, s.a->k, stream, opt);
    return kernels::launchGemv(s.a->type, s.a->data, s.x, s.y, s.a->n, s.a->k, stream, opt);
}

// The graph of every site of one shape with rows-per-block `rows` (0: the kernel's choice).
Result<cudaGraphExec_t> captureShape(const std::vector<const GemvSite*>& sites, kernels::GemvLaunch opt, int rows,
                                     cudaStream_t stream) {
    opt.rowsPerBlock = rows;
    HEARTH_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    cudaError_t launched = cudaSuccess;
    for (const GemvSite* s : sites)
        if (launched == cudaSuccess) launched = launchSite(*s, opt, stream);
    cudaGraph_t graph = nullptr;
    const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
    HEARTH_CUDA_CHECK(launched);
    HEARTH_CUDA_CHECK(ended);
    cudaGraphExec_t exec = nullptr;
    const cudaError_t made = cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphDestroy(graph);
    HEARTH_CUDA_CHECK(made);
    return exec;
}

struct Graphs {
    std::vector<cudaGraphExec_t> exec;
    ~Graphs() {
        for (cudaGraphExec_t e : exec)
            if (e) cudaGraphExecDestroy(e);
    }
};

struct Events {
    cudaEvent_t start = nullptr, stop = nullptr;
    ~Events() {
        if (start) cudaEventDestroy(start);
        if (stop) cudaEventDestroy(stop);
    }
};

// Median milliseconds of each choice's graph.
Result<std::vector<double>> timeChoices(const std::vector<const GemvSite*>& sites, const kernels::GemvLaunch& base,
                                        const std::vector<int>& choices, cudaStream_t stream) {
    Graphs graphs;
    for (int rows : choices) {
        HEARTH_ASSIGN(cudaGraphExec_t exec, captureShape(sites, base, rows, stream));
        graphs.exec.push_back(exec);
    }
    Events ev;
    HEARTH_CUDA_CHECK(cudaEventCreate(&ev.start));
    HEARTH_CUDA_CHECK(cudaEventCreate(&ev.stop));
    for (cudaGraphExec_t e : graphs.exec) HEARTH_CUDA_CHECK(cudaGraphLaunch(e, stream)); // untimed
    std::vector<std::vector<double>> ms(choices.size());
    for (int r = 0; r < kReplays; ++r)
        for (size_t c = 0; c < choices.size(); ++c) {
            HEARTH_CUDA_CHECK(cudaEventRecord(ev.start, stream));
            HEARTH_CUDA_CHECK(cudaGraphLaunch(graphs.exec[c], stream));
            HEARTH_CUDA_CHECK(cudaEventRecord(ev.stop, stream));
            HEARTH_CUDA_CHECK(cudaEventSynchronize(ev.stop));
            float t = 0;
            HEARTH_CUDA_CHECK(cudaEventElapsedTime(&t, ev.start, ev.stop));
            ms[c].push_back(t);
        }
    std::vector<double> median;
    for (std::vector<double>& m : ms) {
        std::nth_element(m.begin(), m.begin() + kReplays / 2, m.end());
        median.push_back(m[kReplays / 2]);
    }
    return median;
}

} // namespace

int GemvTuning::rowsPerBlock(const DeviceMatrix& m, bool gateUp) const {
    const auto found = m_rows.find(shapeOf(m, gateUp));
    return found == m_rows.end() ? 0 : found->second;
}

void GemvTuning::set(const DeviceMatrix& m, bool gateUp, int rows) { m_rows[shapeOf(m, gateUp)] = rows; }

Result<GemvTuning> GemvTuning::measure(const std::vector<GemvSite>& sites, const kernels::GemvLaunch& base,
                                       cudaStream_t stream) {
    int device = 0, l2Bytes = 0;
    HEARTH_CUDA_CHECK(cudaGetDevice(&device));
    HEARTH_CUDA_CHECK(cudaDeviceGetAttribute(&l2Bytes, cudaDevAttrL2CacheSize, device));
    std::map<Shape, std::vector<const GemvSite*>> shapes;
    for (const GemvSite& s : sites)
        if (kernels::gemvTakesRowsPerBlock(s.a->type)) shapes[shapeOf(*s.a, s.b != nullptr)].push_back(&s);

    GemvTuning tuning;
    for (const auto& [key, group] : shapes) {
        const DeviceMatrix& m = *group.front()->a;
        const bool gateUp = std::get<3>(key);
        const uint64_t bytes = uint64_t(group.size()) * (gateUp ? 2 : 1) * kernels::gemvRowBytes(m.type, m.k) * m.n;
        if (bytes < 2 * uint64_t(l2Bytes)) continue;
        std::vector<int> choices = {0, 1, 2, 4}; // 0 first: the kernel's own choice
        if (!gateUp) choices.push_back(8);
        HEARTH_ASSIGN(std::vector<double> ms, timeChoices(group, base, choices, stream));
        size_t best = 0;
        for (size_t c = 1; c < choices.size(); ++c)
            if (ms[c] < ms[best]) best = c;
        if (best != 0 && ms[best] < (1.0 - kMinGain) * ms[0]) tuning.set(m, gateUp, choices[best]);
    }
    return tuning;
}

} // namespace hearth::cuda
