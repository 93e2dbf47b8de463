// Quantizing to a file and loading with a preset through the public headers: progress from 0 to 1,
// the written file is what the plan said, cancellation leaves no file, and re-quantizing is
// refused unless allowed (the plan says so beforehand).
#include <atomic>
#include <filesystem>

#include "check.h"
#include "hearth/model.h"
#include "hearth/quant.h"
#include "testdata.h"

using namespace hearth;
namespace fs = std::filesystem;

namespace {

// 0 first, 1 last, never going back, and something in between.
void checkProgress(const std::vector<double>& seen) {
    CHECK(seen.size() >= 3);
    if (seen.size() < 3) return;
    CHECK_EQ(seen.front(), 0.0);
    CHECK_EQ(seen.back(), 1.0);
    for (size_t i = 1; i < seen.size(); ++i) CHECK_MSG(seen[i] >= seen[i - 1], seen[i - 1] << " then " << seen[i]);
    CHECK(seen[seen.size() / 2] > 0.0 && seen[seen.size() / 2] < 1.0);
}

void checkQuantize(const std::string& src, const fs::path& dir) {
    QuantizeParams q;
    q.inputPath = src;
    q.outputPath = (dir / "q8.gguf").string();
    q.preset = "q8_0";
    q.threads = 1;
    std::vector<double> seen;
    q.onProgress = [&](double f) { seen.push_back(f); };
    auto r = quantizeModel(q);
    CHECK_OK(r);
    if (!r.isOk()) return;
    checkProgress(seen);
    auto plan = planQuantPreset(src, "Q8_0");
    CHECK_OK(plan);
    if (plan.isOk()) {
        CHECK(r.value().tensorTypeCounts == plan.value().tensorTypeCounts);
        CHECK_EQ(r.value().weightsBytes, plan.value().weightsBytes);
        CHECK(!plan.value().requantizes);
    }
    CHECK_EQ(r.value().fileBytes, uint64_t(fs::file_size(q.outputPath)));
    auto written = describeModelFile(q.outputPath);
    CHECK_OK(written);
    if (written.isOk()) CHECK(written.value().tensorTypeCounts == r.value().tensorTypeCounts);

    // From Q8_0 to Q4_0 re-quantizes: the plan says so, and it is refused unless allowed.
    auto again = planQuantPreset(q.outputPath, "Q4_0");
    CHECK_OK(again);
    if (again.isOk()) CHECK(again.value().requantizes);
    auto same = planQuantPreset(q.outputPath, "Q8_0");
    CHECK_OK(same);
    if (same.isOk()) CHECK(!same.value().requantizes);
    QuantizeParams re = q;
    re.inputPath = q.outputPath;
    re.outputPath = (dir / "q4.gguf").string();
    re.preset = "Q4_0";
    re.onProgress = nullptr;
    CHECK_ERR(quantizeModel(re), StatusCode::FailedPrecondition, "already quantized");
    CHECK(!fs::exists(re.outputPath));
    re.allowRequantize = true;
    CHECK_OK(quantizeModel(re));
    CHECK(fs::exists(re.outputPath));
}

void checkCancel(const std::string& src, const fs::path& dir) {
    std::atomic<bool> cancel{true};
    QuantizeParams q;
    q.inputPath = src;
    q.outputPath = (dir / "cancelled.gguf").string();
    q.preset = "Q8_0";
    q.cancel = &cancel;
    CHECK_ERR(quantizeModel(q), StatusCode::Cancelled, "cancelled");
    // Cancelled part way, from the progress callback: still no file.
    cancel = false;
    q.onProgress = [&](double f) {
        if (f > 0.1) cancel = true;
    };
    CHECK_ERR(quantizeModel(q), StatusCode::Cancelled, "cancelled");
    CHECK(!fs::exists(q.outputPath));
}

void checkLoadProgress(const std::string& src) {
    std::vector<double> seen;
    std::vector<LoadPhase> phases;
    ModelParams p{.path = src, .threads = 1, .quant = "Q8_0"};
    p.onProgress = [&](double f, LoadPhase phase) {
        seen.push_back(f);
        if (phases.empty() || phases.back() != phase) phases.push_back(phase);
    };
    auto model = Model::load(p);
    CHECK_OK(model);
    checkProgress(seen);
    // On the CPU: reading, then the preset's conversion, then reading again (the backend's setup).
    CHECK(phases.size() >= 2 && phases[0] == LoadPhase::Reading && phases[1] == LoadPhase::Converting);
    CHECK_EQ(std::string(loadPhaseName(LoadPhase::Converting)), std::string("converting on the CPU"));
    if (model.isOk()) CHECK(!model.value()->params().onProgress);
    std::atomic<bool> cancel{false};
    p.cancel = &cancel;
    p.onProgress = [&](double f, LoadPhase) {
        if (f > 0.1) cancel = true;
    };
    CHECK_ERR(Model::load(p), StatusCode::Cancelled, "cancelled");
}

} // namespace

int main() {
    test::announce("quantize", "cpu");
    const std::string src = test::requireTestData("models/stories260K/stories260K-f32.gguf").string();
    const fs::path dir = test::scratchDir("api_quantize");
    checkQuantize(src, dir);
    checkCancel(src, dir);
    checkLoadProgress(src);
    return test::finish();
}
