// Whole models on the CUDA backend against the CPU reference: stories260K reproduces llama2.c's
// greedy references token for token (GGUF and HF folder, f32 KV cache); synth models of each
// architecture and weight type give the CPU's logits within a bound per type, through prefill
// (teacher-forced, the tensor-core GEMM path) and through decode (the GEMV path, graph-replayed);
// the bad requests of the device choice fail cleanly; every rows-per-block choice of the decode
// GEMVs gives the same logits.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>

#include "check.h"
#include "hearth/engine.h"
#include "hearth/synth.h"
#include "runtime/session_testing.h"
#include "test_helpers.h"
#include "testdata.h"

using namespace hearth;

namespace {

void stories260k() {
    const auto dir = test::requireTestData("models/stories260K");
    const auto records = test::readGreedyRecords(dir / "reference_greedy.jsonl");
    for (const std::string file : {"stories260K-f32.gguf", "hf"}) {
        auto model = test::loadForComparison((dir / file).string(), DeviceKind::Cuda);
        if (!model) continue;
        CHECK_EQ(deviceKindName(model->placement().kind), std::string("cuda"));
        int matched = 0;
        for (const test::GreedyRecord& r : records) {
            auto session = Session::create(*model, {.kvType = KvType::F32});
            CHECK_OK(session);
            if (!session.isOk()) continue;
            GenerateParams p;
            p.maxTokens = r.steps + 1 - int(r.promptIds.size());
            p.stopIds = {1};
            p.useModelStopIds = false;
            auto result = session.value()->generate(r.promptIds, p);
            CHECK_OK(result);
            if (!result.isOk()) continue;
            CHECK_MSG(result->outputIds == r.outputIds, file << ": output for '" << r.prompt << "'");
            matched += result->outputIds == r.outputIds;
        }
        std::printf("stories260K %s on CUDA: %d of %zu greedy records exact\n", file.c_str(), matched, records.size());
    }
}

// Bounds from measurements on the H200 (docs/PERFORMANCE.md), with 2-5x margin. Prefill feeds
// the tensor cores fp16 activations (F32 weights: fp32). Decode reads fp32 x for F32/F16/BF16/Q5_0,
// where the CPU rounds x to the weight's type (F16/BF16) or to Q8_0 (Q5_0) as ggml does, and 8-bit
// x (X8) for the other quantized types.
struct TypeBound {
    const char* preset;
    double prefill; // relative error bound of a row of logits
    double decode;
};

void synthModels() {
    const auto scratch = test::scratchDir("cuda_model");
    const TypeBound bounds[] = {
        {"F32", 1e-4, 1e-4},    {"F16", 5e-3, 2e-3},    {"BF16", 5e-3, 2e-3},   {"Q8_0", 5e-3, 3e-2},
        {"Q4_0", 5e-3, 3e-2},   {"Q5_0", 5e-3, 3e-3},   {"Q4_K_M", 5e-3, 3e-2}, {"Q5_K_M", 5e-3, 3e-2},
        {"Q6_K", 5e-3, 3e-2},
    };
    std::mt19937 rng(7);
    for (const char* shape : {"tiny-llama", "tiny-qwen2", "tiny-qwen3"}) {
        const std::string path = (scratch / (std::string(shape) + ".gguf")).string();
        auto written = synthesizeModel({.shape = shape, .preset = "F32", .seed = 11, .outputPath = path});
        CHECK_OK(written);
        if (!written.isOk()) continue;
        std::vector<int32_t> ids(256);
        for (int32_t& id : ids) id = int32_t(rng() % uint32_t(written->vocabSize));
        for (const TypeBound& t : bounds) {
            const std::string what = std::string(shape) + " " + t.preset;
            auto cpu = test::loadForComparison(path, DeviceKind::Cpu, t.preset);
            auto gpu = test::loadForComparison(path, DeviceKind::Cuda, t.preset);
            if (!cpu || !gpu) continue;
            auto cpuSession = Session::create(*cpu, {.contextLength = 512, .kvType = KvType::F32});
            auto gpuSession = Session::create(*gpu, {.contextLength = 512, .kvType = KvType::F32});
            CHECK_OK(cpuSession);
            CHECK_OK(gpuSession);
            if (!cpuSession.isOk() || !gpuSession.isOk()) continue;
            // Prefill: teacher-forced logits of 256 tokens.
            auto a = gpuSession.value()->evaluate(ids);
            auto b = cpuSession.value()->evaluate(ids);
            CHECK_OK(a);
            CHECK_OK(b);
            double worstPrefill = 0, worstDecode = 0;
            const size_t vocab = size_t(written->vocabSize);
            if (a.isOk() && b.isOk()) test::compareLogitRows(a.value(), b.value(), vocab, t.prefill, what + " prefill", worstPrefill);
            // Decode: 24 tokens fed back one at a time (the same tokens on both: forced by a
            // one-token prompt continuation of the CPU's greedy choices would diverge at ties).
            std::vector<float> gpuLogits, cpuLogits;
            for (int step = 0; step < 24; ++step) {
                std::vector<int32_t> prompt(ids.begin(), ids.begin() + 8 + step);
                GenerateParams p;
                p.maxTokens = 1;
                p.useModelStopIds = false;
                std::vector<float> g, c;
                auto rg = SessionTesting::generateWithLogits(*gpuSession.value(), prompt, p, g);
                auto rc = SessionTesting::generateWithLogits(*cpuSession.value(), prompt, p, c);
                CHECK_OK(rg);
                CHECK_OK(rc);
                if (g.size() < vocab || c.size() < vocab) continue;
                gpuLogits.insert(gpuLogits.end(), g.end() - long(vocab), g.end());
                cpuLogits.insert(cpuLogits.end(), c.end() - long(vocab), c.end());
            }
            test::compareLogitRows(gpuLogits, cpuLogits, vocab, t.decode, what + " decode", worstDecode);
            std::printf("%-11s %-7s relative error: prefill %.2e (bound %.0e), decode %.2e (bound %.0e)\n", shape,
                        t.preset, worstPrefill, t.prefill, worstDecode, t.decode);
        }
    }
}

void badRequests() {
    const auto dir = test::requireTestData("models/stories260K");
    auto missing = Model::load({.path = (dir / "stories260K-f32.gguf").string(), .device = DeviceKind::Cuda, .gpu = 7});
    CHECK(!missing.isOk());
    if (!missing.isOk()) {
        CHECK(missing.status().code() == StatusCode::NotFound);
        CHECK_MSG(missing.status().message().find("no CUDA device 7") != std::string::npos, missing.status().message());
    }
    auto model = test::loadForComparison((dir / "stories260K-f32.gguf").string(), DeviceKind::Auto);
    if (model) CHECK_EQ(deviceKindName(model->placement().kind), std::string("cuda"));
    if (!model) return;
    auto session = Session::create(*model, {.contextLength = 64});
    CHECK_OK(session);
    if (!session.isOk()) return;
    std::vector<int32_t> tooLong(65, 5);
    auto r = session.value()->generate(tooLong, {});
    CHECK(!r.isOk() && r.status().code() == StatusCode::InvalidArgument);
    // Cancelled in the middle of a long prefill: stops, and the session still works.
    auto big = Session::create(*model, {.contextLength = 2048});
    CHECK_OK(big);
    if (!big.isOk()) return;
    std::atomic<bool> cancel{true};
    GenerateParams p;
    p.cancel = &cancel;
    auto stopped = big.value()->generate(std::vector<int32_t>(2000, 7), p);
    CHECK_OK(stopped);
    if (stopped.isOk()) CHECK_EQ(stopReasonName(stopped->stop), std::string("cancel"));
    cancel = false;
    p.maxTokens = 4;
    auto again = big.value()->generate(std::vector<int32_t>(100, 7), p);
    CHECK_OK(again);
    if (again.isOk()) CHECK_EQ(again->outputIds.size(), size_t(4));
}

// Sampling on the GPU (penalty and top-k there, the rest on the host): the same seed and settings
// give the same tokens; the CPU with the same seed agrees while the logits are this close.
void seededSampling() {
    const auto scratch = test::scratchDir("cuda_sampling");
    const std::string path = (scratch / "tiny-qwen3.gguf").string();
    auto written = synthesizeModel({.shape = "tiny-qwen3", .preset = "F32", .seed = 3, .outputPath = path});
    CHECK_OK(written);
    auto gpu = test::loadForComparison(path, DeviceKind::Cuda);
    auto cpu = test::loadForComparison(path, DeviceKind::Cpu);
    if (!gpu || !cpu) return;
    GenerateParams p;
    p.maxTokens = 48;
    p.useModelStopIds = false;
    p.sampling = SamplingParams::chatDefaults();
    p.sampling.repetitionPenalty = 1.2f;
    p.sampling.seed = 1234;
    const std::vector<int32_t> prompt = {5, 17, 300, 2, 9};
    auto run = [&](const Model& m, KvType kv) {
        auto s = Session::create(m, {.contextLength = 128, .kvType = kv});
        CHECK_OK(s);
        auto r = s.isOk() ? s.value()->generate(prompt, p) : Result<GenerateResult>(s.status());
        CHECK_OK(r);
        return r.isOk() ? r->outputIds : std::vector<int32_t>();
    };
    const std::vector<int32_t> a = run(*gpu, KvType::F32), b = run(*gpu, KvType::F32), c = run(*cpu, KvType::F32);
    CHECK_EQ(a.size(), size_t(48));
    CHECK_MSG(a == b, "the same seed gave different tokens on the GPU");
    size_t agree = 0;
    while (agree < std::min(a.size(), c.size()) && a[agree] == c[agree]) ++agree;
    std::printf("seeded sampling (top-k %d, top-p %.2f, penalty %.1f): GPU and CPU agree on the first %zu of 48 tokens\n",
                p.sampling.topK, p.sampling.topP, p.sampling.repetitionPenalty, agree);
    CHECK_MSG(agree >= 8, "GPU and CPU sampling diverged after " << agree << " tokens");
}

} // namespace

