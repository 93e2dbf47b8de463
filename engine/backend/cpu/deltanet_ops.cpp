#include "backend/cpu/deltanet_ops.h"

#include <algorithm>
#include <vector>

#include "backend/cpu/cpu_ops.h"

namespace hearth::cpu {

void l2normalize(float* x, int64_t n, float eps) {
    double sumSquares = 0.0;
    for (int64_t i = 0; i < n; ++i) sumSquares += double(x[i]) * x[i];
    const float scale = float(1.0 / std::sqrt(sumSquares + eps));
    for (int64_t i = 0; i < n; ++i) x[i] *= scale;
}

void causalConvStep(float* out, const float* in, float* history, const float* weight, int64_t channels, int kernel) {
    const int past = kernel - 1;
    for (int64_t c = 0; c < channels; ++c) {
        const float* w = weight + c * kernel;
        float sum = 0.0f;
        for (int j = 0; j < past; ++j) sum += w[j] * history[int64_t(j) * channels + c];
        out[c] = sum + w[past] * in[c];
    }
    if (past == 0) return;
    std::copy(history + channels, history + int64_t(past) * channels, history); // drop the oldest
    std::copy(in, in + channels, history + int64_t(past - 1) * channels);
}

void deltaRuleStep(float* state, const float* q, const float* k, const float* v, float decay, float beta,
                   float* out, int keyDim, int valueDim) {
    // Pass 1: decay the state and read what it holds for k.
    thread_local std::vector<float> delta;
    delta.assign(size_t(valueDim), 0.0f);
    for (int i = 0; i < keyDim; ++i) {
        float* row = state + int64_t(i) * valueDim;
        const float ki = k[i];
        for (int j = 0; j < valueDim; ++j) {
            row[j] *= decay;
            delta[j] += row[j] * ki;
        }
    }
    for (int j = 0; j < valueDim; ++j) delta[j] = beta * (v[j] - delta[j]);
    // Pass 2: the rank-1 write, then read out for q.
    std::fill(out, out + valueDim, 0.0f);
    for (int i = 0; i < keyDim; ++i) {
        float* row = state + int64_t(i) * valueDim;
        const float ki = k[i], qi = q[i];
        for (int j = 0; j < valueDim; ++j) {
            row[j] += ki * delta[j];
            out[j] += row[j] * qi;
        }
    }
}

void gatedRmsNorm(float* out, const float* x, const float* weight, const float* gate, int64_t n, float eps) {
    rmsnorm(out, x, weight, n, eps);
    for (int64_t i = 0; i < n; ++i) out[i] *= silu(gate[i]);
}

} // namespace hearth::cpu
