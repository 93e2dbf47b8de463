// Qwen3.5 on the CPU backend against a plain double-precision forward pass written in the test
// from transformers' description (tests/common/qwen35_builder.cpp): tiny random models in
// Hugging Face's layout, loaded as the HF folder and as the GGUF `quantize` writes from it
// (llama.cpp's tiled value heads, 1 + w norms, ssm_a = -exp(A_log)). Both must match the
// reference per position, and each other. The bound is shown to matter: the same weights read
// with the other value-head order must miss it.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backend/backend.h"
#include "check.h"
#include "hearth/engine.h"
#include "model/model_loader.h"
#include "qwen35_builder.h"
#include "test_helpers.h"
#include "testdata.h"

using namespace hearth;
namespace fs = std::filesystem;

namespace {

// fp32 against double: measured 2.4e-6 .. 7.1e-6 per position on these models; reading the
// value heads in the other order misses by more than 1.
constexpr double kMaxRelativeError = 2e-5;

const std::vector<int32_t> kIds = {1, 291, 17, 305, 88, 4, 263, 142, 319, 57, 200, 266, 33, 129, 310, 76,
                                   5, 99, 250, 3, 301, 12, 64, 280};

double worstPosition(const std::vector<float>& ours, const std::vector<double>& ref, int64_t vocab) {
    if (ours.size() != ref.size()) return INFINITY;
    double worst = 0;
    for (size_t pos = 0; pos * size_t(vocab) < ref.size(); ++pos) {
        double diff = 0, norm = 0;
        for (int64_t v = 0; v < vocab; ++v) {
            const double r = ref[pos * size_t(vocab) + size_t(v)], d = ours[pos * size_t(vocab) + size_t(v)] - r;
            diff += d * d;
            norm += r * r;
        }
        worst = std::max(worst, std::sqrt(diff / norm));
    }
    return worst;
}

std::string writeGguf(const fs::path& hfFolder, const fs::path& out) {
    auto written = quantizeModel({.inputPath = hfFolder.string(), .outputPath = out.string(), .preset = "F32", .threads = 2});
    CHECK_OK(written);
    return out.string();
}

// The HF folder's weights run with the other head order (tiled) on the same data.
std::vector<float> logitsWithWrongOrder(const fs::path& folder) {
    auto loaded = loadModel(folder.string());
    CHECK_OK(loaded);
    if (!loaded.isOk()) return {};
    loaded->config.deltaNet.order = ValueHeadOrder::Tiled;
    auto device = createDeviceModel(*loaded, {.kind = DeviceKind::Cpu, .threads = 2});
    CHECK_OK(device);
    if (!device.isOk()) return {};
    auto session = device.value()->createSession({.contextLength = 64, .kvType = KvCacheType::F32});
    CHECK_OK(session);
    if (!session.isOk()) return {};
    std::vector<float> logits;
    CHECK_OK(session.value()->prefill(kIds, 0, LogitsWanted::All, logits, nullptr));
    return logits;
}

void checkSpec(const char* label, const test::Qwen35Spec& spec) {
    std::printf("%s\n", label);
    const fs::path dir = test::scratchDir(std::string("qwen35_reference_") + label);
    const fs::path hf = dir / "hf";
    test::writeQwen35HfFolder(spec, hf);
    const std::vector<double> ref = qwen35ReferenceLogits(spec, test::makeQwen35Tensors(spec), kIds);

    const std::vector<float> fromHf = test::teacherForcedLogits(hf.string(), kIds, 2);
    const double hfError = worstPosition(fromHf, ref, spec.vocab);
    const std::string gguf = writeGguf(hf, dir / "model.gguf");
    const std::vector<float> fromGguf = test::teacherForcedLogits(gguf, kIds, 2);
    const double ggufError = worstPosition(fromGguf, ref, spec.vocab);
    const double between = test::relativeError(fromGguf, fromHf);
    const double wrong = worstPosition(logitsWithWrongOrder(hf), ref, spec.vocab);
    std::printf("  HF folder %.2e, GGUF %.2e (limit %.0e); GGUF vs HF %.2e; HF weights read as tiled %.2e\n", hfError,
                ggufError, kMaxRelativeError, between, wrong);
    CHECK_MSG(hfError < kMaxRelativeError, label << ": HF folder relative error " << hfError);
    CHECK_MSG(ggufError < kMaxRelativeError, label << ": GGUF relative error " << ggufError);
    CHECK_MSG(between < kMaxRelativeError, label << ": GGUF and HF differ by " << between);
    CHECK_MSG(wrong > 100 * kMaxRelativeError, label << ": the wrong head order gives only " << wrong);
}

// transformers 4's spelling of the same config (rope_theta, partial_rotary_factor and an mrope
// rope_scaling at the top level) reads as the same model.
void checkOlderConfigKeys() {
    const fs::path dir = test::scratchDir("qwen35_reference_keys");
    test::Qwen35Spec spec;
    test::writeQwen35HfFolder(spec, dir / "new");
    test::writeQwen35HfFolder(spec, dir / "old", {.config = [](std::string& text) {
        auto j = nlohmann::json::parse(text);
        const nlohmann::json rope = j["rope_parameters"];
        j.erase("rope_parameters");
        j["rope_theta"] = rope["rope_theta"];
        j["partial_rotary_factor"] = rope["partial_rotary_factor"];
        j["rope_scaling"] = {{"type", "mrope"}, {"mrope_section", rope["mrope_section"]}};
        text = j.dump(2);
    }});
    const std::vector<float> a = test::teacherForcedLogits((dir / "new").string(), kIds, 2);
    const std::vector<float> b = test::teacherForcedLogits((dir / "old").string(), kIds, 2);
    CHECK_MSG(!a.empty() && a == b, "rope_parameters and the older rope keys give different logits");
}

} // namespace

int main() {
    test::announce("qwen35_reference", "cpu");
    test::Qwen35Spec plain; // 3 Gated DeltaNet layers, then gated attention
    checkSpec("interval", plain);

    test::Qwen35Spec mixed; // a layer list without a period, GQA 2:1, the wrapper's names, tied
    mixed.layers = 5;
    mixed.layerTypes = {"linear_attention", "full_attention", "linear_attention", "linear_attention", "full_attention"};
    mixed.heads = 4;
    mixed.kvHeads = 2;
    mixed.headDim = 16;
    mixed.ropeDims = 4;
    mixed.keyHeads = 3;
    mixed.valueHeads = 6;
    mixed.tied = true;
    mixed.wrapper = true;
    mixed.seed = 11;
    checkSpec("wrapper", mixed);
    checkOlderConfigKeys();
    return test::finish();
}
