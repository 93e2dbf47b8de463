// The Gated DeltaNet maths of the CPU backend (backend/cpu/deltanet_ops.h), each against a second
// implementation written here from its definition: the causal conv against a whole-sequence
// convolution with zero padding, the delta-rule step against its closed form
// S = (I - beta k k^T) decay S + beta k v^T in double, the token-by-token recurrence against the
// chunked form prefill kernels use (chunks of 1, 5, 16 and 64, a partial last chunk), and the
// gated norm, the L2 norm, softplus and the decay against their formulas.
#include <cmath>
#include <random>
#include <vector>

#include "backend/cpu/deltanet_ops.h"
#include "check.h"

using namespace hearth;

namespace {

std::mt19937 rng(2024);
std::vector<float> randoms(size_t n, float scale) {
    std::normal_distribution<float> normal(0.0f, scale);
    std::vector<float> v(n);
    for (float& x : v) x = normal(rng);
    return v;
}

double maxRelative(const std::vector<float>& a, const std::vector<double>& ref) {
    double diff = 0, norm = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
        diff = std::max(diff, std::fabs(a[i] - ref[i]));
        norm = std::max(norm, std::fabs(ref[i]));
    }
    return diff / norm;
}

void checkConv() {
    const int channels = 7, kernel = 4, steps = 9;
    const std::vector<float> weight = randoms(size_t(channels * kernel), 0.5f);
    const std::vector<float> inputs = randoms(size_t(channels * steps), 1.0f);
    std::vector<float> history(static_cast<size_t>((kernel - 1) * channels), 0.0f), out(static_cast<size_t>(channels));
    double worst = 0;
    for (int t = 0; t < steps; ++t) {
        cpu::causalConvStep(out.data(), &inputs[size_t(t * channels)], history.data(), weight.data(), channels, kernel);
        for (int c = 0; c < channels; ++c) { // out_t = sum_j w[j] x_{t-(kernel-1)+j}, zeros before the start
            double expected = 0;
            for (int j = 0; j < kernel; ++j) {
                const int src = t - (kernel - 1) + j;
                if (src >= 0) expected += double(weight[size_t(c * kernel + j)]) * inputs[size_t(src * channels + c)];
            }
            worst = std::max(worst, std::fabs(out[size_t(c)] - expected));
        }
    }
    std::printf("conv: max error %.2e over %d steps\n", worst, steps);
    CHECK_MSG(worst < 1e-5, "causal conv differs by " << worst);
}

void checkDeltaStep() {
    const int dk = 12, dv = 10;
    std::vector<float> state = randoms(size_t(dk * dv), 0.3f);
    std::vector<float> q = randoms(size_t(dk), 0.3f), k = randoms(size_t(dk), 1.0f), v = randoms(size_t(dv), 1.0f);
    cpu::l2normalize(k.data(), dk, 1e-6f);
    const float decay = 0.83f, beta = 0.61f;
    std::vector<double> expectedState(static_cast<size_t>(dk * dv)), expectedOut(static_cast<size_t>(dv), 0.0);
    for (int i = 0; i < dk; ++i)
        for (int j = 0; j < dv; ++j) {
            double projected = 0; // (k k^T S)[i][j]
            for (int m = 0; m < dk; ++m) projected += double(k[size_t(i)]) * k[size_t(m)] * state[size_t(m * dv + j)];
            expectedState[size_t(i * dv + j)] =
                decay * (state[size_t(i * dv + j)] - beta * projected) + beta * double(k[size_t(i)]) * v[size_t(j)];
        }
    for (int j = 0; j < dv; ++j)
        for (int i = 0; i < dk; ++i) expectedOut[size_t(j)] += expectedState[size_t(i * dv + j)] * q[size_t(i)];
    std::vector<float> out(static_cast<size_t>(dv));
    cpu::deltaRuleStep(state.data(), q.data(), k.data(), v.data(), decay, beta, out.data(), dk, dv);
    const double stateError = maxRelative(state, expectedState), outError = maxRelative(out, expectedOut);
    std::printf("delta step: state %.2e, out %.2e\n", stateError, outError);
    CHECK_MSG(stateError < 1e-6 && outError < 1e-6, "delta step: state " << stateError << ", out " << outError);
}

