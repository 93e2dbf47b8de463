// The CPU backend's KV cache types: f16 and bf16 store K and V rounded (half the bytes of f32)
// and give logits close to the f32 cache's — within bounds measured here — on stories260K's
// reference text and on a Qwen3-shaped synth model (q/k norm, 128-wide heads); results do not
// depend on the thread count.
#include <algorithm>
#include <cmath>

#include "check.h"
#include "hearth/engine.h"
#include "test_helpers.h"
#include "testdata.h"

using namespace hearth;
namespace fs = std::filesystem;

namespace {

// Relative error bounds of the teacher-forced logits against the f32 cache's. Measured: f16
// 3.2e-4 (stories260K) and 2.6e-4 (tiny-qwen3), bf16 2.6e-3 and 1.9e-3; the bounds leave ~3x.
constexpr double kF16Bound = 1e-3;
constexpr double kBf16Bound = 8e-3;

struct Run {
    std::vector<float> logits;
    MemoryReport memory;
};

Run evaluate(const Model& model, const std::vector<int32_t>& ids, KvType type) {
    Run run;
    auto session = Session::create(model, {.contextLength = int32_t(ids.size()), .kvType = type});
    CHECK_OK(session);
    if (!session.isOk()) return run;
    auto logits = session.value()->evaluate(ids);
    CHECK_OK(logits);
    if (logits.isOk()) run.logits = std::move(logits).value();
    run.memory = session.value()->memoryReport();
    return run;
}

size_t argmax(const std::vector<float>& logits, size_t row, size_t vocab) {
    const auto begin = logits.begin() + int64_t(row * vocab);
    return size_t(std::max_element(begin, begin + int64_t(vocab)) - begin);
}

// Rows whose f32 winner leads its runner-up clearly keep their argmax under a 16-bit cache.
void checkArgmax(const std::vector<float>& ref, const std::vector<float>& other, size_t vocab, double margin,
                 const std::string& what) {
    int kept = 0, clear = 0;
    for (size_t row = 0; row * vocab < ref.size(); ++row) {
        std::vector<float> r(ref.begin() + int64_t(row * vocab), ref.begin() + int64_t((row + 1) * vocab));
        std::partial_sort(r.begin(), r.begin() + 2, r.end(), std::greater<float>());
        if (r[0] - r[1] < margin) continue;
        ++clear;
        kept += argmax(ref, row, vocab) == argmax(other, row, vocab);
    }
    CHECK_MSG(clear > 0 && kept == clear, what << ": argmax kept in " << kept << " of " << clear << " clear rows");
}

void checkModel(const std::string& name, const std::string& path, const std::vector<int32_t>& ids) {
    for (int threads : {1, 3}) {
        auto model = Model::load({.path = path, .threads = threads});
        CHECK_OK(model);
        if (!model.isOk()) return;
        const size_t vocab = size_t(model.value()->info().vocabSize);
        const Run f32 = evaluate(*model.value(), ids, KvType::F32);
        const Run f16 = evaluate(*model.value(), ids, KvType::F16);
        const Run bf16 = evaluate(*model.value(), ids, KvType::BF16);
        const double e16 = test::relativeError(f16.logits, f32.logits);
        const double eb16 = test::relativeError(bf16.logits, f32.logits);
        std::fprintf(stderr, "%s, %d threads: relative error f16 %.3g, bf16 %.3g\n", name.c_str(), threads, e16, eb16);
        // Rounded, so not equal; close.
        CHECK_MSG(e16 > 0 && e16 <= kF16Bound, name << " f16: " << e16);
        CHECK_MSG(eb16 > 0 && eb16 <= kBf16Bound, name << " bf16: " << eb16);
        CHECK_MSG(eb16 > e16, name << ": bf16 (8 mantissa bits) " << eb16 << " vs f16 (11) " << e16);
        double spread = 0;
        for (size_t i = 0; i < f32.logits.size(); ++i) spread = std::max(spread, double(std::fabs(f32.logits[i])));
        checkArgmax(f32.logits, f16.logits, vocab, 1e-2 * spread, name + " f16");
        checkArgmax(f32.logits, bf16.logits, vocab, 1e-2 * spread, name + " bf16");
        // Half the cache; the rest as the f32 session.
        CHECK_EQ(f16.memory.kvCacheBytes * 2, f32.memory.kvCacheBytes);
        CHECK_EQ(bf16.memory.kvCacheBytes * 2, f32.memory.kvCacheBytes);
        CHECK_EQ(f16.memory.weightsBytes, f32.memory.weightsBytes);
        CHECK_EQ(bf16.memory.workspaceBytes, f32.memory.workspaceBytes);
        // The thread count changes nothing, bit for bit.
        static std::vector<float> first16, firstB16;
        if (threads == 1) {
            first16 = f16.logits;
            firstB16 = bf16.logits;
        } else {
            CHECK_MSG(f16.logits == first16, name << ": f16 logits depend on the thread count");
            CHECK_MSG(bf16.logits == firstB16, name << ": bf16 logits depend on the thread count");
        }
    }
}

} // namespace

int main() {
    test::announce("kv_types", "cpu");
    const fs::path dir = test::requireTestData("models/stories260K");
    const fs::path scratch = test::scratchDir("kv_types");

    // stories260K over a reference story (prompt and reply of run.c).
    std::vector<int32_t> story;
    for (const test::GreedyRecord& r : test::readGreedyRecords(dir / "reference_greedy.jsonl"))
        if (story.empty() || r.promptIds.size() + r.outputIds.size() > story.size()) {
            story = r.promptIds;
            story.insert(story.end(), r.outputIds.begin(), r.outputIds.end());
        }
    CHECK(story.size() > 64);
    checkModel("stories260K", (dir / "stories260K-f32.gguf").string(), story);

    // A Qwen3-shaped synth model over 160 seeded random tokens.
    const std::string qwen = (scratch / "tiny-qwen3.gguf").string();
    auto written = synthesizeModel({.shape = "tiny-qwen3", .preset = "F32", .seed = 3, .outputPath = qwen});
    CHECK_OK(written);
    if (written.isOk()) {
        std::vector<int32_t> ids(160);
        uint32_t state = 12345;
        for (int32_t& id : ids) id = int32_t((state = state * 1664525u + 1013904223u) >> 8) % written->vocabSize;
        checkModel("tiny-qwen3", qwen, ids);
    }
    return test::finish();
}
