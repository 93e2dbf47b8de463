#include "backend/cpu/cpu_deltanet.h"

#include <algorithm>
#include <cmath>

#include "backend/cpu/cpu_ops.h"
#include "backend/cpu/deltanet_ops.h"
#include "base/thread_pool.h"

namespace hearth {
namespace {

constexpr float kL2Eps = 1e-6f; // transformers' and FLA's l2norm

uint64_t layerFloats(const DeltaNetDims& d) { return d.stateBytes() / sizeof(float); }

// The one-token buffers: qkv and its conv output, z, b, a, and the heads' normed outputs.
uint64_t workspaceFloats(const DeltaNetDims& d) {
    return 2 * uint64_t(d.convChannels()) + 2 * uint64_t(d.valueWidth()) + 2 * uint64_t(d.valueHeads);
}

} // namespace

CpuDeltaNet::CpuDeltaNet(const ModelConfig& config, ThreadPool& pool)
    : m_config(config), m_pool(pool), m_layers(config.deltaNetLayerCount()) {
    if (m_layers == 0) return;
    const DeltaNetDims& d = config.deltaNet;
    m_layerFloats = layerFloats(d);
    m_state.assign(m_layerFloats * uint64_t(m_layers), 0.0f);
    m_snapshots.resize(kSnapshots);
    for (Snapshot& s : m_snapshots) s.state.assign(m_state.size(), 0.0f);
    m_qkv.resize(size_t(d.convChannels()));
    m_conv.resize(size_t(d.convChannels()));
    m_z.resize(size_t(d.valueWidth()));
    m_core.resize(size_t(d.valueWidth()));
    m_beta.resize(size_t(d.valueHeads));
    m_alpha.resize(size_t(d.valueHeads));
}

uint64_t CpuDeltaNet::stateBytes(const ModelConfig& config) {
    return uint64_t(1 + kSnapshots) * config.recurrentStateBytes();
}

uint64_t CpuDeltaNet::workspaceBytes(const ModelConfig& config) {
    return config.deltaNetLayerCount() > 0 ? workspaceFloats(config.deltaNet) * sizeof(float) : 0;
}

float* CpuDeltaNet::layerState(int32_t index) { return m_state.data() + uint64_t(index) * m_layerFloats; }

float* CpuDeltaNet::layerHistory(int32_t index) {
    const DeltaNetDims& d = m_config.deltaNet;
    return layerState(index) + uint64_t(d.valueHeads) * d.keyDim * d.valueDim;
}

void CpuDeltaNet::forward(int32_t index, const DeltaNetWeights& w, const float* normed, float* out,
                          const MatVec& matvec) {
    const DeltaNetDims& d = m_config.deltaNet;
    const int64_t channels = d.convChannels();
    matvec(m_qkv.data(), w.qkv, normed);
    matvec(m_z.data(), w.gate, normed);
    matvec(m_beta.data(), w.beta, normed);
    matvec(m_alpha.data(), w.alpha, normed);
    cpu::causalConvStep(m_conv.data(), m_qkv.data(), layerHistory(index), w.conv.data(), channels, d.convKernel);
    for (float& x : m_conv) x = cpu::silu(x);

    float* q = m_conv.data();
    float* k = q + d.keyWidth();
    const float* v = k + d.keyWidth();
    const float scale = 1.0f / std::sqrt(float(d.keyDim));
    for (int32_t h = 0; h < d.keyHeads; ++h) {
        float* qh = q + int64_t(h) * d.keyDim;
        cpu::l2normalize(qh, d.keyDim, kL2Eps);
        for (int32_t i = 0; i < d.keyDim; ++i) qh[i] *= scale;
        cpu::l2normalize(k + int64_t(h) * d.keyDim, d.keyDim, kL2Eps);
    }

    float* state = layerState(index);
    const int64_t headState = int64_t(d.keyDim) * d.valueDim;
    m_pool.parallelFor(d.valueHeads, [&](int64_t begin, int64_t end) {
        for (int64_t h = begin; h < end; ++h) {
            const int64_t kh = d.keyHeadOf(int32_t(h));
            const float decay = cpu::deltaDecay(m_alpha[size_t(h)], w.dtBias[size_t(h)], w.negExpA[size_t(h)]);
            float* o = m_core.data() + h * d.valueDim;
            cpu::deltaRuleStep(state + h * headState, q + kh * d.keyDim, k + kh * d.keyDim, v + h * d.valueDim, decay,
                               cpu::sigmoid(m_beta[size_t(h)]), o, d.keyDim, d.valueDim);
            cpu::gatedRmsNorm(o, o, w.outNorm.data(), m_z.data() + h * d.valueDim, d.valueDim, m_config.rmsEps);
        }
    });
    matvec(out, w.out, m_core.data());
}

void CpuDeltaNet::checkpoint(int32_t pos) {
    if (m_layers == 0 || pos != m_position || pos <= 0) return;
    Snapshot* slot = nullptr;
    for (Snapshot& s : m_snapshots)
        if (s.position == pos) slot = &s; // the same point again: refresh it
    if (!slot) // an empty slot, else the oldest snapshot
        slot = &*std::min_element(m_snapshots.begin(), m_snapshots.end(), [](const Snapshot& a, const Snapshot& b) {
            return (a.position >= 0) != (b.position >= 0) ? a.position < 0 : a.age < b.age;
        });
    slot->position = pos;
    slot->age = ++m_clock;
    std::copy(m_state.begin(), m_state.end(), slot->state.begin());
}

int32_t CpuDeltaNet::rewindTo(int32_t pos) {
    if (m_layers == 0) return pos;
    for (Snapshot& s : m_snapshots)
        if (s.position > pos) s.position = -1;
    // The latest usable point: the live state when it is not past `pos`, or a snapshot.
    int32_t best = m_position <= pos ? m_position : 0;
    const Snapshot* from = nullptr;
    for (const Snapshot& s : m_snapshots)
        if (s.position > best) best = s.position, from = &s;
    if (from) std::copy(from->state.begin(), from->state.end(), m_state.begin());
    else if (best == 0) std::fill(m_state.begin(), m_state.end(), 0.0f); // the start: no past at all
    m_position = best;
    return best;
}

} // namespace hearth