// The chunked form: within a chunk from state S0, with G_t the running sum of the log decays,
// u_t = beta_t (v_t - e^{G_t} S0^T k_t - sum_{s<t} e^{G_t - G_s} (k_s . k_t) u_s),
// o_t = e^{G_t} S0^T q_t + sum_{s<=t} e^{G_t - G_s} (k_s . q_t) u_s,
// S_end = e^{G_C} S0 + sum_s e^{G_C - G_s} k_s u_s^T: no per-token state.
struct Sequence {
    int steps, dk, dv;
    std::vector<float> q, k, v, logDecay, beta;
};

void chunked(const Sequence& s, int chunk, std::vector<double>& state, std::vector<double>& out) {
    out.assign(size_t(s.steps * s.dv), 0.0);
    auto at = [](const std::vector<float>& x, int t, int i, int n) { return double(x[size_t(t * n + i)]); };
    for (int start = 0; start < s.steps; start += chunk) {
        const int n = std::min(chunk, s.steps - start);
        std::vector<double> G(static_cast<size_t>(n)), u(static_cast<size_t>(n * s.dv));
        double sum = 0;
        for (int t = 0; t < n; ++t) G[size_t(t)] = sum += s.logDecay[size_t(start + t)];
        for (int t = 0; t < n; ++t) {
            const int T = start + t;
            for (int j = 0; j < s.dv; ++j) {
                double x = at(s.v, T, j, s.dv);
                for (int i = 0; i < s.dk; ++i) x -= std::exp(G[size_t(t)]) * state[size_t(i * s.dv + j)] * at(s.k, T, i, s.dk);
                for (int r = 0; r < t; ++r) {
                    double kk = 0;
                    for (int i = 0; i < s.dk; ++i) kk += at(s.k, start + r, i, s.dk) * at(s.k, T, i, s.dk);
                    x -= std::exp(G[size_t(t)] - G[size_t(r)]) * kk * u[size_t(r * s.dv + j)];
                }
                u[size_t(t * s.dv + j)] = s.beta[size_t(T)] * x;
            }
            for (int j = 0; j < s.dv; ++j) {
                double o = 0;
                for (int i = 0; i < s.dk; ++i) o += std::exp(G[size_t(t)]) * state[size_t(i * s.dv + j)] * at(s.q, T, i, s.dk);
                for (int r = 0; r <= t; ++r) {
                    double kq = 0;
                    for (int i = 0; i < s.dk; ++i) kq += at(s.k, start + r, i, s.dk) * at(s.q, T, i, s.dk);
                    o += std::exp(G[size_t(t)] - G[size_t(r)]) * kq * u[size_t(r * s.dv + j)];
                }
                out[size_t(T * s.dv + j)] = o;
            }
        }
        const double last = G[size_t(n - 1)];
        for (int i = 0; i < s.dk; ++i)
            for (int j = 0; j < s.dv; ++j) {
                double x = std::exp(last) * state[size_t(i * s.dv + j)];
                for (int r = 0; r < n; ++r) x += std::exp(last - G[size_t(r)]) * at(s.k, start + r, i, s.dk) * u[size_t(r * s.dv + j)];
                state[size_t(i * s.dv + j)] = x;
            }
    }
}

