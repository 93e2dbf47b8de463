// Qwen3.5 (Gated DeltaNet + gated attention) on the CUDA backend against the CPU reference:
// teacher-forced logits through prefill (GEMMs, the chunked recurrence, across the 512-token
// prefill calls) and decode (GEMVs and the fused state step, graph-replayed) for each preset, in
// GGUF's value head order (synth) and Hugging Face's (a folder); the recurrent state's snapshots
// on the GPU (regenerate, the next turn, an edit: the same reply and logits as a fresh session);
// the position guard; and `--device auto` choosing the CPU, with the reason, for head sizes the
// kernels do not take.
#include <algorithm>
#include <cstdio>
#include <random>

#include "check.h"
#include "hearth/engine.h"
#include "hearth/synth.h"
#include "qwen35_builder.h"
#include "recurrent_guard.h"
#include "runtime/session_testing.h"
#include "test_helpers.h"
#include "testdata.h"

using namespace hearth;

namespace {


GenerateParams greedy(int32_t tokens) {
    GenerateParams p;
    p.maxTokens = tokens;
    p.useModelStopIds = false;
    return p;
}

std::vector<int32_t> randomIds(size_t n, int32_t vocab, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<int32_t> ids(n);
    for (int32_t& id : ids) id = int32_t(rng() % uint32_t(vocab));
    return ids;
}

// Prefill logits of `ids` and 16 decode steps on both devices.
void compareDevices(const Model& cpu, const Model& gpu, const std::vector<int32_t>& ids, double prefillBound,
                    double decodeBound, const std::string& what) {
    const size_t vocab = size_t(cpu.info().vocabSize);
    const int32_t context = int32_t(ids.size()) + 64;
    auto cs = Session::create(cpu, {.contextLength = context, .kvType = KvType::F32});
    auto gs = Session::create(gpu, {.contextLength = context, .kvType = KvType::F32});
    CHECK_OK(cs);
    CHECK_OK(gs);
    if (!cs.isOk() || !gs.isOk()) return;
    auto a = gs.value()->evaluate(ids);
    auto b = cs.value()->evaluate(ids);
    CHECK_OK(a);
    CHECK_OK(b);
    double worstPrefill = 0, worstDecode = 0;
    if (a.isOk() && b.isOk()) test::compareLogitRows(a.value(), b.value(), vocab, prefillBound, what + " prefill", worstPrefill);
    std::vector<float> gpuLogits, cpuLogits;
    for (int step = 0; step < 16; ++step) { // each step: one more token of ids, its logits by decode
        const std::vector<int32_t> prompt(ids.begin(), ids.begin() + 8 + step);
        std::vector<float> g, c;
        CHECK_OK(SessionTesting::generateWithLogits(*gs.value(), prompt, greedy(1), g));
        CHECK_OK(SessionTesting::generateWithLogits(*cs.value(), prompt, greedy(1), c));
        if (g.size() < vocab || c.size() < vocab) continue;
        gpuLogits.insert(gpuLogits.end(), g.end() - long(vocab), g.end());
        cpuLogits.insert(cpuLogits.end(), c.end() - long(vocab), c.end());
    }
    test::compareLogitRows(gpuLogits, cpuLogits, vocab, decodeBound, what + " decode", worstDecode);
    std::printf("%-24s relative error: prefill %.2e (bound %.0e), decode %.2e (bound %.0e)\n", what.c_str(),
                worstPrefill, prefillBound, worstDecode, decodeBound);
}

void synthPresets(const std::filesystem::path& scratch) {
    const std::string path = (scratch / "tiny-qwen35.gguf").string();
    auto written = synthesizeModel({.shape = "tiny-qwen35", .preset = "F32", .seed = 13, .outputPath = path});
    CHECK_OK(written);
    if (!written.isOk()) return;
    const std::vector<int32_t> ids = randomIds(256, written->vocabSize, 5);
    struct Bound { const char* preset; double prefill, decode; };
    for (const Bound& t : {Bound{"F32", 1e-4, 1e-4}, Bound{"F16", 5e-3, 2e-3}, Bound{"Q8_0", 5e-3, 3e-2},
                           Bound{"Q4_K_M", 5e-3, 3e-2}, Bound{"Q6_K", 5e-3, 3e-2}}) {
        auto cpu = test::loadForComparison(path, DeviceKind::Cpu, t.preset);
        auto gpu = test::loadForComparison(path, DeviceKind::Cuda, t.preset);
        if (cpu && gpu) compareDevices(*cpu, *gpu, ids, t.prefill, t.decode, std::string("tiny-qwen35 ") + t.preset);
    }
    // Longer than one prefill call (512 tokens): the state carries across calls.
    auto cpu = test::loadForComparison(path, DeviceKind::Cpu);
    auto gpu = test::loadForComparison(path, DeviceKind::Cuda);
    if (cpu && gpu) compareDevices(*cpu, *gpu, randomIds(700, written->vocabSize, 6), 1e-4, 1e-4, "tiny-qwen35 700 tokens");
}

test::Qwen35Spec gpuSpec() {
    test::Qwen35Spec spec; // the kernels take DeltaNet heads of 32..128 values
    spec.keyDim = 32;
    spec.valueDim = 64;
    spec.valueHeads = 4;
    spec.keyHeads = 2;
    return spec;
}

void hfFolder(const std::filesystem::path& scratch) {
    const auto dir = scratch / "hf";
    test::writeQwen35HfFolder(gpuSpec(), dir);
    auto cpu = test::loadForComparison(dir.string(), DeviceKind::Cpu);
    auto gpu = test::loadForComparison(dir.string(), DeviceKind::Cuda);
    if (cpu && gpu) compareDevices(*cpu, *gpu, randomIds(200, cpu->info().vocabSize, 7), 1e-4, 1e-4, "HF folder F32");
}

// Regenerate, the next turn and an edit restore a snapshot of the GPU state and give what a fresh
// GPU session gives (logits within float noise: the gap runs as a different prefill split).
void rewinds(const std::filesystem::path& scratch) {
    const auto dir = scratch / "hf";
    auto model = test::loadForComparison(dir.string(), DeviceKind::Cuda);
    if (!model) return;
    auto made = Session::create(*model, {.contextLength = 256, .kvType = KvType::F32});
    CHECK_OK(made);
    if (!made.isOk()) return;
    Session& s = *made.value();
    auto fresh = [&](const std::vector<int32_t>& prompt, int32_t n, std::vector<float>& logits) {
        auto f = Session::create(*model, {.contextLength = 256, .kvType = KvType::F32});
        CHECK_OK(f);
        auto r = f.isOk() ? SessionTesting::generateWithLogits(*f.value(), prompt, greedy(n), logits)
                          : Result<GenerateResult>(f.status());
        CHECK_OK(r);
        return r.isOk() ? r->outputIds : std::vector<int32_t>();
    };
    auto check = [&](const char* what, const std::vector<int32_t>& prompt, int32_t expectedReuse) {
        std::vector<float> ours, want;
        auto r = SessionTesting::generateWithLogits(s, prompt, greedy(5), ours);
        CHECK_OK(r);
        if (!r.isOk()) return std::vector<int32_t>();
        const std::vector<int32_t> reference = fresh(prompt, 5, want);
        const size_t vocab = size_t(model->info().vocabSize);
        const std::vector<float> lastOurs(ours.end() - long(vocab), ours.end()), lastWant(want.end() - long(vocab), want.end());
        const double err = test::relativeError(lastOurs, lastWant);
        std::printf("%-10s reused %3d of %3zu (expected %3d); reply %s a fresh session's; last logits differ by %.1e\n",
                    what, r->reusedTokens, prompt.size(), expectedReuse,
                    r->outputIds == reference ? "equals" : "DIFFERS from", err);
        CHECK_EQ(r->reusedTokens, expectedReuse);
        CHECK(r->outputIds == reference);
        CHECK_MSG(err < 1e-4, what << ": logits differ from a fresh session's by " << err);
        return r->outputIds;
    };
    const std::vector<int32_t> p1 = randomIds(40, model->info().vocabSize, 8);
    const std::vector<int32_t> first = check("first", p1, 0);
    s.markTurnBoundary();
    const int32_t boundary = int32_t(p1.size()) + 4; // the reply's last token never ran
    CHECK(check("regenerate", p1, int32_t(p1.size()) - 1) == first);
    s.markTurnBoundary();
    std::vector<int32_t> p2 = p1;
    p2.insert(p2.end(), first.begin(), first.end());
    const std::vector<int32_t> user = randomIds(12, model->info().vocabSize, 9);
    std::vector<int32_t> p2a = p2;
    p2a.insert(p2a.end(), user.begin(), user.end());
    check("next turn", p2a, boundary);
    s.markTurnBoundary();
    std::vector<int32_t> p2e = p2a;
    p2e[p2.size() + 3] = (p2e[p2.size() + 3] + 1) % model->info().vocabSize;
    check("edit", p2e, boundary);
}

// Heads the kernels do not take: a CUDA load says so; auto runs on the CPU and says why.
void unsupportedShape(const std::filesystem::path& scratch) {
    const auto dir = scratch / "hf16";
    test::writeQwen35HfFolder(test::Qwen35Spec{}, dir); // DeltaNet heads of 16 values
    auto cuda = Model::load({.path = dir.string(), .device = DeviceKind::Cuda});
    CHECK(!cuda.isOk() && cuda.status().code() == StatusCode::Unsupported);
    if (!cuda.isOk()) std::printf("cuda load: %s\n", cuda.status().message().c_str());
    auto autoLoad = Model::load({.path = dir.string(), .device = DeviceKind::Auto});
    CHECK_OK(autoLoad);
    if (!autoLoad.isOk()) return;
    CHECK(autoLoad.value()->placement().kind == DeviceKind::Cpu);
    CHECK_MSG(autoLoad.value()->placement().why.find("Gated DeltaNet heads of 16") != std::string::npos,
              autoLoad.value()->placement().why);
}

} // namespace

int main() {
    test::announce("cuda_qwen35", "cuda");
    test::requireCudaDevice();
    const auto scratch = test::scratchDir("cuda_qwen35");
    synthPresets(scratch);
    hfFolder(scratch);
    rewinds(scratch);
    test::checkRecurrentPositionGuard((scratch / "hf").string(), DeviceKind::Cuda);
    unsupportedShape(scratch);
    return test::finish();
}
