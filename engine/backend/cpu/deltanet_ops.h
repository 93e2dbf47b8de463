// The reference maths of Qwen3.5's Gated DeltaNet (fp32, one token, one head at a time), as
// transformers' Qwen3_5GatedDeltaNet defines it (its recurrent form) and llama.cpp computes it.
// Every GPU kernel of these steps is tested against them.
#pragma once

#include <cmath>
#include <cstdint>

namespace hearth::cpu {

inline float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }
// log(1 + e^x), as torch's softplus (linear above 20, where exp would only round to x).
inline float softplus(float x) { return x > 20.0f ? x : std::log1p(std::exp(x)); }

// The per-head decay and write strength from the token's a and b (per value head):
// decay = exp(negExpA * softplus(a + dtBias)) in (0, 1), with negExpA = -exp(A_log) < 0;
// beta = sigmoid(b).
inline float deltaDecay(float a, float dtBias, float negExpA) { return std::exp(negExpA * softplus(a + dtBias)); }

// The L2 norm of q and k heads: x * 1/sqrt(sum x^2 + eps) (eps 1e-6 in transformers and FLA).
void l2normalize(float* x, int64_t n, float eps);

// One step of the causal depthwise conv over `channels` channels of width `kernel`:
// out[c] = sum_j weight[c][j] * u_{t-kernel+1+j}[c], where u_t = in and `history` holds the
// previous kernel - 1 inputs ([kernel-1][channels], oldest first, zeros at the start). The
// history then shifts in `in`. No activation (the caller applies SiLU).
void causalConvStep(float* out, const float* in, float* history, const float* weight, int64_t channels, int kernel);

// One token of the gated delta rule on one value head's state S [keyDim][valueDim]:
//   S <- decay * S;  m = S^T k;  S <- S + k (beta (v - m))^T;  out = S^T q
// (q already L2-normed and scaled by 1/sqrt(keyDim); k L2-normed).
void deltaRuleStep(float* state, const float* q, const float* k, const float* v, float decay, float beta,
                   float* out, int keyDim, int valueDim);

// The gated output norm of one value head: out = x / rms(x) * weight * silu(gate) over n values
// (a plain gain, not 1 + w). out may be x.
void gatedRmsNorm(float* out, const float* x, const float* weight, const float* gate, int64_t n, float eps);

} // namespace hearth::cpu
