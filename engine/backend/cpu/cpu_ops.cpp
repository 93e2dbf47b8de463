#include "backend/cpu/cpu_ops.h"

#include <algorithm>
#include <cmath>

namespace hearth::cpu {

void rmsnorm(float* out, const float* x, const float* weight, int64_t n, float eps) {
    double sumSquares = 0.0;
    for (int64_t i = 0; i < n; ++i) sumSquares += double(x[i]) * x[i];
    const float scale = float(1.0 / std::sqrt(sumSquares / double(n) + eps));
    for (int64_t i = 0; i < n; ++i) out[i] = x[i] * scale * weight[i];
}

void softmax(float* x, int64_t n) {
    const float maxValue = *std::max_element(x, x + n);
    float sum = 0.0f;
    for (int64_t i = 0; i < n; ++i) {
        x[i] = std::exp(x[i] - maxValue);
        sum += x[i];
    }
    for (int64_t i = 0; i < n; ++i) x[i] /= sum;
}

void applyRope(float* vec, int heads, int headDim, int32_t pos, const RopeParams& rope, const RopeTable& table) {
    const int pairs = rope.dims / 2;
    const bool adjacent = rope.pairing == RopePairing::Adjacent;
    for (int h = 0; h < heads; ++h) {
        float* v = vec + int64_t(h) * headDim;
        for (int i = 0; i < pairs; ++i) {
            const float angle = float(pos) * table.inverseFrequencies[i];
            const float c = std::cos(angle) * table.magnitude;
            const float s = std::sin(angle) * table.magnitude;
            const int a = adjacent ? 2 * i : i;
            const int b = adjacent ? 2 * i + 1 : i + pairs;
            const float x0 = v[a], x1 = v[b];
            v[a] = x0 * c - x1 * s;
            v[b] = x0 * s + x1 * c;
        }
    }
}

} // namespace hearth::cpu
