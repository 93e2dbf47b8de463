// The Gated DeltaNet layers of a CPU session: their recurrent and conv state, the snapshots that
// let a session go back to a turn boundary (regenerate, edit, a template that rewrites the
// previous reply), and the layer's forward step. Attention layers keep their KV cache in
// CpuSession; a DeltaNet layer's whole past is its state, so going back means restoring a copy.
#pragma once

#include <cstdint>
#include <vector>

#include "backend/cpu/simd/fast_matvec.h"
#include "model/model_config.h"
#include "model/model_weights.h"

namespace hearth {

class ThreadPool;

class CpuDeltaNet {
public:
    // Snapshots kept besides the live state (the session's prompt ends and reply ends; the
    // oldest is replaced first). Allocated with the session, so its memory is fixed.
    static constexpr int kSnapshots = 4;

    // `chunk`: the most tokens one forward call takes (the session's prefill chunk).
    CpuDeltaNet(const ModelConfig& config, ThreadPool& pool, int32_t chunk);
    bool active() const { return m_layers > 0; }

    // `tokens` tokens (at most the chunk) through Gated DeltaNet layer `index` (counting only such
    // layers): `normed` is the layer's RMSNorm'd input [tokens][hidden], `out` receives the block
    // output [tokens][hidden]. The projections take all the tokens at once, on the session's
    // kernels (`matvec`); the conv and the recurrence step through them in order, so the result is
    // the same as one call per token.
    void forward(int32_t index, const DeltaNetWeights& w, const float* normed, float* out, int tokens,
                 cpu::MatVec& matvec);

    // The state holds the tokens [0, position()); the session advances it after each token.
    int32_t position() const { return m_position; }
    void setPosition(int32_t pos) { m_position = pos; }
    // Saves the live state when it is at `pos` (else nothing: it would be a different point).
    void checkpoint(int32_t pos);
    // Makes the state continue from the latest point <= pos it has (the live state, a snapshot,
    // or the start) and returns that point. Snapshots beyond `pos` are dropped: what follows
    // `pos` is about to be overwritten.
    int32_t rewindTo(int32_t pos);

    // Live state plus the snapshots; the buffers of a chunk of tokens.
    static uint64_t stateBytes(const ModelConfig& config);
    static uint64_t workspaceBytes(const ModelConfig& config, int32_t chunk);

private:
    struct Snapshot {
        int32_t position = -1; // -1: empty
        uint64_t age = 0;      // for replacing the oldest
        std::vector<float> state;
    };
    float* layerState(int32_t index);   // [valueHeads][keyDim][valueDim]
    float* layerHistory(int32_t index); // [convKernel - 1][channels]

    const ModelConfig& m_config;
    ThreadPool& m_pool;
    int32_t m_layers = 0;
    uint64_t m_layerFloats = 0;  // one layer's state + history
    int32_t m_position = 0;
    uint64_t m_clock = 0;
    std::vector<float> m_state; // every layer's state and history, live
    std::vector<Snapshot> m_snapshots;
    // A chunk's buffers, [token][width].
    std::vector<float> m_qkv, m_conv, m_z, m_beta, m_alpha, m_core;
};

} // namespace hearth