void checkChunkedEqualsRecurrent() {
    Sequence s{70, 16, 12, {}, {}, {}, {}, {}};
    s.q = randoms(size_t(s.steps * s.dk), 1.0f);
    s.k = randoms(size_t(s.steps * s.dk), 1.0f);
    s.v = randoms(size_t(s.steps * s.dv), 1.0f);
    const std::vector<float> a = randoms(size_t(s.steps), 1.0f), b = randoms(size_t(s.steps), 1.0f);
    for (int t = 0; t < s.steps; ++t) {
        cpu::l2normalize(&s.q[size_t(t * s.dk)], s.dk, 1e-6f);
        for (int i = 0; i < s.dk; ++i) s.q[size_t(t * s.dk + i)] /= std::sqrt(float(s.dk));
        cpu::l2normalize(&s.k[size_t(t * s.dk)], s.dk, 1e-6f);
        s.logDecay.push_back(std::log(cpu::deltaDecay(a[size_t(t)], 1.0f, -0.4f)));
        s.beta.push_back(cpu::sigmoid(b[size_t(t)]));
    }
    const std::vector<float> start = randoms(size_t(s.dk * s.dv), 0.5f);
    std::vector<float> state = start, out(static_cast<size_t>(s.steps * s.dv));
    for (int t = 0; t < s.steps; ++t)
        cpu::deltaRuleStep(state.data(), &s.q[size_t(t * s.dk)], &s.k[size_t(t * s.dk)], &s.v[size_t(t * s.dv)],
                           std::exp(s.logDecay[size_t(t)]), s.beta[size_t(t)], &out[size_t(t * s.dv)], s.dk, s.dv);
    for (int chunk : {1, 5, 16, 64}) {
        std::vector<double> chunkState(start.begin(), start.end()), chunkOut;
        chunked(s, chunk, chunkState, chunkOut);
        const double stateError = maxRelative(state, chunkState), outError = maxRelative(out, chunkOut);
        std::printf("chunk %2d: final state %.2e, outputs %.2e (token by token vs chunked)\n", chunk, stateError, outError);
        CHECK_MSG(stateError < 1e-5 && outError < 1e-5, "chunk " << chunk << ": state " << stateError << ", out " << outError);
    }
}

void checkNormsAndGates() {
    const int n = 16;
    std::vector<float> x = randoms(size_t(n), 2.0f), w = randoms(size_t(n), 0.3f), z = randoms(size_t(n), 1.5f);
    std::vector<float> out(static_cast<size_t>(n));
    cpu::gatedRmsNorm(out.data(), x.data(), w.data(), z.data(), n, 1e-6f);
    double ss = 0, l2 = 0;
    for (float v : x) ss += double(v) * v;
    double worst = 0;
    for (int i = 0; i < n; ++i) {
        const double silu = z[size_t(i)] / (1.0 + std::exp(-double(z[size_t(i)])));
        worst = std::max(worst, std::fabs(out[size_t(i)] - x[size_t(i)] / std::sqrt(ss / n + 1e-6) * w[size_t(i)] * silu));
    }
    std::vector<float> unit = x;
    cpu::l2normalize(unit.data(), n, 1e-6f);
    for (float v : unit) l2 += double(v) * v;
    std::printf("gated norm %.2e, |l2normalize(x)|^2 - 1 = %.2e\n", worst, l2 - 1);
    CHECK_MSG(worst < 1e-5, "gated RMSNorm differs by " << worst);
    CHECK_NEAR(l2, 1.0, 1e-5);
    for (float v : {-30.0f, -3.0f, 0.0f, 0.7f, 19.0f, 25.0f, 80.0f})
        CHECK_NEAR(cpu::softplus(v), std::log1p(std::exp(double(v))), 1e-5 * std::max(1.0, double(v)));
    CHECK_NEAR(cpu::sigmoid(0.3f), 1.0 / (1.0 + std::exp(-0.3)), 1e-7);
    // decay = exp(-exp(A_log) softplus(a + dt_bias)) with A_log = log 2: in (0, 1), 1 at A = 0.
    CHECK_NEAR(cpu::deltaDecay(0.25f, 1.0f, -2.0f), std::exp(-2.0 * std::log1p(std::exp(1.25))), 1e-6);
    CHECK_NEAR(cpu::deltaDecay(5.0f, 0.0f, 0.0f), 1.0, 0.0);
}

} // namespace

int main() {
    test::announce("qwen35_ops", "cpu");
    checkConv();
    checkDeltaStep();
    checkChunkedEqualsRecurrent();
    checkNormsAndGates();
    return test::finish();
}
