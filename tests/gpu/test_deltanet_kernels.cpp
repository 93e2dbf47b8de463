// Qwen3.5's Gated DeltaNet kernels (kernels/deltanet.cu, deltanet_chunk.cu) and gated attention's
// q/gate split against the CPU reference (backend/cpu/deltanet_ops.h) on fresh random inputs,
// outputs poisoned with NaN first: the conv step with its norms, gates and history; the fused
// decode token (conv, state update, read-out and gated norm); the chunked prefill form, whose outputs and final
// state must equal the token-by-token rule's over token counts that end mid-chunk; in both value
// head orders and at the real 27B head sizes.
#include "gpu_test.h"
HEARTH_GPU_TEST_NEEDS_KERNELS("deltanet_kernels")
#ifdef HEARTH_HAVE_KERNELS

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "backend/cpu/cpu_ops.h"
#include "backend/cpu/deltanet_ops.h"
#include "hearth_kernels/deltanet.h"
#include "hearth_kernels/gemv.h"
#include "hearth_kernels/ops.h"

using namespace hearth;
using namespace hearth::kernels;
using test::Buffer;
using test::worstError;

namespace {

std::mt19937 g_rng(20261202);

std::vector<float> randomVector(size_t n, float scale = 1.0f) { return test::randomNormal(g_rng, n, scale); }

struct Case {
    const char* name;
    GdnShape shape;
};

int keyHeadOf(const GdnShape& s, int h) { return s.tiled ? h % s.keyHeads : h / (s.valueHeads / s.keyHeads); }

// The per-token inputs the recurrence reads, computed on the CPU the way the session does.
struct Prepared {
    std::vector<float> conv;  // [t][channels]
    std::vector<float> gates; // [t][2][valueHeads]
    std::vector<float> history;
};

Prepared prepareOnCpu(const GdnShape& s, int tokens, const std::vector<float>& qkv, const std::vector<float>& b,
                      const std::vector<float>& a, std::vector<float> history, const std::vector<float>& w,
                      const std::vector<float>& dtBias, const std::vector<float>& negExpA) {
    const int C = s.channels(), vh = s.valueHeads;
    Prepared p;
    p.conv.resize(size_t(tokens) * C);
    p.gates.resize(size_t(tokens) * 2 * vh);
    for (int t = 0; t < tokens; ++t) {
        float* out = p.conv.data() + size_t(t) * C;
        cpu::causalConvStep(out, qkv.data() + size_t(t) * C, history.data(), w.data(), C, s.convKernel);
        for (int c = 0; c < C; ++c) out[c] = cpu::silu(out[c]);
        for (int h = 0; h < s.keyHeads; ++h) {
            float* q = out + h * s.keyDim;
            cpu::l2normalize(q, s.keyDim, 1e-6f);
            for (int i = 0; i < s.keyDim; ++i) q[i] /= std::sqrt(float(s.keyDim));
            cpu::l2normalize(out + s.keyWidth() + h * s.keyDim, s.keyDim, 1e-6f);
        }
        for (int h = 0; h < vh; ++h) {
            p.gates[size_t(t) * 2 * vh + h] = cpu::sigmoid(b[size_t(t) * vh + h]);
            p.gates[size_t(t) * 2 * vh + vh + h] =
                negExpA[h] * cpu::softplus(a[size_t(t) * vh + h] + dtBias[h]); // log of cpu::deltaDecay
        }
    }
    p.history = history;
    return p;
}

// Conv + norms + gates over `tokens` tokens (1: the decode form that advances the history in place).
Prepared convOnGpu(const GdnShape& s, int tokens, const std::vector<float>& qkv, const std::vector<float>& b,
                   const std::vector<float>& a, const std::vector<float>& history, const std::vector<float>& w,
                   const std::vector<float>& dtBias, const std::vector<float>& negExpA) {
    const size_t C = size_t(s.channels()), vh = size_t(s.valueHeads);
    Buffer dQkv(qkv.size() * 4), dB(b.size() * 4), dA(a.size() * 4), dHist(history.size() * 4), dW(w.size() * 4),
        dBias(vh * 4), dNeg(vh * 4), dOut(size_t(tokens) * C * 4), dGates(size_t(tokens) * 2 * vh * 4);
    dQkv.upload(qkv.data()), dB.upload(b.data()), dA.upload(a.data()), dHist.upload(history.data());
    dW.upload(w.data()), dBias.upload(dtBias.data()), dNeg.upload(negExpA.data());
    CHECK(launchGdnConv(s, tokens, dQkv.as<float>(), int(C), dB.as<float>(), int(vh), dA.as<float>(), int(vh),
                        dHist.as<float>(), dW.as<float>(), dBias.as<float>(), dNeg.as<float>(), dOut.as<float>(),
                        dGates.as<float>(), nullptr) == cudaSuccess);
    return {dOut.download<float>(size_t(tokens) * C), dGates.download<float>(size_t(tokens) * 2 * vh),
            dHist.download<float>(history.size())};
}

void convStep(const Case& c, int tokens) {
    const GdnShape& s = c.shape;
    const size_t C = size_t(s.channels()), vh = size_t(s.valueHeads);
    const auto qkv = randomVector(size_t(tokens) * C), b = randomVector(size_t(tokens) * vh),
               a = randomVector(size_t(tokens) * vh), history = randomVector(size_t(s.convKernel - 1) * C),
               w = randomVector(C * size_t(s.convKernel), 0.5f), dtBias = randomVector(vh);
    std::vector<float> negExpA = randomVector(vh);
    for (float& x : negExpA) x = -std::exp(x);
    const Prepared want = prepareOnCpu(s, tokens, qkv, b, a, history, w, dtBias, negExpA);
    const Prepared got = convOnGpu(s, tokens, qkv, b, a, history, w, dtBias, negExpA);
    const double convErr = worstError(got.conv, want.conv), gateErr = worstError(got.gates, want.gates),
                 histErr = worstError(got.history, want.history);
    std::printf("%-8s conv, %3d tokens: conv %.1e, gates %.1e, history %.1e\n", c.name, tokens, convErr, gateErr,
                histErr);
    CHECK_MSG(convErr <= 2e-6, c.name << " conv output, " << tokens << " tokens: " << convErr);
    CHECK_MSG(gateErr <= 2e-6, c.name << " gates: " << gateErr);
    CHECK_MSG(histErr == 0.0, c.name << " history: " << histErr);
}

// Random normalised inputs for the recurrence: what the conv kernel would give.
Prepared randomPrepared(const GdnShape& s, int tokens) {
    const size_t C = size_t(s.channels()), vh = size_t(s.valueHeads);
    Prepared p;
    p.conv = randomVector(size_t(tokens) * C);
    p.gates.resize(size_t(tokens) * 2 * vh);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    for (int t = 0; t < tokens; ++t) {
        float* row = p.conv.data() + size_t(t) * C;
        for (int h = 0; h < 2 * s.keyHeads; ++h) cpu::l2normalize(row + h * s.keyDim, s.keyDim, 1e-6f);
        for (size_t h = 0; h < vh; ++h) {
            p.gates[size_t(t) * 2 * vh + h] = unit(g_rng);                  // beta in (0, 1)
            p.gates[size_t(t) * 2 * vh + vh + h] = -3.0f * unit(g_rng);     // decays in (0.05, 1)
        }
    }
    return p;
}

// The token-by-token reference: raw read-outs [t][valueWidth] and the final state.
std::vector<float> recurOnCpu(const GdnShape& s, int tokens, const Prepared& in, std::vector<float>& state) {
    const int vh = s.valueHeads, dk = s.keyDim, dv = s.valueDim;
    std::vector<float> out(size_t(tokens) * s.valueWidth());
    for (int t = 0; t < tokens; ++t) {
        const float* row = in.conv.data() + size_t(t) * s.channels();
        const float* g = in.gates.data() + size_t(t) * 2 * vh;
        for (int h = 0; h < vh; ++h) {
            const int kh = keyHeadOf(s, h);
            cpu::deltaRuleStep(state.data() + size_t(h) * dk * dv, row + kh * dk, row + s.keyWidth() + kh * dk,
                               row + 2 * s.keyWidth() + h * dv, std::exp(g[vh + h]), g[h],
                               out.data() + size_t(t) * s.valueWidth() + size_t(h) * dv, dk, dv);
        }
    }
    return out;
}

// Three decode tokens through the fused kernel (conv, gates, delta rule, gated norm) against the
// CPU's token-by-token path: every token's output (fp32, and X8 byte for byte what
// launchQuantizeX8 makes of it), and the state and conv history after the last. Three tokens with
// one scratch check that the kernel leaves its counters zeroed.
void decode(const Case& c) {
    const GdnShape& s = c.shape;
    const size_t C = size_t(s.channels()), vh = size_t(s.valueHeads), vw = size_t(s.valueWidth());
    const size_t stateFloats = vh * s.keyDim * s.valueDim;
    std::vector<float> state = randomVector(stateFloats, 0.3f), history = randomVector(size_t(s.convKernel - 1) * C);
    const auto w = randomVector(C * size_t(s.convKernel), 0.5f), dtBias = randomVector(vh), norm = randomVector(size_t(s.valueDim));
    std::vector<float> negExpA = randomVector(vh);
    for (float& x : negExpA) x = -std::exp(x);
    const size_t projFloats = C + vw + 2 * vh; // q | k | v | z | b | a, as the projections leave them
    Buffer dProj(projFloats * 4), dHist(history.size() * 4), dW(w.size() * 4), dBias(vh * 4), dNeg(vh * 4),
        dState(stateFloats * 4), dNorm(norm.size() * 4), dOut(vw * 4), dX8(gemvX8Bytes(int(vw))),
        dRef(gemvX8Bytes(int(vw))), dScratch(gdnDecodeScratchBytes(s.keyHeads, s.valueHeads));
    dHist.upload(history.data()), dW.upload(w.data()), dBias.upload(dtBias.data()), dNeg.upload(negExpA.data());
    dState.upload(state.data()), dNorm.upload(norm.data());
    CHECK(cudaMemset(dScratch.p, 0, dScratch.bytes) == cudaSuccess);
    float* proj = dProj.as<float>();
    const GdnDecodeIo io{proj,   proj + C,         proj + C + vw,        proj + C + vw + vh,  dHist.as<float>(),
                         dW.as<float>(), dBias.as<float>(), dNeg.as<float>(), dState.as<float>(), dNorm.as<float>(),
                         dOut.as<float>(), dX8.p,       dScratch.p};
    double outErr = 0.0;
    for (int token = 0; token < 3; ++token) {
        const auto p = randomVector(projFloats);
        dProj.upload(p.data());
        const std::vector<float> qkv(p.begin(), p.begin() + long(C)), z(p.begin() + long(C), p.begin() + long(C + vw)),
            b(p.begin() + long(C + vw), p.begin() + long(C + vw + vh)), a(p.begin() + long(C + vw + vh), p.end());
        const Prepared in = prepareOnCpu(s, 1, qkv, b, a, history, w, dtBias, negExpA);
        history = in.history;
        std::vector<float> want = recurOnCpu(s, 1, in, state);
        for (size_t h = 0; h < vh; ++h)
            cpu::gatedRmsNorm(want.data() + h * s.valueDim, want.data() + h * s.valueDim, norm.data(),
                              z.data() + h * s.valueDim, s.valueDim, 1e-6f);
        CHECK(cudaMemset(dOut.p, 0xff, dOut.bytes) == cudaSuccess); // NaN: every value must be written
        CHECK(launchGdnDecode(s, io, 1e-6f, nullptr) == cudaSuccess);
        outErr = std::max(outErr, worstError(dOut.download<float>(vw), want));
        CHECK(launchQuantizeX8(dOut.as<float>(), int(vw), dRef.p, nullptr) == cudaSuccess);
        CHECK_MSG(dX8.download<uint8_t>(dX8.bytes) == dRef.download<uint8_t>(dRef.bytes),
                  c.name << " decode token " << token << "'s X8 output");
    }
    const double stateErr = worstError(dState.download<float>(stateFloats), state);
    const double histErr = worstError(dHist.download<float>(history.size()), history);
    const auto scratch = dScratch.download<uint8_t>(dScratch.bytes);
    std::printf("%-8s decode, 3 tokens: output %.1e, state %.1e, history %.1e\n", c.name, outErr, stateErr, histErr);
    CHECK_MSG(outErr <= 1e-5, c.name << " decode output: " << outErr);
    CHECK_MSG(stateErr <= 1e-6, c.name << " decode state: " << stateErr);
    CHECK_MSG(histErr == 0.0, c.name << " decode history: " << histErr);
    CHECK_MSG(std::all_of(scratch.begin(), scratch.begin() + long(4 * (vh + size_t(s.keyHeads))),
                          [](uint8_t x) { return x == 0; }),
              c.name << " decode counters left zeroed");
}

// The chunked form over `tokens` tokens from a random state equals the token-by-token rule.
void chunked(const Case& c, int tokens) {
    const GdnShape& s = c.shape;
    const size_t stateFloats = size_t(s.valueHeads) * s.keyDim * s.valueDim;
    std::vector<float> state = randomVector(stateFloats, 0.3f);
    const Prepared in = randomPrepared(s, tokens);
    Buffer dState(stateFloats * 4), dConv(in.conv.size() * 4), dGates(in.gates.size() * 4),
        dOut(size_t(tokens) * s.valueWidth() * 4);
    dState.upload(state.data()), dConv.upload(in.conv.data()), dGates.upload(in.gates.data());
    CHECK(launchGdnChunked(s, tokens, dState.as<float>(), dConv.as<float>(), dGates.as<float>(), dOut.as<float>(),
                           nullptr) == cudaSuccess);
    const std::vector<float> want = recurOnCpu(s, tokens, in, state);
    const double outErr = worstError(dOut.download<float>(want.size()), want);
    const double stateErr = worstError(dState.download<float>(stateFloats), state);
    std::printf("%-8s chunked, %3d tokens: outputs %.1e, final state %.1e\n", c.name, tokens, outErr, stateErr);
    CHECK_MSG(outErr <= 2e-5, c.name << " chunked outputs, " << tokens << " tokens: " << outErr);
    CHECK_MSG(stateErr <= 2e-5, c.name << " chunked final state, " << tokens << " tokens: " << stateErr);
}

void gatedNorm(const Case& c) {
    const GdnShape& s = c.shape;
    const int tokens = 5;
    const size_t width = size_t(s.valueWidth());
    auto x = randomVector(size_t(tokens) * width);
    const auto z = randomVector(size_t(tokens) * width * 2), w = randomVector(size_t(s.valueDim));
    Buffer dX(x.size() * 4), dZ(z.size() * 4), dW(w.size() * 4);
    dX.upload(x.data()), dZ.upload(z.data()), dW.upload(w.data());
    CHECK(launchGdnGatedNorm(s, tokens, dX.as<float>(), dZ.as<float>(), int(2 * width), dW.as<float>(), 1e-6f,
                             nullptr) == cudaSuccess);
    for (int t = 0; t < tokens; ++t)
        for (int h = 0; h < s.valueHeads; ++h) {
            float* row = x.data() + size_t(t) * width + size_t(h) * s.valueDim;
            cpu::gatedRmsNorm(row, row, w.data(), z.data() + size_t(t) * 2 * width + size_t(h) * s.valueDim,
                              s.valueDim, 1e-6f);
        }
    const double err = worstError(dX.download<float>(x.size()), x);
    CHECK_MSG(err <= 1e-5, c.name << " gated norm: " << err);
}

// Gated attention's q/gate split against the plain kernel fed the split halves.
void gatedQkv() {
    const int heads = 6, kvHeads = 1, hd = 256, tokens = 3, rope = 64;
    std::vector<float> invFreq(rope / 2);
    for (int i = 0; i < rope / 2; ++i) invFreq[size_t(i)] = std::pow(1e7f, -2.0f * float(i) / float(rope));
    const auto qGate = randomVector(size_t(tokens) * heads * 2 * hd), k = randomVector(size_t(tokens) * kvHeads * hd),
               v = randomVector(k.size()), qNorm = randomVector(size_t(hd)), kNorm = randomVector(size_t(hd));
    std::vector<float> q(size_t(tokens) * heads * hd), gate(q.size());
    for (int t = 0; t < tokens; ++t)
        for (int h = 0; h < heads; ++h)
            for (int d = 0; d < hd; ++d) {
                const size_t from = (size_t(t) * heads + h) * 2 * hd + d, to = (size_t(t) * heads + h) * hd + d;
                q[to] = qGate[from];
                gate[to] = qGate[from + hd];
            }
    Buffer dQG(qGate.size() * 4), dQ(q.size() * 4), dGate(q.size() * 4), dPlainQ(q.size() * 4), dK(k.size() * 4),
        dV(v.size() * 4), dQn(hd * 4), dKn(hd * 4), dF(invFreq.size() * 4), kc1(k.size() * 4), vc1(k.size() * 4),
        kc2(k.size() * 4), vc2(k.size() * 4);
    dQG.upload(qGate.data()), dPlainQ.upload(q.data()), dK.upload(k.data()), dV.upload(v.data());
    dQn.upload(qNorm.data()), dKn.upload(kNorm.data()), dF.upload(invFreq.data());
    const QkvShape shape{heads, kvHeads, hd, rope, false, dF.as<float>(), 1.0f, 1e-6f};
    CHECK(launchGatedQkvToCache(dQG.as<float>(), dQ.as<float>(), dGate.as<float>(), dK.as<float>(), dV.as<float>(),
                                dQn.as<float>(), dKn.as<float>(), shape, tokens, nullptr, 0, KvType::F32, kc1.p, vc1.p,
                                nullptr) == cudaSuccess);
    CHECK(launchQkvToCache(dPlainQ.as<float>(), dK.as<float>(), dV.as<float>(), nullptr, nullptr, nullptr,
                           dQn.as<float>(), dKn.as<float>(), shape, tokens, nullptr, 0, KvType::F32, kc2.p, vc2.p,
                           nullptr) == cudaSuccess);
    CHECK_MSG(worstError(dQ.download<float>(q.size()), dPlainQ.download<float>(q.size())) == 0.0, "gated q");
    CHECK_MSG(worstError(dGate.download<float>(q.size()), gate) == 0.0, "gated attention's gate half");
    CHECK_MSG(worstError(kc1.download<float>(k.size()), kc2.download<float>(k.size())) == 0.0, "gated k cache");
    // The output gate: x * sigmoid(gate).
    auto x = randomVector(q.size());
    Buffer dX(x.size() * 4);
    dX.upload(x.data());
    CHECK(launchSigmoidGate(dX.as<float>(), dGate.as<float>(), x.size(), nullptr) == cudaSuccess);
    for (size_t i = 0; i < x.size(); ++i) x[i] *= cpu::sigmoid(gate[i]);
    CHECK_MSG(worstError(dX.download<float>(x.size()), x) <= 1e-6, "sigmoid gate");
}

} // namespace

int main() {
    test::startGpuTest("deltanet_kernels", /*needsDevice=*/true);
    const Case cases[] = {
        {"qwen3.5", {16, 48, 128, 128, 4, true}},  // the 27B's heads, GGUF order
        {"grouped", {2, 6, 64, 32, 4, false}},     // HF order, unequal key and value sizes
        {"small", {1, 2, 32, 64, 3, true}},
        {"wide-v", {2, 4, 32, 128, 4, false}},  // value heads wider than the kernel's 2·keyDim threads
    };
    for (const Case& c : cases) {
        for (int tokens : {1, 7, 70}) convStep(c, tokens);
        decode(c);
        for (int tokens : {1, 31, 32, 33, 100}) chunked(c, tokens);
        gatedNorm(c);
    }
    gatedQkv();
    CHECK(!gdnSupports(16, 48, 256, 128, 4) && !gdnSupports(16, 40, 128, 128, 4) && !gdnSupports(16, 48, 128, 48, 4));
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    return test::finish();
}

#endif
