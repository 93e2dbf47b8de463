#include "backend/cuda/recurrent_state.h"

#include <algorithm>
#include <new>

#include "backend/cuda/cuda_status.h"
#include "backend/recurrent_snapshots.h"

namespace hearth::cuda {

void RecurrentState::bind(uint8_t* device, int layers, uint64_t layerStride, uint64_t layerBytes,
                          uint64_t matrixFloats) {
    m_device = device;
    m_layers = layers;
    m_stride = layerStride;
    m_layerBytes = layerBytes;
    m_matrixFloats = matrixFloats;
    m_position = 0;
}

Status RecurrentState::checkStart(int32_t start) const {
    if (!active() || start == m_position) return Status::ok();
    if (m_position < 0) return internalError("the recurrent state was lost: " + m_lostBecause);
    return invalidArgument("position " + std::to_string(start) + ": the recurrent state holds " +
                           std::to_string(m_position) + " tokens (rewind first)");
}

Status RecurrentState::reset(cudaStream_t stream) {
    if (!active()) return Status::ok();
    HEARTH_CUDA_CHECK(cudaMemsetAsync(m_device, 0, deviceBytes(), stream));
    m_position = 0;
    return Status::ok();
}

Status RecurrentState::allocate(Snapshot& slot) {
    const uint64_t bytes = uint64_t(m_layers) * m_layerBytes;
    if (slot.pinned || slot.pageable.size() == bytes) return Status::ok();
    void* pinned = nullptr;
    if (cudaHostAlloc(&pinned, bytes, cudaHostAllocDefault) == cudaSuccess) {
        slot.pinned.reset(static_cast<uint8_t*>(pinned));
        return Status::ok();
    }
    (void)cudaGetLastError(); // a refusal is not a sticky error: fall back to pageable memory
    try {
        slot.pageable.resize(bytes);
    } catch (const std::bad_alloc&) {
        return outOfMemory("no host memory for a copy of the recurrent state");
    }
    return Status::ok();
}

// Each layer's used bytes, between the device's strided layout and a packed host copy. Copies
// with page-locked memory stay queued on the stream (stream order keeps them before the kernels
// that change the state next); pageable ones are waited for.
Status RecurrentState::copyLayers(Snapshot& slot, bool toHost, cudaStream_t stream) {
    uint8_t* packed = slot.data();
    for (int l = 0; l < m_layers; ++l) {
        uint8_t* device = m_device + uint64_t(l) * m_stride;
        uint8_t* copy = packed + uint64_t(l) * m_layerBytes;
        HEARTH_CUDA_CHECK(cudaMemcpyAsync(toHost ? copy : device, toHost ? device : copy, m_layerBytes,
                                          toHost ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice, stream));
    }
    if (!slot.pinned) HEARTH_CUDA_CHECK(cudaStreamSynchronize(stream));
    return Status::ok();
}

Status RecurrentState::checkpoint(int32_t pos, cudaStream_t stream) {
    if (!active() || pos != m_position || pos <= 0) return Status::ok();
    // An empty slot with memory is taken before one without: allocating page-locked memory is slow.
    Snapshot* slot = &checkpointSlot(m_snapshots, pos, [](const Snapshot& s) { return s.allocated(); });
    slot->position = -1; // until the copy is whole
    HEARTH_TRY(allocate(*slot));
    HEARTH_TRY(copyLayers(*slot, true, stream));
    slot->position = pos;
    slot->age = ++m_clock;
    return Status::ok();
}

Result<int32_t> RecurrentState::rewindTo(int32_t pos, cudaStream_t stream) {
    if (!active()) return pos;
    int32_t best = m_position >= 0 && m_position <= pos ? m_position : 0;
    Snapshot* from = rewindSlot(m_snapshots, pos, best);
    Status restored = Status::ok();
    if (from) restored = copyLayers(*from, false, stream);
    else if (best == 0) restored = reset(stream);
    if (!restored.isOk()) {
        m_position = -1;
        m_lostBecause = restored.message();
        return restored;
    }
    m_position = best;
    return best;
}

} // namespace hearth::cuda
