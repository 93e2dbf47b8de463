#include "backend/cpu/cpu_ops.h"

#include <algorithm>
#include <cmath>
#include <vector>

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

void ropeRotation(int32_t pos, const RopeParams& rope, const RopeTable& table, float* cosOut, float* sinOut) {
    for (int i = 0; i < rope.dims / 2; ++i) {
        const float angle = float(pos) * table.inverseFrequencies[size_t(i)];
        cosOut[i] = std::cos(angle) * table.magnitude;
        sinOut[i] = std::sin(angle) * table.magnitude;
    }
}

void rotate(float* vec, int heads, int headDim, const RopeParams& rope, const float* cos, const float* sin) {
    const int pairs = rope.dims / 2;
    const bool adjacent = rope.pairing == RopePairing::Adjacent;
    for (int h = 0; h < heads; ++h) {
        float* v = vec + int64_t(h) * headDim;
        for (int i = 0; i < pairs; ++i) {
            const int a = adjacent ? 2 * i : i;
            const int b = adjacent ? 2 * i + 1 : i + pairs;
            const float x0 = v[a], x1 = v[b];
            v[a] = x0 * cos[i] - x1 * sin[i];
            v[b] = x0 * sin[i] + x1 * cos[i];
        }
    }
}

void applyRope(float* vec, int heads, int headDim, int32_t pos, const RopeParams& rope, const RopeTable& table) {
    std::vector<float> cos(size_t(rope.dims / 2)), sin(cos.size());
    ropeRotation(pos, rope, table, cos.data(), sin.data());
    rotate(vec, heads, headDim, rope, cos.data(), sin.data());
}

} // namespace hearth::cpu
