// The Gated DeltaNet layers' state of one CUDA session: the live state on the device (inside the
// session's arena: per layer the value heads' fp32 matrices, then the conv's history), the number
// of tokens it holds, and copies kept in host memory at turn boundaries so that a session can go
// back (regenerate, edit, a template that rewrites the last reply) without re-reading the whole
// conversation. Host copies, not device ones: on a 24 GB card the VRAM is the context's.
// The same rules as the CPU's (backend/cpu/cpu_deltanet.h), which the tests compare against.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hearth/status.h"

namespace hearth::cuda {

class RecurrentState {
public:
    static constexpr int kSnapshots = 4; // as the CPU session keeps

    // `device`: layers x layerStride bytes of the arena; the first layerBytes of each are used.
    void bind(uint8_t* device, int layers, uint64_t layerStride, uint64_t layerBytes, uint64_t matrixFloats);
    bool active() const { return m_layers > 0; }
    uint64_t deviceBytes() const { return uint64_t(m_layers) * m_stride; }

    float* matrices(int layer) const { return reinterpret_cast<float*>(m_device + uint64_t(layer) * m_stride); }
    float* history(int layer) const { return matrices(layer) + m_matrixFloats; }

    // A run of tokens from `start` may begin only where the state is (attention-only: anywhere).
    Status checkStart(int32_t start) const;
    void advanceTo(int32_t position) { if (active()) m_position = position; }

    // Zeroes the live state (the start of a conversation).
    Status reset(cudaStream_t stream);
    // See HearthCudaCheckpointFn / HearthCudaRewindFn.
    Status checkpoint(int32_t pos, cudaStream_t stream);
    Result<int32_t> rewindTo(int32_t pos, cudaStream_t stream);

private:
    struct PinnedFree {
        void operator()(uint8_t* p) const { cudaFreeHost(p); } // the session syncs its stream first
    };
    struct Snapshot {
        int32_t position = -1; // -1: empty
        uint64_t age = 0;
        // Page-locked, so that a copy is queued on the stream and the next token need not wait
        // for the host (a prompt's checkpoint stays off the time to first token); pageable when
        // the system refuses to lock more memory. Allocated on first use.
        std::unique_ptr<uint8_t, PinnedFree> pinned;
        std::vector<uint8_t> pageable;
        uint8_t* data() { return pinned ? pinned.get() : pageable.data(); }
        bool allocated() const { return pinned || !pageable.empty(); }
    };
    Status allocate(Snapshot& slot);
    Status copyLayers(Snapshot& slot, bool toHost, cudaStream_t stream);

    uint8_t* m_device = nullptr;
    int m_layers = 0;
    uint64_t m_stride = 0, m_layerBytes = 0, m_matrixFloats = 0;
    int32_t m_position = 0; // tokens the live state holds; -1: lost (a restore failed)
    std::string m_lostBecause;
    uint64_t m_clock = 0;
    std::vector<Snapshot> m_snapshots = std::vector<Snapshot>(kSnapshots);
};

} // namespace hearth::cuda
