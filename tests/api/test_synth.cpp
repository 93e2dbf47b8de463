// Test models through the public headers alone: synthesizeModel writes a GGUF that describes and
// loads as its result says, the same seed gives the same bytes, a config.json and a real
// tokenizer carry over, and bad requests leave nothing behind.
#include <filesystem>
#include <numeric>

#include "check.h"
#include "hearth/model.h"
#include "hearth/session.h"
#include "hearth/synth.h"
#include "testdata.h"

using namespace hearth;
namespace fs = std::filesystem;

namespace {

fs::path g_dir;

SynthModelParams tinyLlama(const std::string& file, uint64_t seed) {
    SynthModelParams p;
    p.shape = "tiny-llama";
    p.preset = "q8_0";
    p.seed = seed;
    p.layers = 2;
    p.threads = 2;
    p.outputPath = (g_dir / file).string();
    return p;
}

// What the result says is what describe and load find in the file.
void checkWrittenModel() {
    const std::vector<std::string> shapes = synthShapes();
    CHECK(std::find(shapes.begin(), shapes.end(), "tiny-llama") != shapes.end());
    CHECK(std::find(shapes.begin(), shapes.end(), "qwen3-8b") != shapes.end());

    auto written = synthesizeModel(tinyLlama("a.gguf", 7));
    CHECK_OK(written);
    if (!written.isOk()) return;
    const SynthModelResult& r = written.value();
    CHECK_EQ(r.shape, "tiny-llama");
    CHECK_EQ(r.architecture, "llama");
    CHECK_EQ(r.preset, "Q8_0");
    CHECK_EQ(r.layers, 2);
    CHECK(r.tensorTypeCounts.count("Q8_0") == 1);
    CHECK_EQ(r.tensorCount, std::accumulate(r.tensorTypeCounts.begin(), r.tensorTypeCounts.end(), 0,
                                            [](int n, const auto& kv) { return n + kv.second; }));
    CHECK_EQ(r.fileBytes, uint64_t(fs::file_size(g_dir / "a.gguf")));
    CHECK(!fs::exists(g_dir / "a.gguf.part"));

    auto described = describeModelFile((g_dir / "a.gguf").string());
    CHECK_OK(described);
    if (!described.isOk()) return;
    const ModelInfo& d = described.value();
    CHECK_EQ(d.format, "gguf");
    CHECK_EQ(d.architecture, r.architecture);
    CHECK_EQ(d.name, r.name);
    CHECK_EQ(d.layers, r.layers);
    CHECK_EQ(d.vocabSize, r.vocabSize);
    CHECK_EQ(d.parameterCount, r.parameterCount);
    CHECK(d.tensorTypeCounts == r.tensorTypeCounts);

    // It loads and runs: random weights, but a whole reply of in-vocabulary tokens.
    auto model = Model::load({.path = (g_dir / "a.gguf").string(), .threads = 1});
    CHECK_OK(model);
    if (!model.isOk()) return;
    CHECK(model.value()->info().tensorTypeCounts == r.tensorTypeCounts);
    auto session = Session::create(*model.value(), {.contextLength = 32});
    CHECK_OK(session);
    if (!session.isOk()) return;
    auto reply = session.value()->generate({1, 2, 3}, {.maxTokens = 4, .useModelStopIds = false});
    CHECK_OK(reply);
    if (reply.isOk()) CHECK_EQ(reply.value().outputIds.size(), size_t(4));
}

void checkSeeds() {
    CHECK_OK(synthesizeModel(tinyLlama("b.gguf", 7)));
    auto other = tinyLlama("c.gguf", 8);
    other.threads = 1; // the thread count never changes a byte; the seed does
    CHECK_OK(synthesizeModel(other));
    const std::string a = test::readTextFile(g_dir / "a.gguf");
    CHECK(!a.empty() && a == test::readTextFile(g_dir / "b.gguf"));
    CHECK(a != test::readTextFile(g_dir / "c.gguf"));
}

// A Hugging Face config.json gives the shape, and its own tokenizer comes along: the model
// encodes text as the real stories260K does.
void checkConfigAndTokenizer() {
    const fs::path hf = test::requireTestData("models/stories260K/hf");
    const fs::path real = test::requireTestData("models/stories260K/stories260K-f32.gguf");
    SynthModelParams p;
    p.configPath = (hf / "config.json").string();
    p.tokenizerPath = (hf / "tokenizer.model").string();
    p.seed = 3;
    p.outputPath = (g_dir / "stories-shaped.gguf").string();
    auto written = synthesizeModel(p);
    CHECK_OK(written);
    auto synth = Model::load({.path = p.outputPath, .threads = 1});
    auto original = Model::load({.path = real.string(), .threads = 1});
    CHECK_OK(synth);
    CHECK_OK(original);
    if (!written.isOk() || !synth.isOk() || !original.isOk()) return;
    const ModelInfo& s = synth.value()->info();
    const ModelInfo& o = original.value()->info();
    CHECK_EQ(written.value().preset, "F32");
    CHECK(s.hidden == o.hidden && s.layers == o.layers && s.heads == o.heads && s.kvHeads == o.kvHeads &&
          s.ffn == o.ffn && s.vocabSize == o.vocabSize);
    CHECK_EQ(s.parameterCount, o.parameterCount);
    const std::string text = "Once upon a time, a little dog";
    CHECK(synth.value()->encode(text, true) == original.value()->encode(text, true));
}

// Every refusal names the problem, and no output (nor its .part) is left.
void checkRefusals() {
    auto bad = [](SynthModelParams p, const std::string& needle) {
        p.outputPath = (g_dir / "bad.gguf").string();
        CHECK_ERR(synthesizeModel(p), StatusCode::InvalidArgument, needle);
        CHECK(!fs::exists(g_dir / "bad.gguf") && !fs::exists(g_dir / "bad.gguf.part"));
    };
    SynthModelParams p = tinyLlama("", 1);
    p.shape = "no-such-shape";
    bad(p, "known shapes: llama-3-8b");
    p = tinyLlama("", 1);
    p.preset = "Q3_nonsense";
    bad(p, "Q4_K_M");
    p.preset = "F32";
    p.configPath = "config.json";
    bad(p, "exactly one");
    p = tinyLlama("", 1);
    p.layers = 5000;
    bad(p, "layers");
    p = tinyLlama("", 1);
    p.outputPath = (g_dir / "missing" / "x.gguf").string();
    CHECK_ERR(synthesizeModel(p), StatusCode::InvalidArgument, "the folder " + (g_dir / "missing").string());
    CHECK(!fs::exists(g_dir / "missing"));
}

} // namespace

int main() {
    test::announce("synth", "cpu");
    g_dir = test::scratchDir("api_synth");
    for (void (*part)() : {checkWrittenModel, checkSeeds, checkConfigAndTokenizer, checkRefusals}) part();
    return test::finish();
}
