// Architectures and their conventions, from both file layouts: random tiny llama / qwen2 / qwen3
// models in F32, F16 and BF16, tied and untied, written as GGUF and as HF folders, must give the
// same logits (the GGUF llama has permuted Q/K rows and adjacent-pair RoPE); malformed models
// are refused with a message naming the file and the tensor or key.
#include <cmath>

#include "check.h"
#include "test_helpers.h"
#include "hearth/engine.h"
#include "model/model_config.h"
#include "model_builder.h"
#include "testdata.h"

using namespace hearth;
namespace fs = std::filesystem;

namespace {

std::vector<float> logitsFor(const std::string& path, const std::vector<int32_t>& ids, int threads = 2) {
    return test::teacherForcedLogits(path, ids, threads);
}

using test::relativeError;

const std::vector<int32_t> kIds = {1, 300, 17, 259, 42, 299, 5, 280, 311, 7, 100, 260};

void checkLayoutsAgree(const fs::path& dir) {
    for (const char* arch : {"llama", "qwen2", "qwen3"})
        for (DType type : {DType::F32, DType::F16, DType::BF16})
            for (bool tied : {false, true}) {
                test::TinyModelSpec spec;
                spec.arch = arch;
                spec.type = type;
                spec.tied = tied;
                spec.seed = 7 + int(type) + tied;
                const std::string name = std::string(arch) + "-" + dtypeName(type) + (tied ? "-tied" : "");
                test::writeTinyGguf(spec, dir / (name + ".gguf"));
                test::writeTinyHfFolder(spec, dir / name);
                auto fromGguf = logitsFor((dir / (name + ".gguf")).string(), kIds);
                auto fromHf = logitsFor((dir / name).string(), kIds);
                const double err = relativeError(fromGguf, fromHf);
                std::printf("%-22s GGUF vs HF logits: relative error %.2e\n", name.c_str(), err);
                CHECK_MSG(err < 1e-5, name << ": " << err);
                // Sanity: the model is not degenerate (logits vary across the vocabulary).
                if (!fromGguf.empty()) CHECK(fromGguf[0] != fromGguf[1]);
            }
}

void checkConventionsMatter(const fs::path& dir) {
    // Swapping the RoPE pairing (an HF llama read as if adjacent) must change the result;
    // otherwise the agreement above would prove nothing.
    test::TinyModelSpec spec;
    spec.arch = "llama";
    test::writeTinyGguf(spec, dir / "unpermuted.gguf", [&](std::vector<test::TinyTensor>& t) {
        // Undo the converter's permutation: rows in rotate-half order read with adjacent pairs.
        auto ref = test::makeTinyTensors(spec);
        for (size_t i = 0; i < t.size(); ++i) t[i].values = ref[i].values;
    });
    test::writeTinyGguf(spec, dir / "permuted.gguf");
    const double err = relativeError(logitsFor((dir / "unpermuted.gguf").string(), kIds),
                                     logitsFor((dir / "permuted.gguf").string(), kIds));
    CHECK_MSG(err > 1e-2, "RoPE pairing had no effect: " << err);

    // The thread count does not change a bit.
    spec.arch = "qwen3";
    test::writeTinyGguf(spec, dir / "threads.gguf");
    CHECK(logitsFor((dir / "threads.gguf").string(), kIds, 1) == logitsFor((dir / "threads.gguf").string(), kIds, 3));
}

void checkRopeScalingTables() {
    RopeParams rope;
    rope.dims = 64;
    rope.theta = 500000.0f;
    const RopeTable plain = computeRopeTable(rope);
    rope.scaling = RopeScaling::Linear;
    rope.factor = 4.0f;
    const RopeTable linear = computeRopeTable(rope);
    for (int i = 0; i < 32; ++i) CHECK_NEAR(linear.inverseFrequencies[i], plain.inverseFrequencies[i] / 4, 1e-9);
    rope.scaling = RopeScaling::Llama3;
    rope.factor = 8.0f;
    rope.originalContext = 8192;
    const RopeTable llama3 = computeRopeTable(rope);
    CHECK_NEAR(llama3.inverseFrequencies[0], plain.inverseFrequencies[0], 0); // short wavelengths kept
    CHECK_NEAR(llama3.inverseFrequencies[31], plain.inverseFrequencies[31] / 8, 1e-12); // long ones divided
    rope.scaling = RopeScaling::Yarn;
    rope.factor = 4.0f;
    rope.originalContext = 32768;
    rope.theta = 1e6f;
    const RopeTable yarn = computeRopeTable(rope);
    RopeParams unscaled;
    unscaled.theta = 1e6f;
    unscaled.dims = 64;
    const RopeTable base = computeRopeTable(unscaled);
    CHECK_NEAR(yarn.magnitude, 0.1 * std::log(4.0) + 1.0, 1e-6);
    CHECK_NEAR(yarn.inverseFrequencies[0], base.inverseFrequencies[0], 1e-9);  // extrapolated
    CHECK(yarn.inverseFrequencies[31] < base.inverseFrequencies[31] / 3.9);    // interpolated
}

void checkBadModels(const fs::path& dir) {
    test::TinyModelSpec spec;
    auto expectLoadError = [&](const std::string& file, StatusCode code, const std::string& needle) {
        CHECK_ERR(Model::load({.path = (dir / file).string()}), code, needle);
    };
    test::writeTinyGguf(spec, dir / "shape.gguf", [](auto& t) {
        for (auto& x : t)
            if (x.ggufName == "blk.1.attn_q.weight") x.shape = {48, 64}, x.values.resize(48 * 64);
    });
    expectLoadError("shape.gguf", StatusCode::DataLoss, "shape.gguf: tensor blk.1.attn_q.weight has shape [64,48], expected [64,64]");
    test::writeTinyGguf(spec, dir / "missing.gguf", [](auto& t) {
        std::erase_if(t, [](const test::TinyTensor& x) { return x.ggufName == "blk.0.ffn_up.weight"; });
    });
    expectLoadError("missing.gguf", StatusCode::NotFound, "missing tensor blk.0.ffn_up.weight");

    spec.extraStringKeys["llama.rope.scaling.type"] = "longrope-x";
    test::writeTinyGguf(spec, dir / "rope.gguf");
    expectLoadError("rope.gguf", StatusCode::Unsupported, "unknown RoPE scaling type 'longrope-x'");
    spec.extraStringKeys.clear();

    spec.extraStringKeys["general.architecture"] = "gpt2";
    test::writeTinyGguf(spec, dir / "arch.gguf");
    expectLoadError("arch.gguf", StatusCode::Unsupported, "unsupported architecture 'gpt2'");
    spec.extraStringKeys.clear();

    // Tokenizer larger than the model's vocabulary.
    spec.vocab = 320;
    test::writeTinyGguf(spec, dir / "vocab.gguf", [](auto& t) {
        for (auto& x : t)
            if (x.ggufName == "token_embd.weight" || x.ggufName == "output.weight")
                x.shape = {300, 64}, x.values.resize(300 * 64);
    });
    expectLoadError("vocab.gguf", StatusCode::DataLoss, "the tokenizer has 320 tokens but the model's vocabulary has only 300");

    expectLoadError("does-not-exist.gguf", StatusCode::NotFound, "does-not-exist.gguf: no such file");
    fs::create_directories(dir / "empty-folder");
    expectLoadError("empty-folder", StatusCode::NotFound, "no config.json");

    // Scaling keys are read into the model description.
    test::TinyModelSpec scaled;
    scaled.extraStringKeys["llama.rope.scaling.type"] = "linear";
    scaled.extraFloatKeys["llama.rope.scaling.factor"] = 2.0f;
    test::writeTinyGguf(scaled, dir / "linear.gguf");
    auto model = Model::load({.path = (dir / "linear.gguf").string()});
    CHECK_OK(model);
    if (model.isOk()) CHECK_EQ(model.value()->info().ropeScaling, std::string("linear"));
}

} // namespace

int main() {
    test::announce("model_loading", "cpu");
    const fs::path dir = test::scratchDir("model_loading");
    checkLayoutsAgree(dir);
    checkConventionsMatter(dir);
    checkRopeScalingTables();
    checkBadModels(dir);
    return test::finish();
}
