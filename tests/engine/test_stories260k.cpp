// stories260K against llama2.c's run.c: every greedy reference record, token for token, from the
// GGUF file and from the Hugging Face folder (two layouts, two RoPE pairings); the two layouts'
// logits agree at every position; results do not depend on the thread count.
#include <algorithm>
#include <cmath>

#include "check.h"
#include "test_helpers.h"
#include "hearth/engine.h"
#include "testdata.h"
#include "runtime/session_testing.h"

using namespace hearth;

namespace {

using Record = test::GreedyRecord;

std::unique_ptr<Model> load(const std::filesystem::path& path, int threads) {
    auto model = Model::load({.path = path.string(), .threads = threads});
    CHECK_OK(model);
    return model.isOk() ? std::move(model).value() : nullptr;
}

// Greedy generation as run.c does it: stop at BOS (1), which ends a story; EOS does not stop.
GenerateResult generate(const Model& model, const Record& r, std::vector<float>* logits = nullptr) {
    auto session = Session::create(model, {.kvType = KvType::F32});
    CHECK_OK(session);
    GenerateParams p;
    p.maxTokens = r.steps + 1 - int(r.promptIds.size());
    p.stopIds = {1};
    p.useModelStopIds = false;
    auto result = logits ? SessionTesting::generateWithLogits(*session.value(), r.promptIds, p, *logits)
                         : session.value()->generate(r.promptIds, p);
    CHECK_OK(result);
    return result.isOk() ? result.value() : GenerateResult{};
}

using test::relativeError;

} // namespace

int main() {
    test::announce("stories260k", "cpu");
    const auto dir = test::requireTestData("models/stories260K");
    const auto records = test::readGreedyRecords(dir / "reference_greedy.jsonl"); // checks the count
    if (records.empty()) return test::finish();

    auto gguf = load(dir / "stories260K-f32.gguf", 2);
    auto hf = load(dir / "hf", 2);
    if (!gguf || !hf) return test::finish();
    CHECK_EQ(gguf->info().ropePairing, std::string("adjacent"));
    CHECK_EQ(hf->info().ropePairing, std::string("rotate-half"));

    int matched = 0;
    double worstLogitError = 0;
    for (const Record& r : records) {
        CHECK_MSG(gguf->encode(r.prompt, true) == r.promptIds, "GGUF encoding of '" << r.prompt << "'");
        CHECK_MSG(hf->encode(r.prompt, true) == r.promptIds, "HF encoding of '" << r.prompt << "'");
        std::vector<float> logitsGguf, logitsHf;
        const GenerateResult a = generate(*gguf, r, &logitsGguf);
        const GenerateResult b = generate(*hf, r, &logitsHf);
        CHECK_MSG(a.outputIds == r.outputIds, "GGUF output for '" << r.prompt << "' steps " << r.steps);
        CHECK_MSG(b.outputIds == r.outputIds, "HF output for '" << r.prompt << "' steps " << r.steps);
        CHECK_MSG(a.text == r.outputText, "GGUF text '" << a.text << "' expected '" << r.outputText << "'");
        CHECK_MSG(b.text == r.outputText, "HF text for '" << r.prompt << "'");
        matched += a.outputIds == r.outputIds && b.outputIds == r.outputIds;
        CHECK_EQ(logitsGguf.size(), logitsHf.size());
        if (logitsGguf.size() == logitsHf.size() && !logitsGguf.empty()) {
            // Per position: the two layouts are the same model, so logits agree to ~1e-5.
            const size_t vocab = 512;
            for (size_t row = 0; row < logitsGguf.size() / vocab; ++row) {
                std::vector<float> x(logitsGguf.begin() + row * vocab, logitsGguf.begin() + (row + 1) * vocab);
                std::vector<float> y(logitsHf.begin() + row * vocab, logitsHf.begin() + (row + 1) * vocab);
                const double err = relativeError(x, y);
                worstLogitError = std::max(worstLogitError, err);
                CHECK_MSG(err < 1e-5, "position " << row << " of '" << r.prompt << "': relative error " << err);
            }
        }
    }
    std::printf("matched %d of %zu records from both layouts; worst GGUF-vs-HF logit relative error %.3g\n",
                matched, records.size(), worstLogitError);

    // The thread count must not change a single bit of the result.
    const Record& longest = *std::max_element(records.begin(), records.end(), [](const Record& x, const Record& y) {
        return x.steps < y.steps;
    });
    std::vector<float> one, three;
    auto single = load(dir / "stories260K-f32.gguf", 1);
    auto multi = load(dir / "stories260K-f32.gguf", 3);
    if (single && multi) {
        generate(*single, longest, &one);
        generate(*multi, longest, &three);
        CHECK(!one.empty());
        CHECK_MSG(one == three, "logits differ between 1 and 3 threads");
    }
    return test::finish();
}
