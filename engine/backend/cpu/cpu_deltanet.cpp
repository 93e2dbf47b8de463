#include "backend/cpu/cpu_deltanet.h"

#include <algorithm>
#include <cmath>

#include "backend/cpu/cpu_ops.h"
#include "backend/cpu/deltanet_ops.h"
#include "backend/recurrent_snapshots.h"
#include "base/thread_pool.h"

namespace hearth {
namespace {

constexpr float kL2Eps = 1e-6f; // transformers' and FLA's l2norm

uint64_t layerFloats(const DeltaNetDims& d) { return d.stateBytes() / sizeof(float); }

// One token's buffers: qkv and its conv output, z, b, a, and the heads' normed outputs.
uint64_t workspaceFloats(const DeltaNetDims& d) {
    return 2 * uint64_t(d.convChannels()) + 2 * uint64_t(d.valueWidth()) + 2 * uint64_t(d.valueHeads);
}

} // namespace

CpuDeltaNet::CpuDeltaNet(const ModelConfig& config, ThreadPool& pool, int32_t chunk)
    : m_config(config), m_pool(pool), m_layers(config.deltaNetLayerCount()) {
    if (m_layers == 0) return;
    const DeltaNetDims& d = config.deltaNet;
    m_layerFloats = layerFloats(d);
    m_state.assign(m_layerFloats * uint64_t(m_layers), 0.0f);
    m_snapshots.resize(kSnapshots);
    for (Snapshot& s : m_snapshots) s.state.assign(m_state.size(), 0.0f);
    const size_t n = size_t(chunk);
    m_qkv.resize(n * size_t(d.convChannels()));
    m_conv.resize(n * size_t(d.convChannels()));
    m_z.resize(n * size_t(d.valueWidth()));
    m_core.resize(n * size_t(d.valueWidth()));
    m_beta.resize(n * size_t(d.valueHeads));
    m_alpha.resize(n * size_t(d.valueHeads));
}

uint64_t CpuDeltaNet::stateBytes(const ModelConfig& config) {
    return uint64_t(1 + kSnapshots) * config.recurrentStateBytes();
}

uint64_t CpuDeltaNet::workspaceBytes(const ModelConfig& config, int32_t chunk) {
    return config.deltaNetLayerCount() > 0 ? workspaceFloats(config.deltaNet) * uint64_t(chunk) * sizeof(float) : 0;
}

float* CpuDeltaNet::layerState(int32_t index) { return m_state.data() + uint64_t(index) * m_layerFloats; }

float* CpuDeltaNet::layerHistory(int32_t index) {
    const DeltaNetDims& d = m_config.deltaNet;
    return layerState(index) + uint64_t(d.valueHeads) * d.keyDim * d.valueDim;
}

void CpuDeltaNet::forward(int32_t index, const DeltaNetWeights& w, const float* normed, float* out, int tokens,
                          cpu::MatVec& matvec) {
    const DeltaNetDims& d = m_config.deltaNet;
    const int64_t channels = d.convChannels();
    const cpu::MatVec::Product projections[] = {{m_qkv.data(), w.qkv.rows, &w.qkv},
                                                {m_z.data(), w.gate.rows, &w.gate},
                                                {m_beta.data(), w.beta.rows, &w.beta},
                                                {m_alpha.data(), w.alpha.rows, &w.alpha}};
    matvec.run(projections, normed, w.qkv.cols, tokens);

    // Per token, in order: the conv over the history, SiLU, and the q/k heads' L2 norms.
    const float scale = 1.0f / std::sqrt(float(d.keyDim));
    for (int t = 0; t < tokens; ++t) {
        float* conv = m_conv.data() + t * channels;
        cpu::causalConvStep(conv, m_qkv.data() + t * channels, layerHistory(index), w.conv.data(), channels,
                            d.convKernel);
        for (int64_t i = 0; i < channels; ++i) conv[i] = cpu::silu(conv[i]);
        float* q = conv;
        float* k = q + d.keyWidth();
        for (int32_t h = 0; h < d.keyHeads; ++h) {
            float* qh = q + int64_t(h) * d.keyDim;
            cpu::l2normalize(qh, d.keyDim, kL2Eps);
            for (int32_t i = 0; i < d.keyDim; ++i) qh[i] *= scale;
            cpu::l2normalize(k + int64_t(h) * d.keyDim, d.keyDim, kL2Eps);
        }
    }

    // The recurrence: threads take whole value heads, each stepping through the tokens in order.
    float* state = layerState(index);
    const int64_t headState = int64_t(d.keyDim) * d.valueDim;
    m_pool.parallelFor(d.valueHeads, [&](int64_t begin, int64_t end) {
        for (int64_t h = begin; h < end; ++h) {
            const int64_t kh = d.keyHeadOf(int32_t(h));
            for (int t = 0; t < tokens; ++t) {
                const float* q = m_conv.data() + t * channels;
                const float* k = q + d.keyWidth();
                const float* v = k + d.keyWidth();
                const float a = m_alpha[size_t(t * d.valueHeads + h)], b = m_beta[size_t(t * d.valueHeads + h)];
                const float decay = cpu::deltaDecay(a, w.dtBias[size_t(h)], w.negExpA[size_t(h)]);
                float* o = m_core.data() + t * d.valueWidth() + h * d.valueDim;
                cpu::deltaRuleStep(state + h * headState, q + kh * d.keyDim, k + kh * d.keyDim, v + h * d.valueDim,
                                   decay, cpu::sigmoid(b), o, d.keyDim, d.valueDim);
                cpu::gatedRmsNorm(o, o, w.outNorm.data(), m_z.data() + t * d.valueWidth() + h * d.valueDim,
                                  d.valueDim, m_config.rmsEps);
            }
        }
    });
    matvec.run(out, w.out.rows, w.out, m_core.data(), w.out.cols, tokens);
}

void CpuDeltaNet::checkpoint(int32_t pos) {
    if (m_layers == 0 || pos != m_position || pos <= 0) return;
    Snapshot* slot = &checkpointSlot(m_snapshots, pos, [](const Snapshot&) { return true; }); // all allocated
    slot->position = pos;
    slot->age = ++m_clock;
    std::copy(m_state.begin(), m_state.end(), slot->state.begin());
}

int32_t CpuDeltaNet::rewindTo(int32_t pos) {
    if (m_layers == 0) return pos;
    // The latest usable point: the live state when it is not past `pos`, or a snapshot.
    int32_t best = m_position <= pos ? m_position : 0;
    const Snapshot* from = rewindSlot(m_snapshots, pos, best);
    if (from) std::copy(from->state.begin(), from->state.end(), m_state.begin());
    else if (best == 0) std::fill(m_state.begin(), m_state.end(), 0.0f); // the start: no past at all
    m_position = best;
    return best;
}

} // namespace hearth
