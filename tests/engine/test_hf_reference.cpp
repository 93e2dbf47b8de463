// The CPU forward pass against Hugging Face transformers: tiny random-weight models of every
// supported architecture and RoPE convention (tests/data/hf-reference, made by
// tests/reference/make_hf_references.py), each with the float32 logits transformers computed for
// a fixed teacher-forced input. The engine must match them to a relative error of 1e-5 per
// position and pick the same argmax wherever the reference's top-2 margin is clear. The bound is
// shown to be tight enough to matter: each model rerun with its rms_norm_eps 10x too large (Qwen's
// 1e-6 read as Llama's 1e-5) must exceed it. Its RoPE table is also compared with transformers'
// inv_freq / attention_scaling, so that a scaling bug is named as such rather than only as a
// logits mismatch.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "check.h"
#include "npy.h"
#include "hearth/engine.h"
#include "model/model_config.h"
#include "model/model_loader.h"
#include "testdata.h"
#include "runtime/model_internal.h"
#include "runtime/session_testing.h"

using namespace hearth;
using test::NpyArray;
using test::readNpyF32;
namespace fs = std::filesystem;

namespace {

// Measured (transformers 5.17.0 references, this CPU backend): 1.47e-6 (qwen3) to 4.49e-6
// (qwen2-yarn) per position at worst; with rms_norm_eps 10x too large, 5.5e-5 (qwen3) to 4.2e-3
// (llama-linear), checked below for every model.
constexpr double kMaxRelativeError = 1e-5;
constexpr double kArgmaxMargin = 1e-3;

struct Expected {
    const char* folder;
    const char* architecture;
    const char* ropeScaling;
    bool tied;
};

constexpr Expected kModels[] = {
    {"llama-plain", "llama", "none", false},
    {"llama3-scaled", "llama", "llama3", true},
    {"llama-linear", "llama", "linear", false},
    {"qwen2", "qwen2", "none", true},
    {"qwen2-yarn", "qwen2", "yarn", true},
    {"qwen3", "qwen3", "none", false},
};


// The engine's RoPE table against transformers' rotary embedding (inv_freq, attention_scaling).
void checkRopeTable(const Expected& e, const ModelConfig& config, const nlohmann::json& rope) {
    if (!rope.is_object() || !rope.contains("inv_freq")) {
        CHECK_MSG(false, e.folder << ": reference.json has no rope.inv_freq");
        return;
    }
    const auto reference = rope["inv_freq"].get<std::vector<double>>();
    const RopeTable table = computeRopeTable(config.rope);
    CHECK_EQ(table.inverseFrequencies.size(), reference.size());
    double worst = 0;
    bool scaled = false; // the scaling must change something, or the comparison proves little
    for (size_t i = 0; i < reference.size() && i < table.inverseFrequencies.size(); ++i) {
        const double rel = std::fabs(table.inverseFrequencies[i] - reference[i]) / reference[i];
        worst = std::max(worst, rel);
        CHECK_MSG(rel <= 1e-5, e.folder << ": inv_freq[" << i << "] = " << table.inverseFrequencies[i]
                                        << ", transformers has " << reference[i]);
        const double plain = std::pow(double(config.rope.theta), -2.0 * double(i) / config.rope.dims);
        if (std::fabs(reference[i] - plain) > 0.01 * plain) scaled = true;
    }
    const double scaling = rope.value("attention_scaling", 1.0);
    CHECK_NEAR(table.magnitude, scaling, 1e-6);
    CHECK_MSG(scaled == (std::string(e.ropeScaling) != "none"),
              e.folder << ": transformers' frequencies " << (scaled ? "are" : "are not") << " scaled");
    std::printf("  rope table: max relative error %.2e over %zu frequencies, attention scaling %.6f (ours %.6f)\n",
                worst, reference.size(), scaling, double(table.magnitude));
}

// ‖ours − ref‖ / ‖ref‖ at one position.
double positionError(const float* ours, const float* ref, int64_t vocab) {
    double diff2 = 0, ref2 = 0;
    for (int64_t v = 0; v < vocab; ++v) {
        diff2 += (double(ours[v]) - ref[v]) * (double(ours[v]) - ref[v]);
        ref2 += double(ref[v]) * ref[v];
    }
    return std::sqrt(diff2 / ref2);
}

// The engine's teacher-forced logits for `ids` on the model in `dir` (empty when it fails to run).
std::vector<float> engineLogits(const fs::path& dir, const std::vector<int32_t>& ids) {
    std::vector<float> ours;
    auto loaded = Model::load({dir.string()});
    CHECK_OK(loaded);
    if (!loaded.isOk()) return ours;
    auto session = Session::create(**loaded, {.contextLength = 64, .kvType = KvType::F32});
    CHECK_OK(session);
    if (!session.isOk()) return ours;
    GenerateParams params;
    params.maxTokens = 0;
    CHECK_OK(SessionTesting::generateWithLogits(**session, ids, params, ours));
    return ours;
}

// The same model with rms_norm_eps 10x too large (a copy of its folder with config.json edited)
// must miss the reference by more than the bound, or the bound could not catch such a mistake.
void checkBoundSeesEpsError(const Expected& e, const fs::path& dir, const std::vector<int32_t>& ids,
                            const std::vector<float>& reference, int64_t vocab) {
    const fs::path copy = test::scratchDir(std::string("hf_reference_eps_") + e.folder);
    for (const auto& entry : fs::directory_iterator(dir)) fs::copy_file(entry.path(), copy / entry.path().filename());
    nlohmann::json config = nlohmann::json::parse(test::readTextFile(dir / "config.json"));
    const double eps = config.at("rms_norm_eps").get<double>();
    config["rms_norm_eps"] = eps * 10;
    std::ofstream(copy / "config.json") << config.dump(2);
    const std::vector<float> wrong = engineLogits(copy, ids);
    CHECK_EQ(wrong.size(), reference.size());
    if (wrong.size() != reference.size()) return;
    double worst = 0;
    for (size_t pos = 0; pos < ids.size(); ++pos)
        worst = std::max(worst, positionError(wrong.data() + pos * vocab, reference.data() + pos * vocab, vocab));
    std::printf("  rms_norm_eps %.0e instead of %.0e: max relative error %.3e\n", eps * 10, eps, worst);
    CHECK_MSG(worst > kMaxRelativeError, e.folder << ": a 10x rms_norm_eps gives only " << worst
                                                  << ", within the bound " << kMaxRelativeError);
}

// Returns the worst per-position relative error seen (or infinity when the model did not run).
double checkModel(const Expected& e, const fs::path& dir) {
    std::printf("%s\n", e.folder);
    nlohmann::json ref;
    std::vector<int32_t> ids;
    try {
        std::ifstream in(dir / "reference.json");
        ref = nlohmann::json::parse(in);
        ids = ref.at("input_ids").get<std::vector<int32_t>>();
    } catch (const std::exception& ex) {
        CHECK_MSG(false, (dir / "reference.json").string() << ": " << ex.what());
        return INFINITY;
    }
    // make_hf_references.py feeds 16 tokens: a shorter reference would check fewer positions.
    CHECK_MSG(ids.size() == 16, e.folder << ": " << ids.size() << " input ids, expected 16");
    if (ids.empty()) return INFINITY;
    NpyArray logits;
    std::string error;
    const fs::path npy = dir / ref.value("logits_file", std::string("logits.npy"));
    if (!readNpyF32(npy, logits, error)) {
        CHECK_MSG(false, npy.string() << ": " << error);
        return INFINITY;
    }

    auto loaded = Model::load({dir.string()});
    CHECK_OK(loaded);
    if (!loaded.isOk()) return INFINITY;
    const Model& model = **loaded;
    const ModelInfo& info = model.info();
    const int64_t vocab = info.vocabSize;
    CHECK_EQ(info.format, std::string("hf"));
    CHECK_EQ(info.architecture, std::string(e.architecture));
    CHECK_EQ(info.ropeScaling, std::string(e.ropeScaling));
    CHECK_EQ(info.tiedEmbeddings, e.tied);
    CHECK(logits.shape == (std::vector<int64_t>{int64_t(ids.size()), vocab}));
    if (logits.shape != std::vector<int64_t>{int64_t(ids.size()), vocab}) return INFINITY;
    checkRopeTable(e, loadedModel(model).config, ref.value("rope", nlohmann::json()));

    const std::vector<float> ours = engineLogits(dir, ids);
    CHECK_EQ(ours.size(), logits.values.size());
    if (ours.size() != logits.values.size()) return INFINITY;

    double worst = 0;
    size_t worstPos = 0;
    int argmaxCompared = 0, argmaxEqual = 0;
    for (size_t pos = 0; pos < ids.size(); ++pos) {
        const float* a = ours.data() + pos * vocab;
        const float* r = logits.values.data() + pos * vocab;
        const double rel = positionError(a, r, vocab);
        if (rel > worst) {
            worst = rel;
            worstPos = pos;
        }
        CHECK_MSG(rel <= kMaxRelativeError,
                  e.folder << " position " << pos << ": relative error " << rel << " > " << kMaxRelativeError);

        const int64_t refArg = std::max_element(r, r + vocab) - r;
        const int64_t ourArg = std::max_element(a, a + vocab) - a;
        float second = -INFINITY;
        for (int64_t v = 0; v < vocab; ++v)
            if (v != refArg) second = std::max(second, r[v]);
        if (r[refArg] - second > kArgmaxMargin) {
            ++argmaxCompared;
            if (ourArg == refArg) ++argmaxEqual;
            CHECK_MSG(ourArg == refArg,
                      e.folder << " position " << pos << ": argmax " << ourArg << ", transformers " << refArg);
        }
    }
    std::printf("  logits: max relative error %.3e (position %zu) over %zu positions, argmax equal at %d of %d "
                "clear positions; transformers %s\n",
                worst, worstPos, ids.size(), argmaxEqual, argmaxCompared,
                ref.value("transformers_version", std::string("?")).c_str());
    checkBoundSeesEpsError(e, dir, ids, logits.values, vocab);
    return worst;
}

} // namespace

int main() {
    test::announce("hf_reference", "cpu");
    const fs::path root = fs::path(HEARTH_SOURCE_DIR) / "tests" / "data" / "hf-reference";
    std::vector<std::pair<std::string, double>> summary;
    for (const Expected& e : kModels) {
        const fs::path dir = root / e.folder;
        std::error_code ec;
        if (!fs::is_directory(dir, ec)) {
            CHECK_MSG(false, dir.string() << ": missing (regenerate with tests/reference/make_hf_references.py)");
            continue;
        }
        summary.emplace_back(e.folder, checkModel(e, dir));
    }
    std::printf("summary (max relative error per position, limit %.0e):\n", kMaxRelativeError);
    for (const auto& [name, err] : summary) std::printf("  %-14s %.3e\n", name.c_str(), err);
    return test::finish();
}
