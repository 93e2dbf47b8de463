#include "backend/cpu/simd/x8_activation.h"

#include <cmath>

namespace hearth::cpu {

void quantizeX8(const float* x, int64_t n, X8Block* out) {
    for (int64_t b = 0; b < n / 32; ++b, x += 32) {
        float amax = 0.0f;
        for (int i = 0; i < 32; ++i) amax = std::fmax(amax, std::fabs(x[i]));
        X8Block& blk = out[b];
        blk.d = amax / 127.0f;
        const float inv = amax > 0.0f ? 127.0f / amax : 0.0f;
        int lo = 0, hi = 0;
        for (int i = 0; i < 32; ++i) {
            const int q = int(std::lround(x[i] * inv));
            blk.q[i] = int8_t(q < -127 ? -127 : q > 127 ? 127 : q);
            (i < 16 ? lo : hi) += blk.q[i];
        }
        blk.sumLo = int16_t(lo);
        blk.sumHi = int16_t(hi);
    }
}

} // namespace hearth::cpu
