// Qwen3.5 on the CUDA backend against transformers' float32 logits: the random-weight qwen3_5_text
// models with the real head counts and sizes (qwen35-heads) and the 27B's widths
// (qwen35-27b-widths) that tests/reference/make_qwen35_references.py writes into the folder
// $HEARTH_QWEN35_REFERENCE names (3 GB: made on the GPU machine, not kept in the repository).
// Teacher-forced over 256 ids through prefill (GEMMs, the chunked recurrence), the last 16
// positions again through decode (the fused state step), for the HF folder as saved and for the
// F16 GGUF `quantize` writes from it (llama.cpp's tiled value heads). Skipped (77) without a GPU or
// without the references.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "check.h"
#include "hearth/engine.h"
#include "npy.h"
#include "runtime/session_testing.h"
#include "test_helpers.h"
#include "testdata.h"

using namespace hearth;
namespace fs = std::filesystem;

namespace {

// The worst per-position relative error of prefill over every id and of decode over the last 16.
struct Errors {
    double prefill = 0, decode = 0;
};

Errors compare(const std::string& path, const std::vector<int32_t>& ids, const std::vector<float>& want, size_t vocab) {
    Errors e;
    auto model = Model::load({.path = path, .device = DeviceKind::Cuda});
    CHECK_OK(model);
    if (!model.isOk()) return {INFINITY, INFINITY};
    auto session = Session::create(*model.value(), {.contextLength = 512, .kvType = KvType::F32});
    CHECK_OK(session);
    if (!session.isOk()) return {INFINITY, INFINITY};
    auto prefill = session.value()->evaluate(ids);
    CHECK_OK(prefill);
    if (!prefill.isOk() || prefill->size() != want.size()) return {INFINITY, INFINITY};
    auto row = [&](const std::vector<float>& v, size_t r) {
        return std::vector<float>(v.begin() + long(r * vocab), v.begin() + long((r + 1) * vocab));
    };
    for (size_t r = 0; r < ids.size(); ++r) e.prefill = std::max(e.prefill, test::relativeError(row(*prefill, r), row(want, r)));
    for (size_t n = ids.size() - 15; n <= ids.size(); ++n) {
        GenerateParams p;
        p.maxTokens = 1;
        p.useModelStopIds = false;
        std::vector<float> all;
        auto r = SessionTesting::generateWithLogits(*session.value(), std::vector<int32_t>(ids.begin(), ids.begin() + long(n)),
                                                    p, all);
        CHECK_OK(r);
        if (all.size() < vocab) return {e.prefill, INFINITY};
        const std::vector<float> got(all.end() - long(vocab), all.end());
        e.decode = std::max(e.decode, test::relativeError(got, row(want, n - 1)));
    }
    return e;
}

struct Bounds {
    double prefill, decode;
};

void checkModel(const fs::path& dir, const Bounds& hfBound, const Bounds& f16Bound) {
    const std::string name = dir.filename().string();
    const nlohmann::json ref = nlohmann::json::parse(test::readTextFile(dir / "reference.json"));
    const std::vector<int32_t> ids = ref.at("input_ids").get<std::vector<int32_t>>();
    test::NpyArray logits;
    std::string error;
    CHECK_MSG(test::readNpyF32(dir / "logits.npy", logits, error), name << ": " << error);
    if (logits.shape.size() != 2 || size_t(logits.shape[0]) != ids.size()) return;
    const size_t vocab = size_t(logits.shape[1]);
    const Errors hf = compare(dir.string(), ids, logits.values, vocab);
    const fs::path gguf = test::scratchDir("cuda_qwen35_hf_reference_" + name) / "f16.gguf";
    CHECK_OK(quantizeModel({.inputPath = dir.string(), .outputPath = gguf.string(), .preset = "F16", .threads = 0}));
    const Errors f16 = compare(gguf.string(), ids, logits.values, vocab);
    std::printf("%-18s HF folder: prefill %.2e, decode %.2e (limits %.0e, %.0e); F16 GGUF: prefill %.2e, decode %.2e "
                "(limits %.0e, %.0e)\n",
                name.c_str(), hf.prefill, hf.decode, hfBound.prefill, hfBound.decode, f16.prefill, f16.decode,
                f16Bound.prefill, f16Bound.decode);
    CHECK_MSG(hf.prefill <= hfBound.prefill && hf.decode <= hfBound.decode, name << ": HF folder on CUDA");
    CHECK_MSG(f16.prefill <= f16Bound.prefill && f16.decode <= f16Bound.decode, name << ": F16 GGUF on CUDA");
}

} // namespace

int main() {
    test::announce("cuda_qwen35_hf_reference", "cuda");
    test::requireCudaDevice();
    const char* root = std::getenv("HEARTH_QWEN35_REFERENCE");
    if (!root)
        test::skipTest("set HEARTH_QWEN35_REFERENCE to the folder tests/reference/make_qwen35_references.py wrote");
    int checked = 0;
    for (const char* name : {"qwen35-heads", "qwen35-27b-widths"}) {
        const fs::path dir = fs::path(root) / name;
        std::error_code ec;
        CHECK_MSG(fs::is_directory(dir, ec), dir << " is missing");
        if (!fs::is_directory(dir, ec)) continue;
        // qwen35-heads holds F32 weights: fp32 GEMMs and fp32 x, the CPU's limit (measured 7.5e-6 / 5.8e-6 on
        // the H200). qwen35-27b-widths holds BF16 weights, which prefill multiplies with fp16 activations
        // and decode reads as bf16: cuda.cuda_model's BF16 limits (measured 2.0e-3 / 7.4e-4). The F16
        // GGUF: the CPU's limit for it (measured 4.5e-3 / 2.9e-3 and 2.1e-3 / 7.2e-4).
        const bool f32Weights = name == std::string("qwen35-heads");
        checkModel(dir, f32Weights ? Bounds{1e-4, 1e-4} : Bounds{5e-3, 2e-3}, Bounds{5e-2, 5e-2});
        ++checked;
    }
    CHECK_EQ(checked, 2);
    return test::finish();
}
