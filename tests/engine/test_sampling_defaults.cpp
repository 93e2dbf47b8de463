// The sampling a model recommends (ModelInfo::sampling): from a Hugging Face folder's
// generation_config.json (do_sample false: greedy), from a GGUF's general.sampling.* keys and a
// generation_config.json beside the .gguf for what the keys leave out; nothing when the files say
// nothing; values of the wrong type or out of range left out with the key named, never an error.
#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "check.h"
#include "hearth/model.h"
#include "model/sampling_defaults.h"
#include "model_builder.h"
#include "testdata.h"

using namespace hearth;
namespace fs = std::filesystem;

namespace {

void writeJson(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

// describeModelFile and Model::load must agree; the described defaults are returned.
SamplingDefaults describedAndLoaded(const fs::path& path) {
    auto described = describeModelFile(path.string());
    CHECK_OK(described);
    auto loaded = Model::load({.path = path.string(), .threads = 1});
    CHECK_OK(loaded);
    if (!described.isOk() || !loaded.isOk()) return {};
    const SamplingDefaults& d = described.value().sampling;
    const SamplingDefaults& l = loaded.value()->info().sampling;
    CHECK(d.temperature == l.temperature && d.topK == l.topK && d.topP == l.topP && d.minP == l.minP &&
          d.repetitionPenalty == l.repetitionPenalty);
    CHECK_EQ(d.problems, l.problems);
    return d;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Every field stated with these values, and nothing left out.
void checkAllStated(const SamplingDefaults& s, double temperature, int topK, double topP, double minP, double penalty) {
    CHECK_NEAR(s.temperature.value_or(-1), temperature, 1e-6);
    CHECK_EQ(s.topK.value_or(-1), topK);
    CHECK_NEAR(s.topP.value_or(-1), topP, 1e-6);
    CHECK_NEAR(s.minP.value_or(-1), minP, 1e-6);
    CHECK_NEAR(s.repetitionPenalty.value_or(-1), penalty, 1e-6);
    CHECK_EQ(s.problems, "");
}

void hfGenerationConfig(const fs::path& dir) {
    const fs::path folder = dir / "hf";
    test::writeTinyHfFolder({}, folder);
    // As the tiny builder writes it: stop ids only, so the model says nothing about sampling.
    const SamplingDefaults none = describedAndLoaded(folder);
    CHECK(none.empty());
    CHECK_EQ(none.problems, "");

    writeJson(folder / "generation_config.json",
              R"({"bos_token_id": 1, "eos_token_id": 2, "do_sample": true, "temperature": 0.6, "top_k": 20,
                  "top_p": 0.95, "min_p": 0.05, "repetition_penalty": 1.1, "typical_p": null})");
    const SamplingDefaults s = describedAndLoaded(folder);
    CHECK(!s.empty());
    checkAllStated(s, 0.6, 20, 0.95, 0.05, 1.1);
    // Over a base: the stated fields replace the base's, the rest (seed, window) stay.
    SamplingParams base;
    base.seed = 99;
    base.repetitionWindow = 7;
    const SamplingParams p = s.over(base);
    CHECK_NEAR(p.temperature, 0.6, 1e-6);
    CHECK_EQ(p.topK, 20);
    CHECK_EQ(p.seed, 99u);
    CHECK_EQ(p.repetitionWindow, 7);

    // do_sample false: transformers decodes greedily whatever temperature says.
    writeJson(folder / "generation_config.json", R"({"eos_token_id": 2, "do_sample": false, "temperature": 0.7, "top_p": 0.8})");
    const SamplingDefaults greedy = describedAndLoaded(folder);
    CHECK_EQ(greedy.temperature.value_or(-1), 0.0f);
    CHECK_NEAR(greedy.topP.value_or(-1), 0.8, 1e-6);
    CHECK(!greedy.topK);
}

void ggufKeysAndFileBeside(const fs::path& dir) {
    const fs::path folder = dir / "gguf";
    fs::create_directories(folder);
    test::TinyModelSpec plain;
    test::writeTinyGguf(plain, folder / "plain.gguf");
    CHECK(describedAndLoaded(folder / "plain.gguf").empty());

    test::TinyModelSpec spec;
    spec.extraFloatKeys = {{"general.sampling.temp", 0.8f}, {"general.sampling.top_p", 0.9f},
                           {"general.sampling.min_p", 0.02f}, {"general.sampling.penalty_repeat", 1.05f}};
    spec.extraUIntKeys = {{"general.sampling.top_k", 40}};
    test::writeTinyGguf(spec, folder / "keyed.gguf");
    checkAllStated(describedAndLoaded(folder / "keyed.gguf"), 0.8, 40, 0.9, 0.02, 1.05);

    // A generation_config.json beside the file fills in what its keys leave out; its keys win.
    test::TinyModelSpec some;
    some.extraFloatKeys = {{"general.sampling.temp", 0.4f}};
    test::writeTinyGguf(some, folder / "some.gguf");
    writeJson(folder / "generation_config.json", R"({"temperature": 1.3, "top_k": 5, "min_p": 0.1})");
    const SamplingDefaults mixed = describedAndLoaded(folder / "some.gguf");
    CHECK_NEAR(mixed.temperature.value_or(-1), 0.4, 1e-6);
    CHECK_EQ(mixed.topK.value_or(-1), 5);
    CHECK_NEAR(mixed.minP.value_or(-1), 0.1, 1e-6);
    CHECK(!mixed.topP && !mixed.repetitionPenalty);
    // The plain file in the same folder now takes the folder's file alone.
    const SamplingDefaults fromFolder = describedAndLoaded(folder / "plain.gguf");
    CHECK_NEAR(fromFolder.temperature.value_or(-1), 1.3, 1e-6);
}

// Wrong types and values out of range are left out and named; the rest is read; nothing fails.
void malformedValues(const fs::path& dir) {
    const fs::path folder = dir / "malformed";
    test::writeTinyHfFolder({}, folder);
    writeJson(folder / "generation_config.json",
              R"({"eos_token_id": 2, "do_sample": "yes", "temperature": "hot", "top_k": 2.5, "top_p": 1.5,
                  "min_p": -0.1, "repetition_penalty": 0})");
    const SamplingDefaults hf = describedAndLoaded(folder);
    CHECK_MSG(hf.empty(), hf.problems);
    for (const char* part : {"do_sample must be true or false, got \"yes\"", "temperature must be a number >= 0, got \"hot\"",
                             "top_k must be a whole number >= 0, got 2.5", "top_p must be a number in (0, 1], got 1.5",
                             "min_p must be a number in [0, 1], got -0.1", "repetition_penalty must be a number > 0, got 0"})
        CHECK_MSG(contains(hf.problems, part), hf.problems << " lacks " << part);
    CHECK(contains(hf.problems, (folder / "generation_config.json").string()));

    const fs::path ggufFolder = dir / "malformed-gguf";
    fs::create_directories(ggufFolder);
    test::TinyModelSpec spec;
    spec.extraStringKeys = {{"general.sampling.temp", "warm"}};
    spec.extraFloatKeys = {{"general.sampling.top_p", 2.0f}, {"general.sampling.penalty_repeat", INFINITY},
                           {"general.sampling.min_p", 0.25f}};
    test::writeTinyGguf(spec, ggufFolder / "m.gguf");
    writeJson(ggufFolder / "generation_config.json", "{ not json");
    const SamplingDefaults g = describedAndLoaded(ggufFolder / "m.gguf");
    CHECK_NEAR(g.minP.value_or(-1), 0.25, 1e-6); // the good key is kept
    CHECK(!g.temperature && !g.topP && !g.repetitionPenalty && !g.topK);
    for (const char* part : {"key general.sampling.temp must be a number >= 0, got a string",
                             "key general.sampling.top_p must be a number in (0, 1], got 2",
                             "key general.sampling.penalty_repeat must be a number > 0, got inf",
                             "invalid JSON"})
        CHECK_MSG(contains(g.problems, part), g.problems << " lacks " << part);

    // Not an object, and nulls (what transformers writes for an unset field).
    SamplingHints hints;
    addGenerationConfigSampling(nlohmann::json::array({1, 2}), "g.json", hints);
    CHECK_EQ(hints.problems, "g.json: expected a JSON object (left out)");
    SamplingHints nulls;
    addGenerationConfigSampling(nlohmann::json::parse(R"({"temperature": null, "top_k": 3})"), "g.json", nulls);
    CHECK(!nulls.temperature);
    CHECK_EQ(nulls.topK.value_or(-1), 3);
    CHECK_EQ(nulls.problems, "");
}

} // namespace

int main() {
    test::announce("sampling_defaults", "cpu");
    const fs::path dir = test::scratchDir("sampling_defaults");
    hfGenerationConfig(dir);
    ggufKeysAndFileBeside(dir);
    malformedValues(dir);
    return test::finish();
}
