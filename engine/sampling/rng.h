// The random number generator behind sampling: xoshiro256** seeded through splitmix64.
// Both algorithms are fully specified bit for bit, so a seed gives the same stream with any
// compiler and standard library (std::uniform_real_distribution would not: its algorithm is
// left to the implementation). Header-only because it is small and sits in the decode loop.
#pragma once

#include <cstdint>

namespace hearth {

// One step of splitmix64: advances `state` and returns the next output. Used to expand a 64-bit
// seed into xoshiro's 256-bit state (recommended by xoshiro's authors: it never yields the
// all-zero state for four consecutive outputs).
inline uint64_t splitMix64(uint64_t& state) {
    state += 0x9E3779B97F4A7C15ull;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// xoshiro256**: 256 bits of state, period 2^256 - 1, good statistical quality, a few cycles per
// call. Not cryptographic. Value type: copying it copies the stream position (snapshots).
// Thread safety: none; one owner.
class Xoshiro256 {
public:
    explicit Xoshiro256(uint64_t seed = 0) { reseed(seed); }

    // Restarts the stream for `seed`; every seed (0 included) gives a valid, distinct stream.
    void reseed(uint64_t seed) {
        uint64_t sm = seed;
        for (uint64_t& word : m_state) word = splitMix64(sm);
    }

    uint64_t nextU64() {
        const uint64_t result = rotl(m_state[1] * 5, 7) * 9;
        const uint64_t t = m_state[1] << 17;
        m_state[2] ^= m_state[0];
        m_state[3] ^= m_state[1];
        m_state[1] ^= m_state[2];
        m_state[0] ^= m_state[3];
        m_state[2] ^= t;
        m_state[3] = rotl(m_state[3], 45);
        return result;
    }

    // Uniform in [0, 1): the top 53 bits scaled by 2^-53, so every value is an exact double and
    // 1.0 is never returned.
    double nextDouble() { return double(nextU64() >> 11) * 0x1.0p-53; }

private:
    static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

    uint64_t m_state[4] = {};
};

} // namespace hearth
