#include "backend/cpu/simd/x8_activation.h"

#include <algorithm>
#include <cmath>

namespace hearth::cpu {
namespace {

// round(v), ties away from zero, without a library call (this runs for every activation value):
// v - trunc(v) is exact, so the comparison with one half is too.
inline int roundAway(float v) {
    const int t = int(v);
    const float f = v - float(t);
    return t + (f >= 0.5f) - (f <= -0.5f);
}

} // namespace

void quantizeX8(const float* x, int64_t n, X8Block* out) {
    for (int64_t b = 0; b < n / 32; ++b, x += 32) {
        float amax = 0.0f;
        for (int i = 0; i < 32; ++i) amax = std::max(amax, std::fabs(x[i]));
        X8Block& blk = out[b];
        blk.d = amax / 127.0f;
        const float inv = amax > 0.0f ? 127.0f / amax : 0.0f;
        int lo = 0, hi = 0;
        for (int i = 0; i < 32; ++i) {
            const int q = roundAway(x[i] * inv);
            blk.q[i] = int8_t(q < -127 ? -127 : q > 127 ? 127 : q);
            (i < 16 ? lo : hi) += blk.q[i];
        }
        blk.sumLo = int16_t(lo);
        blk.sumHi = int16_t(hi);
    }
}

void quantizeXK(const float* x, int64_t n, XKBlock* out) {
    for (int64_t b = 0; b < n / 256; ++b, x += 256) {
        float amax = 0.0f;
        for (int i = 0; i < 256; ++i) amax = std::max(amax, std::fabs(x[i]));
        XKBlock& blk = out[b];
        blk.d = amax / 127.0f;
        const float inv = amax > 0.0f ? 127.0f / amax : 0.0f;
        for (int s = 0; s < 16; ++s) {
            int sum = 0;
            for (int i = 16 * s; i < 16 * s + 16; ++i) {
                const int q = roundAway(x[i] * inv);
                blk.q[i] = int8_t(q < -127 ? -127 : q > 127 ? 127 : q);
                sum += blk.q[i];
            }
            blk.sums[s] = int16_t(sum);
        }
    }
}

} // namespace hearth::cpu
