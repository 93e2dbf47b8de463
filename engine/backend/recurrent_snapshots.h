// The rules a session's recurrent-state snapshots follow, shared by the CPU and CUDA backends
// (backend/cpu/cpu_deltanet.cpp, backend/cuda/recurrent_state.cpp) so that both keep the same
// points and a rewind re-runs the same tokens on either. S has `int32_t position` (-1: empty) and
// `uint64_t age` (larger: written later).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace hearth {

// The slot a checkpoint at `pos` writes: the one already holding pos, else an empty one (one
// whose memory is there first: `hasMemory(slot)`), else the oldest.
template <class S, class HasMemory>
S& checkpointSlot(std::vector<S>& slots, int32_t pos, HasMemory hasMemory) {
    for (S& s : slots)
        if (s.position == pos) return s;
    return *std::min_element(slots.begin(), slots.end(), [&](const S& a, const S& b) {
        if ((a.position >= 0) != (b.position >= 0)) return a.position < 0;
        if (a.position < 0 && hasMemory(a) != hasMemory(b)) return hasMemory(a);
        return a.age < b.age;
    });
}

// A rewind to `pos`: snapshots past it are dropped (what follows pos is about to be rewritten);
// returns the latest snapshot after `best` (the live state's usable position, or 0) and raises
// best to it, or null when none is later.
template <class S>
S* rewindSlot(std::vector<S>& slots, int32_t pos, int32_t& best) {
    for (S& s : slots)
        if (s.position > pos) s.position = -1;
    S* from = nullptr;
    for (S& s : slots)
        if (s.position > best) best = s.position, from = &s;
    return from;
}

} // namespace hearth
