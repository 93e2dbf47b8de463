// Describing a model without loading it, and planning a quant preset, through the public headers
// alone: the description matches what loading reports, the plan matches what loading with the
// preset really makes, and a model card's licence is read.
#include <filesystem>
#include <fstream>
#include <numeric>

#include "check.h"
#include "hearth/memory.h"
#include "hearth/model.h"
#include "hearth/quant.h"
#include "hearth/session.h"
#include "testdata.h"

using namespace hearth;
namespace fs = std::filesystem;

namespace {

int tensorCount(const std::map<std::string, int>& counts) {
    return std::accumulate(counts.begin(), counts.end(), 0, [](int n, const auto& kv) { return n + kv.second; });
}

void checkDescribeMatchesLoad(const std::string& path) {
    auto described = describeModelFile(path);
    CHECK_OK(described);
    auto model = Model::load({.path = path, .threads = 1});
    CHECK_OK(model);
    if (!described.isOk() || !model.isOk()) return;
    const ModelInfo& d = described.value();
    const ModelInfo& l = model.value()->info();
    CHECK_EQ(d.architecture, l.architecture);
    CHECK_EQ(d.format, l.format);
    CHECK_EQ(d.name, l.name);
    CHECK_EQ(d.license, l.license);
    CHECK_EQ(d.layers, l.layers);
    CHECK_EQ(d.contextLength, l.contextLength);
    CHECK_EQ(d.parameterCount, l.parameterCount);
    CHECK(d.parameterCount > 0);
    CHECK(d.tensorTypeCounts == l.tensorTypeCounts);
    CHECK_ERR(describeModelFile(path + ".missing"), StatusCode::NotFound, ".missing");
}

// The licence comes from the model card's front matter; no card, no licence.
void checkLicense(const fs::path& hfFolder) {
    const fs::path copy = test::scratchDir("api_describe") / "model";
    fs::copy(hfFolder, copy, fs::copy_options::recursive);
    auto bare = describeModelFile(copy.string());
    CHECK_OK(bare);
    if (bare.isOk()) CHECK_EQ(bare.value().license, "");
    std::ofstream(copy / "README.md") << "---\nlanguage: en\nlicense: \"apache-2.0\"\n---\n# A model\nlicense: not this\n";
    auto carded = describeModelFile(copy.string());
    CHECK_OK(carded);
    if (carded.isOk()) CHECK_EQ(carded.value().license, "apache-2.0");
}

void checkPresets(const std::string& path) {
    const std::vector<QuantPresetInfo> presets = quantPresets();
    CHECK(presets.size() >= 4);
    bool sawQuantized = false, sawFloat = false;
    for (const QuantPresetInfo& p : presets) {
        (p.quantized ? sawQuantized : sawFloat) = true;
        auto plan = planQuantPreset(path, p.name);
        CHECK_OK(plan);
        if (plan.isOk()) CHECK_EQ(plan.value().preset, p.name);
    }
    CHECK(sawQuantized && sawFloat);
    CHECK_ERR(planQuantPreset(path, "Q3_nonsense"), StatusCode::InvalidArgument, presets.back().name);

    // The plan is what loading with the preset makes: types and weight bytes.
    auto f32 = planQuantPreset(path, "f32");
    auto q8 = planQuantPreset(path, "q8_0");
    CHECK_OK(f32);
    CHECK_OK(q8);
    auto model = Model::load({.path = path, .threads = 1, .quant = "Q8_0"});
    CHECK_OK(model);
    if (!f32.isOk() || !q8.isOk() || !model.isOk()) return;
    CHECK_EQ(q8.value().preset, "Q8_0");
    CHECK(q8.value().tensorTypeCounts.count("Q8_0") == 1);
    CHECK(q8.value().weightsBytes < f32.value().weightsBytes);
    CHECK_EQ(tensorCount(q8.value().tensorTypeCounts), tensorCount(f32.value().tensorTypeCounts));
    CHECK(model.value()->info().tensorTypeCounts == q8.value().tensorTypeCounts);
    auto session = Session::create(*model.value(), {.contextLength = 16});
    CHECK_OK(session);
    if (session.isOk()) CHECK_EQ(session.value()->memoryReport().weightsBytes, q8.value().weightsBytes);
}

} // namespace

int main() {
    test::announce("describe", "cpu");
    const auto gguf = test::requireTestData("models/stories260K/stories260K-f32.gguf");
    const auto hf = test::requireTestData("models/stories260K/hf");
    checkDescribeMatchesLoad(gguf.string());
    checkDescribeMatchesLoad(hf.string());
    checkLicense(hf);
    checkPresets(gguf.string());
    return test::finish();
}
