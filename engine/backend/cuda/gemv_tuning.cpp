#include "backend/cuda/gemv_tuning.h"

#include <algorithm>
#include <functional>

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

// Enqueues one choice's launches on the stream (captured into a graph).
using Enqueue = std::function<cudaError_t(cudaStream_t)>;

Result<cudaGraphExec_t> capture(const Enqueue& enqueue, cudaStream_t stream) {
    HEARTH_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    const cudaError_t launched = enqueue(stream);
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
Result<std::vector<double>> timeChoices(const std::vector<Enqueue>& choices, cudaStream_t stream) {
    Graphs graphs;
    for (const Enqueue& e : choices) {
        HEARTH_ASSIGN(cudaGraphExec_t exec, capture(e, stream));
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

// Every site of one shape with rows-per-block `rows` (0: the kernel's choice).
Enqueue rowsChoice(const std::vector<const GemvSite*>& sites, kernels::GemvLaunch opt, int rows) {
    opt.rowsPerBlock = rows;
    return [sites, opt](cudaStream_t stream) {
        for (const GemvSite* s : sites)
            if (const cudaError_t e = launchSite(*s, opt, stream); e != cudaSuccess) return e;
        return cudaSuccess;
    };
}

kernels::GemvMatrix pairPart(const GemvSite& s, const GemvTuning& t) {
    return {s.a->type, s.a->data, s.y, s.a->n, t.rowsPerBlock(*s.a, false)};
}

// Every pair of one shape as two launches (paired = false) or one (true), at the rows chosen.
Enqueue pairChoice(const std::vector<const GemvPairSite*>& sites, const kernels::GemvLaunch& base,
                   const GemvTuning& t, bool paired) {
    return [sites, base, &t, paired](cudaStream_t stream) {
        for (const GemvPairSite* p : sites) {
            cudaError_t e = cudaSuccess;
            if (paired) {
                e = kernels::launchGemvPair(pairPart(p->first, t), pairPart(p->second, t), p->first.x,
                                            p->first.a->k, stream, base.pdl);
            } else {
                for (const GemvSite* s : {&p->first, &p->second}) {
                    kernels::GemvLaunch opt = base;
                    opt.rowsPerBlock = t.rowsPerBlock(*s->a, false);
                    if (e == cudaSuccess) e = launchSite(*s, opt, stream);
                }
            }
            if (e != cudaSuccess) return e;
        }
        return cudaSuccess;
    };
}

} // namespace

int GemvTuning::rowsPerBlock(const DeviceMatrix& m, bool gateUp) const {
    const auto found = m_rows.find(shapeOf(m, gateUp));
    return found == m_rows.end() ? 0 : found->second;
}

void GemvTuning::set(const DeviceMatrix& m, bool gateUp, int rows) { m_rows[shapeOf(m, gateUp)] = rows; }

bool GemvTuning::paired(const DeviceMatrix& a, const DeviceMatrix& b) const {
    return m_pairs.count(pairShapeOf(a, b)) > 0;
}

void GemvTuning::setPaired(const DeviceMatrix& a, const DeviceMatrix& b) { m_pairs.insert(pairShapeOf(a, b)); }

Result<GemvTuning> GemvTuning::measure(const std::vector<GemvSite>& sites, const std::vector<GemvPairSite>& pairs,
                                       const kernels::GemvLaunch& base, cudaStream_t stream) {
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
        std::vector<int> rows = {0, 1, 2, 4}; // 0 first: the kernel's own choice
        if (!gateUp) rows.push_back(8);
        std::vector<Enqueue> choices;
        for (int r : rows) choices.push_back(rowsChoice(group, base, r));
        HEARTH_ASSIGN(std::vector<double> ms, timeChoices(choices, stream));
        size_t best = 0;
        for (size_t c = 1; c < rows.size(); ++c)
            if (ms[c] < ms[best]) best = c;
        if (best != 0 && ms[best] < (1.0 - kMinGain) * ms[0]) tuning.set(m, gateUp, rows[best]);
    }

    // Then each pair shape, at the rows just chosen: one launch where it beats two by more than
    // the noise (on an H200 it did on Qwen3-8B and Qwen3.5-27B and lost on Qwen3-32B).
    std::map<PairShape, std::vector<const GemvPairSite*>> pairShapes;
    for (const GemvPairSite& p : pairs)
        if (kernels::gemvPairSupported(p.first.a->type, p.second.a->type))
            pairShapes[pairShapeOf(*p.first.a, *p.second.a)].push_back(&p);
    for (const auto& [key, group] : pairShapes) {
        const DeviceMatrix &a = *group.front()->first.a, &b = *group.front()->second.a;
        const uint64_t bytes =
            group.size() * (kernels::gemvRowBytes(a.type, a.k) * a.n + kernels::gemvRowBytes(b.type, b.k) * b.n);
        if (bytes < 2 * uint64_t(l2Bytes)) continue;
        HEARTH_ASSIGN(std::vector<double> ms, timeChoices({pairChoice(group, base, tuning, false),
                                                           pairChoice(group, base, tuning, true)},
                                                          stream));
        if (ms[1] < (1.0 - kMinGain) * ms[0]) tuning.setPaired(a, b);
    }
    return tuning;
}

} // namespace hearth::cuda