// Rows per block change no logit: the session measures its choice per GEMV shape
// (gemv_tuning.h), so every choice, forced through HEARTH_GEMV_ROWS, must decode the same logits
// bit for bit as the kernels' own choices (0) and the measured ones (unset); and so must a layer's
// projection runs of two types in one launch (HEARTH_GEMV_PAIRS=1; tiny-qwen3 at Q4_K_M keeps v
// in Q6_K on two of its four layers).
void gemvRowChoices() {
    const auto scratch = test::scratchDir("cuda_model_rows");
    const std::string path = (scratch / "tiny-qwen3.gguf").string();
    auto written = synthesizeModel({.shape = "tiny-qwen3", .preset = "F32", .seed = 5, .outputPath = path});
    CHECK_OK(written);
    if (!written.isOk()) return;
    std::vector<int32_t> prompt(40);
    for (size_t i = 0; i < prompt.size(); ++i) prompt[i] = int32_t((i * 37 + 11) % size_t(written->vocabSize));
    for (const char* preset : {"Q4_K_M", "Q8_0", "BF16"}) {
        std::vector<float> first;
        for (const char* rows : {"0", "1", "2", "4", "8", "", "pairs"}) {
            // "pairs": the measured rows, and Q4_K_M's mixed-type projection runs in one launch.
            const bool pairs = std::strcmp(rows, "pairs") == 0;
            if (pairs) setenv("HEARTH_GEMV_PAIRS", "1", 1);
            if (*rows && !pairs) setenv("HEARTH_GEMV_ROWS", rows, 1);
            else unsetenv("HEARTH_GEMV_ROWS");
            auto model = test::loadForComparison(path, DeviceKind::Cuda, preset);
            if (!model) continue;
            auto session = Session::create(*model, {.contextLength = 256, .kvType = KvType::F16});
            CHECK_OK(session);
            if (!session.isOk()) continue;
            GenerateParams p;
            p.maxTokens = 12;
            p.useModelStopIds = false;
            std::vector<float> logits;
            CHECK_OK(SessionTesting::generateWithLogits(*session.value(), prompt, p, logits));
            if (first.empty()) first = logits;
            else
                CHECK_MSG(logits.size() == first.size() &&
                              std::memcmp(logits.data(), first.data(), first.size() * sizeof(float)) == 0,
                          preset << ": HEARTH_GEMV_ROWS='" << rows << "' changed the logits");
        }
        unsetenv("HEARTH_GEMV_PAIRS");
    }
    setenv("HEARTH_GEMV_ROWS", "3", 1);
    auto model = test::loadForComparison(path, DeviceKind::Cuda, "Q4_K_M");
    if (model) {
        auto session = Session::create(*model, {.contextLength = 256});
        CHECK_MSG(!session.isOk(), "HEARTH_GEMV_ROWS=3 was accepted");
    }
    unsetenv("HEARTH_GEMV_ROWS");
    setenv("HEARTH_GEMV_PAIRS", "yes", 1);
    model = test::loadForComparison(path, DeviceKind::Cuda, "Q4_K_M");
    if (model) {
        auto session = Session::create(*model, {.contextLength = 256});
        CHECK_MSG(!session.isOk(), "HEARTH_GEMV_PAIRS=yes was accepted");
    }
    unsetenv("HEARTH_GEMV_PAIRS");
}

int main() {
    test::announce("cuda_model", "cuda");
    test::requireCudaDevice();
    stories260k();
    synthModels();
    badRequests();
    seededSampling();
    gemvRowChoices();
    return test::finish();
}
