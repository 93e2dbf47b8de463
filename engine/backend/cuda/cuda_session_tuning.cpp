// A CUDA session's decode GEMVs with their measured rows per block and pairing (gemv_tuning.h):
// the sites the step launches, listed as enqueueDecode and the layers launch them, timed once per
// model.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backend/cuda/cuda_session.h"
#include "backend/cuda/cuda_status.h"
#include "backend/cuda/gemv_tuning.h"

namespace hearth::cuda {

namespace {

// Whether layer l's projections can go in one launch: two runs of types launchGemvPair takes
// (both read X8), of one k.
bool pairable(const DeviceLayer& l) {
    if (l.projections.size() != 2) return false;
    const DeviceMatrix &a = l.projections[0].matrix, &b = l.projections[1].matrix;
    return !a.isView() && !b.isView() && a.data && b.data && a.k == b.k && kernels::gemvPairSupported(a.type, b.type);
}

} // namespace

// Whether layer l's projections go in one launch: they can, and it is forced or measured faster.
bool CudaSession::pairedProjections(const DeviceLayer& l) const {
    if (m_pairMode == PairMode::Off || !pairable(l)) return false;
    const DeviceMatrix &a = l.projections[0].matrix, &b = l.projections[1].matrix;
    return m_pairMode == PairMode::On || (m_tuning && m_tuning->paired(a, b));
}

kernels::GemvLaunch CudaSession::gemvLaunch(const DeviceMatrix& m, bool gateUp) const {
    kernels::GemvLaunch opt = m_gemvLaunch;
    if (m_tuning) opt.rowsPerBlock = m_tuning->rowsPerBlock(m, gateUp);
    return opt;
}

Status CudaSession::tuneGemvs() {
    // Every GEMV of a decode step, with the buffers it reads and writes there.
    std::vector<GemvSite> sites;
    std::vector<std::pair<void*, size_t>> inputs; // each input buffer and the bytes the sites read of it
    auto add = [&](const DeviceMatrix& m, const DeviceMatrix* up, float* xF32, float* y) {
        if (m.isView() || !m.data) return;
        void* x = m.takesX8() ? d_x8 : static_cast<void*>(xF32);
        const size_t bytes = m.takesX8() ? kernels::gemvX8Bytes(m.k) : sizeof(float) * size_t(m.k);
        auto in = std::find_if(inputs.begin(), inputs.end(), [&](const auto& i) { return i.first == x; });
        if (in == inputs.end()) inputs.emplace_back(x, bytes);
        else in->second = std::max(in->second, bytes);
        sites.push_back({&m, up, x, y});
    };
    for (const DeviceLayer& l : m_w.layers()) {
        for (const ProjectionRun& run : l.projections) add(run.matrix, nullptr, d_xn, d_proj + run.outRow);
        if (l.mixer == LayerMixer::Attention) add(l.o, nullptr, d_attn, d_delta);
        else add(l.ssmOut, nullptr, d_xn, d_delta);
        if (l.gate.type == l.up.type) {
            add(l.gate, &l.up, d_xn, d_act);
        } else {
            add(l.gate, nullptr, d_xn, d_gate);
            add(l.up, nullptr, d_xn, d_up);
        }
        add(l.down, nullptr, d_act, d_delta);
    }
    add(m_w.output(), nullptr, d_xn, d_logits);

    const char* forced = std::getenv("HEARTH_GEMV_ROWS");
    if (forced && std::strcmp(forced, "0") == 0) return Status::ok();
    if (forced) {
        const int rows = std::atoi(forced);
        if (rows != 1 && rows != 2 && rows != 4 && rows != 8)
            return invalidArgument(std::string("HEARTH_GEMV_ROWS must be 0, 1, 2, 4 or 8, not '") + forced + "'");
        auto tuning = std::make_shared<GemvTuning>();
        for (const GemvSite& s : sites)
            if (kernels::gemvTakesRowsPerBlock(s.a->type)) tuning->set(*s.a, s.b != nullptr, s.b && rows > 4 ? 4 : rows);
        m_tuning = std::move(tuning);
        return Status::ok();
    }
    if ((m_tuning = m_w.gemvTuning())) return Status::ok();
    std::vector<GemvPairSite> pairs; // the layers whose projections could share a launch
    for (const DeviceLayer& l : m_w.layers())
        if (pairable(l))
            pairs.push_back({{&l.projections[0].matrix, nullptr, d_x8, d_proj + l.projections[0].outRow},
                             {&l.projections[1].matrix, nullptr, d_x8, d_proj + l.projections[1].outRow}});
    // The inputs hold whatever the arena held: zero them, so that no timed launch reads NaNs.
    for (const auto& [x, bytes] : inputs) HEARTH_CUDA_CHECK(cudaMemsetAsync(x, 0, bytes, m_stream));
    HEARTH_ASSIGN(GemvTuning measured, GemvTuning::measure(sites, pairs, m_gemvLaunch, m_stream));
    auto tuning = std::make_shared<const GemvTuning>(std::move(measured));
    m_w.keepGemvTuning(tuning);
    m_tuning = std::move(tuning);
    return Status::ok();
}

} // namespace hearth::cuda
