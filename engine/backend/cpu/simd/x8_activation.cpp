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

// One block of N values, as both activation forms store it: returns the scale amax / 127 and
// writes the values divided by it, rounded and clamped to int8, and the sum of each 16 of them
// (the integer kernels' correction terms).
template <int N>
float quantizeBlock(const float* x, int8_t* q, int (&sums)[N / 16]) {
    float amax = 0.0f;
    for (int i = 0; i < N; ++i) amax = std::max(amax, std::fabs(x[i]));
    const float inv = amax > 0.0f ? 127.0f / amax : 0.0f;
    for (int s = 0; s < N / 16; ++s) {
        int sum = 0;
        for (int i = 16 * s; i < 16 * s + 16; ++i) {
            const int v = roundAway(x[i] * inv);
            q[i] = int8_t(v < -127 ? -127 : v > 127 ? 127 : v);
            sum += q[i];
        }
        sums[s] = sum;
    }
    return amax / 127.0f;
}

} // namespace

void quantizeX8(const float* x, int64_t n, X8Block* out) {
    for (int64_t b = 0; b < n / 32; ++b, x += 32) {
        int sums[2];
        out[b].d = quantizeBlock<32>(x, out[b].q, sums);
        out[b].sumLo = int16_t(sums[0]);
        out[b].sumHi = int16_t(sums[1]);
    }
}

void quantizeXK(const float* x, int64_t n, XKBlock* out) {
    for (int64_t b = 0; b < n / 256; ++b, x += 256) {
        int sums[16];
        out[b].d = quantizeBlock<256>(x, out[b].q, sums);
        for (int s = 0; s < 16; ++s) out[b].sums[s] = int16_t(sums[s]);
    }
}

} // namespace hearth::cpu
