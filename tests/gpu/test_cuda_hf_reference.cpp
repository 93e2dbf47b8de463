// The CUDA backend against Hugging Face transformers' float32 logits: the tiny random-weight
// models of tests/data/hf-reference (every architecture and RoPE scaling, made with transformers
// by tests/reference/make_hf_references.py), teacher-forced through prefill (the GEMM path) and
// fed back one token at a time (the graph-replayed decode path), with an f32 KV cache.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
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

// Measured on the H200 (docs/PERFORMANCE.md): prefill multiplies the F32 weights in fp32, decode
// reads fp32 x; both stay near the CPU's 1e-6.
constexpr double kMaxRelativeError = 1e-4;

} // namespace

int main() {
    test::announce("cuda_hf_reference", "cuda");
    test::requireCudaDevice();
    const fs::path root = fs::path(HEARTH_SOURCE_DIR) / "tests/data/hf-reference";
    int models = 0;
    for (const char* name : {"llama-plain", "llama3-scaled", "llama-linear", "qwen2", "qwen2-yarn", "qwen3"}) {
        const fs::path dir = root / name;
        std::ifstream in(dir / "reference.json");
        CHECK_MSG(in.good(), dir << ": no reference.json");
        if (!in) continue;
        const nlohmann::json ref = nlohmann::json::parse(in);
        const std::vector<int32_t> ids = ref["input_ids"].get<std::vector<int32_t>>();
        test::NpyArray logits;
        std::string error;
        CHECK_MSG(test::readNpyF32(dir / "logits.npy", logits, error), name << ": " << error);
        if (logits.shape.size() != 2) continue;
        const size_t vocab = size_t(logits.shape[1]);
        auto model = Model::load({.path = dir.string(), .device = DeviceKind::Cuda});
        CHECK_OK(model);
        if (!model.isOk()) continue;
        auto session = Session::create(*model.value(), {.contextLength = 64, .kvType = KvType::F32});
        CHECK_OK(session);
        if (!session.isOk()) continue;
        auto prefill = session.value()->evaluate(ids);
        CHECK_OK(prefill);
        double worstPrefill = 0, worstDecode = 0;
        for (size_t row = 0; prefill.isOk() && row < ids.size(); ++row) {
            const std::vector<float> got(prefill->begin() + row * vocab, prefill->begin() + (row + 1) * vocab);
            const std::vector<float> want(logits.values.begin() + row * vocab, logits.values.begin() + (row + 1) * vocab);
            worstPrefill = std::max(worstPrefill, test::relativeError(got, want));
        }
        // Decode: each prefix's last token through the decode step.
        for (size_t n = 2; n <= ids.size(); ++n) {
            GenerateParams p;
            p.maxTokens = 1;
            p.useModelStopIds = false;
            std::vector<float> all;
            auto r = SessionTesting::generateWithLogits(*session.value(), std::vector<int32_t>(ids.begin(), ids.begin() + n),
                                                        p, all);
            CHECK_OK(r);
            if (all.size() < vocab) continue;
            const std::vector<float> got(all.end() - long(vocab), all.end());
            const std::vector<float> want(logits.values.begin() + (n - 1) * vocab, logits.values.begin() + n * vocab);
            worstDecode = std::max(worstDecode, test::relativeError(got, want));
        }
        std::printf("%-14s prefill %.2e, decode %.2e (bound %.0e)\n", name, worstPrefill, worstDecode, kMaxRelativeError);
        CHECK_MSG(worstPrefill < kMaxRelativeError, name << ": prefill relative error " << worstPrefill);
        CHECK_MSG(worstDecode < kMaxRelativeError, name << ": decode relative error " << worstDecode);
        ++models;
    }
    CHECK_EQ(models, 6);
    return test::finish();
}
