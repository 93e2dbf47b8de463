// Whole models on the CPU's fast kernels against the reference kernels: teacher-forced logits of
// synth models of three architectures (llama, qwen3, and qwen35's DeltaNet layers) at every preset
// stay within a bound per type, and wherever the reference's top-2 margin is clear the argmax is
// the same. The fast path prefills in blocks (a chunk of tokens per matrix product); its logits
// must be, bit for bit, those of the same kernels run one token at a time. (cpu.cpu_simd checks
// each kernel; this checks that the model runs them on the right matrices with the right
// activations, and that blocking changes nothing.)
#include <algorithm>
#include <cmath>
#include <random>

#include "backend/backend.h"
#include "check.h"
#include "hearth/engine.h"
#include "hearth/synth.h"
#include "runtime/model_internal.h"
#include "test_helpers.h"
#include "testdata.h"

using namespace hearth;

namespace {

struct Bound {
    const char* preset;
    double bound; // relative error of the logits, fast against reference
};

// The fast kernels' logits with one backend prefill call per token (no blocking).
std::vector<float> tokenByToken(const std::string& path, const std::vector<int32_t>& ids, const char* preset) {
    auto model = Model::load({.path = path, .threads = 2, .cpuKernels = CpuKernels::Fast, .quant = preset});
    CHECK_OK(model);
    if (!model.isOk()) return {};
    auto session = deviceModel(*model.value()).createSession({.contextLength = int32_t(ids.size()), .kvType = KvCacheType::F32});
    CHECK_OK(session);
    if (!session.isOk()) return {};
    std::vector<float> all, one;
    for (size_t i = 0; i < ids.size(); ++i) {
        auto done = session.value()->prefill(std::span(ids).subspan(i, 1), int32_t(i), LogitsWanted::All, one, nullptr);
        CHECK_OK(done);
        if (!done.isOk()) return {};
        all.insert(all.end(), one.begin(), one.end());
    }
    return all;
}

} // namespace

int main() {
    test::announce("cpu_model_fast", "cpu");
    const auto scratch = test::scratchDir("cpu_model_fast");
    // The fast kernels read block-quantized weights against 8-bit x (the GPU does the same);
    // F16/BF16 differ from the reference only in summation order.
    const Bound bounds[] = {{"F16", 1e-4}, {"BF16", 1e-4},  {"Q8_0", 3e-2},   {"Q4_0", 3e-2},
                            {"Q5_0", 3e-2}, {"Q4_K_M", 3e-2}, {"Q5_K_M", 3e-2}, {"Q6_K", 3e-2}};
    std::mt19937 rng(9);
    for (const char* shape : {"tiny-llama", "tiny-qwen3", "tiny-qwen35"}) {
        const std::string path = (scratch / (std::string(shape) + ".gguf")).string();
        auto written = synthesizeModel({.shape = shape, .preset = "F32", .seed = 4, .layers = 2, .outputPath = path});
        CHECK_OK(written);
        if (!written.isOk()) continue;
        std::vector<int32_t> ids(70); // a prefill chunk of 64 and a remainder
        for (int32_t& id : ids) id = int32_t(rng() % uint32_t(written->vocabSize));
        const size_t vocab = size_t(written->vocabSize);
        for (const Bound& b : bounds) {
            const auto ref = test::teacherForcedLogits(path, ids, 2, b.preset, CpuKernels::Reference);
            const auto fast = test::teacherForcedLogits(path, ids, 2, b.preset, CpuKernels::Fast);
            CHECK_MSG(!fast.empty() && fast == tokenByToken(path, ids, b.preset),
                      shape << " " << b.preset << ": blocked prefill differs from one token at a time");
            const double err = test::relativeError(fast, ref);
            CHECK_MSG(err <= b.bound, shape << " " << b.preset << ": fast vs reference " << err << " > " << b.bound);
            int checked = 0, same = 0;
            for (size_t row = 0; row + 1 <= ref.size() / vocab && fast.size() == ref.size(); ++row) {
                const float* r = ref.data() + row * vocab;
                const float* f = fast.data() + row * vocab;
                std::vector<size_t> order(vocab);
                for (size_t i = 0; i < vocab; ++i) order[i] = i;
                std::partial_sort(order.begin(), order.begin() + 2, order.end(), [&](size_t a, size_t c) { return r[a] > r[c]; });
                double rms = 0;
                for (size_t i = 0; i < vocab; ++i) rms += double(r[i]) * r[i];
                rms = std::sqrt(rms / double(vocab));
                if (r[order[0]] - r[order[1]] < 8 * b.bound * rms) continue; // too close to call
                ++checked;
                same += std::max_element(f, f + vocab) - f == std::ptrdiff_t(order[0]);
            }
            CHECK_MSG(same == checked, shape << " " << b.preset << ": argmax differs in " << checked - same << " of "
                                             << checked << " clear rows");
            std::printf("%-10s %-7s fast vs reference %.2e (bound %.0e), argmax same in %d clear rows\n", shape,
                        b.preset, err, b.bound, checked);
        }
    }
    return test::finish();
}
