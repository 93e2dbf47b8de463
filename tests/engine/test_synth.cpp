// hearth-cli synth: random-weight models of real shapes. Tiny shapes are written, loaded and run;
// output bytes depend on the seed only (never on the thread count); weights have the promised
// statistics in every type; big shapes are checked through their plan and a sparse header-only
// file (real vocabulary and widths, no gigabytes written); real tokenizers are embedded and
// padded; bad input leaves no file behind.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>

#include <nlohmann/json.hpp>

#include "check.h"
#include "test_helpers.h"
#include "hearth/engine.h"
#include "io/gguf.h"
#include "model/model_loader.h"
#include "synth/synth.h"
#include "quant/dequantize.h"
#include "testdata.h"
#include "tokenizer/tokenizer.h"
#include "runtime/session_testing.h"

using namespace hearth;
namespace fs = std::filesystem;

namespace {

fs::path g_dir;

std::string path(const std::string& name) { return (g_dir / name).string(); }

SynthParams params(const std::string& shape, QuantPreset preset, uint64_t seed, const std::string& out) {
    SynthParams p;
    p.shape = shape;
    p.preset = preset;
    p.seed = seed;
    p.outputPath = path(out);
    p.threads = 2;
    return p;
}

std::string fileBytes(const std::string& p) { return test::readTextFile(p); }

Result<std::unique_ptr<Model>> loadAt(const std::string& file) {
    ModelParams p;
    p.path = file;
    p.threads = 2;
    return Model::load(p);
}

struct Stats {
    double mean = 0, std = 0;
    bool finite = true;
};

Stats statsOf(const io::GgufTensorInfo& t) {
    std::vector<float> values(t.elements());
    const int64_t row = int64_t(t.ne[0]), rows = int64_t(values.size()) / row;
    const uint64_t rowBytes = t.bytes / uint64_t(rows);
    for (int64_t r = 0; r < rows; ++r) dequantizeRow(t.type, t.data + r * rowBytes, values.data() + r * row, row);
    Stats s;
    double sum = 0, sq = 0;
    for (float v : values) {
        s.finite = s.finite && std::isfinite(v);
        sum += v;
        sq += double(v) * v;
    }
    s.mean = sum / values.size();
    s.std = std::sqrt(std::max(0.0, sq / values.size() - s.mean * s.mean));
    return s;
}

// The type each tensor of an untied synth file must have, written out here rather than asked of
// the planner that chose them: vectors F32; a single-type preset's matrices its type; Q4_K_M and
// Q5_K_M: the LM head Q6_K, and attn_v/ffn_down Q6_K in the layers of `moreBits` (use_more_bits by
// hand: layers 2, 3 of 4; layer 1 of 2), other matrices Q4_K/Q5_K. Every width here is a multiple
// of 256, so no row fallback applies.
DType expectedType(const io::GgufTensorInfo& t, QuantPreset preset, const std::vector<int>& moreBits) {
    if (t.ne.size() < 2) return DType::F32;
    switch (preset) {
    case QuantPreset::F32: return DType::F32;
    case QuantPreset::F16: return DType::F16;
    case QuantPreset::BF16: return DType::BF16;
    case QuantPreset::Q8_0: return DType::Q8_0;
    case QuantPreset::Q4_0: return DType::Q4_0;
    case QuantPreset::Q5_0: return DType::Q5_0;
    case QuantPreset::Q4_K: return DType::Q4_K;
    case QuantPreset::Q5_K: return DType::Q5_K;
    case QuantPreset::Q6_K: return DType::Q6_K;
    case QuantPreset::Q4_K_M:
    case QuantPreset::Q5_K_M: break;
    }
    if (t.name == "output.weight") return DType::Q6_K;
    const bool tagged = t.name.find(".attn_v.") != std::string::npos || t.name.find(".ffn_down.") != std::string::npos;
    const int layer = t.name.rfind("blk.", 0) == 0 ? std::atoi(t.name.c_str() + 4) : -1;
    if (tagged && std::find(moreBits.begin(), moreBits.end(), layer) != moreBits.end()) return DType::Q6_K;
    return preset == QuantPreset::Q4_K_M ? DType::Q4_K : DType::Q5_K;
}

void checkTypes(const io::GgufFile& f, QuantPreset preset, const std::vector<int>& moreBits) {
    for (const io::GgufTensorInfo& t : f.tensors()) {
        const DType expected = expectedType(t, preset, moreBits);
        CHECK_MSG(t.type == expected, quantPresetName(preset) << " " << t.name << ": " << dtypeName(t.type)
                                                              << ", expected " << dtypeName(expected));
    }
}

void checkTinyShapes() {
    const struct {
        const char* shape;
        size_t tensors;
    } shapes[] = {{"tiny-llama", 39}, {"tiny-qwen2", 51}, {"tiny-qwen3", 47}};
    // Every architecture at three presets, and every other preset on tiny-llama (its values'
    // statistics check each block layout against the dequantizer).
    std::vector<std::pair<const char*, QuantPreset>> cases;
    for (const auto& s : shapes)
        for (QuantPreset preset : {QuantPreset::F32, QuantPreset::Q8_0, QuantPreset::Q4_K_M}) cases.emplace_back(s.shape, preset);
    for (QuantPreset preset : {QuantPreset::F16, QuantPreset::BF16, QuantPreset::Q4_0, QuantPreset::Q5_0,
                               QuantPreset::Q4_K, QuantPreset::Q5_K, QuantPreset::Q6_K, QuantPreset::Q5_K_M})
        cases.emplace_back("tiny-llama", preset);
    for (const auto& [shape, preset] : cases) {
        const auto& s = *std::find_if(std::begin(shapes), std::end(shapes),
                                      [&](const auto& x) { return std::string(x.shape) == shape; });
            const std::string out = std::string(s.shape) + "-" + quantPresetName(preset) + ".gguf";
            SynthSummary summary;
            CHECK_OK(writeSynthModel(params(s.shape, preset, 11, out), &summary));
            auto file = io::GgufFile::open(path(out));
            CHECK_OK(file);
            if (!file.isOk()) continue;
            const io::GgufFile& f = file.value();
            CHECK_EQ(f.tensors().size(), s.tensors);
            CHECK_EQ(f.getUInt("general.file_type").value(), ggufFileType(preset));
            CHECK_EQ(f.find("general.quantization_version") != nullptr, presetIsQuantized(preset));
            CHECK_EQ(f.getString("general.name").value(), std::string(s.shape) + " (synthetic)");
            CHECK_EQ(summary.fileBytes, fs::file_size(path(out)));
            checkTypes(f, preset, {2, 3});

            // Every tensor finite; matrices ~N(0, 0.02) (quantized: looser), norms ~1 + N(0, 0.02).
            for (const io::GgufTensorInfo& t : f.tensors()) {
                const Stats st = statsOf(t);
                CHECK_MSG(st.finite, out << ": " << t.name << " has non-finite values");
                // Tolerances: 10% (F32) or 15% (quantized) on the std, widened to 5 standard
                // errors for short vectors (a 64-element norm's sample std varies by ~9%).
                const bool norm = t.name.find("norm") != std::string::npos;
                const double n = double(t.elements());
                const double stdTol = std::max(t.type == DType::F32 ? 0.1 : 0.15, 5.0 / std::sqrt(2.0 * n));
                const double meanTol = std::max(0.0005, 5.0 * 0.02 / std::sqrt(n));
                if (t.ne.size() == 2 || norm) {
                    CHECK_MSG(std::fabs(st.std - 0.02) <= 0.02 * stdTol, out << ": " << t.name << " std " << st.std);
                    CHECK_MSG(std::fabs(st.mean - (norm ? 1.0 : 0.0)) < meanTol, out << ": " << t.name << " mean " << st.mean);
                }
            }

            auto model = loadAt(path(out));
            CHECK_OK(model);
            if (!model.isOk()) continue;
            const ModelInfo& info = model.value()->info();
            CHECK_EQ(info.vocabSize, 4096);
            CHECK_EQ(info.hidden, 256);
            CHECK_EQ(info.layers, 4);
            CHECK_EQ(info.headDim, 64);
            SessionParams sp;
            sp.contextLength = 64;
            auto session = Session::create(*model.value(), sp);
            CHECK_OK(session);
            if (!session.isOk()) continue;
            std::vector<float> logits;
            GenerateParams g;
            g.maxTokens = 4;
            g.useModelStopIds = false;
            auto r = SessionTesting::generateWithLogits(*session.value(), model.value()->encode("Hello world", true), g, logits);
            CHECK_OK(r);
            if (!r.isOk()) continue;
            CHECK_EQ(r.value().outputIds.size(), size_t(4));
            CHECK(!logits.empty());
            bool finite = true;
            for (float v : logits) finite = finite && std::isfinite(v);
            CHECK_MSG(finite, out << ": non-finite logits");
            std::printf("%-24s %zu tensors, %8llu bytes, %.3f s, greedy ok\n", out.c_str(), f.tensors().size(),
                        (unsigned long long)summary.fileBytes, summary.seconds);
        }
}

void checkDeterminism() {
    CHECK_OK(writeSynthModel(params("tiny-qwen3", QuantPreset::Q4_K_M, 5, "a.gguf")));
    SynthParams oneThread = params("tiny-qwen3", QuantPreset::Q4_K_M, 5, "b.gguf");
    oneThread.threads = 1;
    CHECK_OK(writeSynthModel(oneThread));
    CHECK_OK(writeSynthModel(params("tiny-qwen3", QuantPreset::Q4_K_M, 6, "c.gguf")));
    const std::string a = fileBytes(path("a.gguf")), b = fileBytes(path("b.gguf")), c = fileBytes(path("c.gguf"));
    CHECK(!a.empty());
    CHECK_MSG(a == b, "1 and 2 threads wrote different bytes");
    CHECK(a.size() == c.size());
    // Only the seed key and the data may differ.
    CHECK_MSG(a != c, "seeds 5 and 6 wrote the same bytes");
    SynthParams f32a = params("tiny-llama", QuantPreset::F16, 9, "d.gguf"), f32b = f32a;
    f32b.outputPath = path("e.gguf");
    f32b.threads = 3;
    CHECK_OK(writeSynthModel(f32a));
    CHECK_OK(writeSynthModel(f32b));
    CHECK(fileBytes(path("d.gguf")) == fileBytes(path("e.gguf")));
    for (const char* name : {"a.gguf", "b.gguf", "c.gguf", "d.gguf", "e.gguf"}) fs::remove(path(name));
}

void checkRealShapePlans() {
    const struct {
        const char* shape;
        double billions;
        double q4kmGB; // expected size of the data at Q4_K_M, roughly (llama.cpp's files)
    } shapes[] = {{"llama-3-8b", 8.03, 4.9}, {"llama-3.1-8b", 8.03, 4.9}, {"qwen2.5-7b", 7.62, 4.7},
                  {"qwen2.5-32b", 32.76, 19.9}, {"qwen3-8b", 8.19, 5.0}, {"qwen3-32b", 32.76, 19.8},
                  {"small-100m", 0.1001, 0.07}};
    for (const auto& s : shapes) {
        SynthParams p = params(s.shape, QuantPreset::Q4_K_M, 1, "unused.gguf");
        auto plan = planSynthModel(p);
        CHECK_OK(plan);
        if (!plan.isOk()) continue;
        const double billions = plan.value().parameterCount / 1e9, gb = plan.value().dataBytes / 1e9;
        std::printf("%-14s %6.3f B parameters, Q4_K_M data %6.2f GB\n", s.shape, billions, gb);
        CHECK_MSG(std::fabs(billions - s.billions) < 0.01 * s.billions, s.shape << ": " << billions << " B");
        CHECK_MSG(std::fabs(gb - s.q4kmGB) < 0.08 * s.q4kmGB, s.shape << ": " << gb << " GB");
    }
}

// qwen3-32b with 2 layers: the real vocabulary and widths, loaded from a sparse file.
void checkBigShapeHeader() {
    SynthParams p = params("qwen3-32b", QuantPreset::Q4_K_M, 1, "q32.gguf");
    p.layers = 2;
    p.skipTensorData = true;
    CHECK_OK(writeSynthModel(p));
    auto d = describeModel(path("q32.gguf"));
    CHECK_OK(d);
    if (d.isOk()) {
        const ModelConfig& c = d.value().config;
        CHECK_EQ(c.vocabSize, 151936);
        CHECK_EQ(c.hidden, 5120);
        CHECK_EQ(c.layers, 2);
        CHECK_EQ(c.heads, 64);
        CHECK_EQ(c.kvHeads, 8);
        CHECK_EQ(c.headDim, 128);
        CHECK_EQ(c.ffn, 25600);
        CHECK_EQ(c.contextLength, 40960);
        CHECK(c.qkNorm && !c.tiedEmbeddings);
    }
    auto f = io::GgufFile::open(path("q32.gguf"));
    CHECK_OK(f);
    if (f.isOk()) checkTypes(f.value(), QuantPreset::Q4_K_M, {1});
    auto model = loadAt(path("q32.gguf"));
    CHECK_OK(model);
    if (model.isOk()) CHECK_EQ(model.value()->info().vocabSize, 151936);
    fs::remove(path("q32.gguf"));

    // Llama 3.1: RoPE scaling as rope_freqs.weight factors, which the loader applies.
    SynthParams l31 = params("llama-3.1-8b", QuantPreset::Q4_K_M, 1, "l31.gguf");
    l31.layers = 1;
    l31.skipTensorData = true;
    CHECK_OK(writeSynthModel(l31));
    auto d31 = describeModel(path("l31.gguf"));
    CHECK_OK(d31);
    if (d31.isOk()) {
        const RopeParams& rope = d31.value().config.rope;
        CHECK_EQ(d31.value().config.contextLength, 131072);
        CHECK_EQ(rope.freqFactors.size(), size_t(64));
        if (rope.freqFactors.size() == 64) {
            CHECK_NEAR(rope.freqFactors.front(), 1.0, 1e-6);
            CHECK_NEAR(rope.freqFactors.back(), 8.0, 1e-6);
        }
        RopeParams reference = rope;
        reference.freqFactors.clear();
        reference.scaling = RopeScaling::Llama3;
        reference.factor = 8;
        reference.lowFreqFactor = 1;
        reference.highFreqFactor = 4;
        reference.originalContext = 8192;
        const RopeTable fromFile = computeRopeTable(rope), expected = computeRopeTable(reference);
        for (size_t i = 0; i < expected.inverseFrequencies.size(); ++i)
            CHECK_NEAR(fromFile.inverseFrequencies[i], expected.inverseFrequencies[i],
                       1e-5 * expected.inverseFrequencies[i]);
    }
    fs::remove(path("l31.gguf"));
}

void checkTokenizers() {
    if (const auto qwenFile = test::optionalTestData("models/qwen3-tokenizer/tokenizer.json")) {
        const fs::path& qwen = *qwenFile;
        // A config.json with Qwen3's vocabulary and tiny widths.
        fs::create_directories(g_dir / "cfg");
        std::ofstream(g_dir / "cfg/config.json") << nlohmann::json{
            {"model_type", "qwen3"}, {"vocab_size", 151936}, {"hidden_size", 256}, {"intermediate_size", 768},
            {"num_hidden_layers", 1}, {"num_attention_heads", 4}, {"num_key_value_heads", 2}, {"head_dim", 64},
            {"max_position_embeddings", 4096}, {"rms_norm_eps", 1e-6}, {"rope_theta", 1e6},
            {"tie_word_embeddings", false}, {"hidden_act", "silu"}}.dump();
        SynthParams p = params("", QuantPreset::Q4_0, 2, "qtok.gguf");
        p.configPath = (g_dir / "cfg/config.json").string();
        p.tokenizerPath = qwen.string();
        p.skipTensorData = true;
        CHECK_OK(writeSynthModel(p));
        auto file = io::GgufFile::open(path("qtok.gguf"));
        CHECK_OK(file);
        if (file.isOk()) {
            const io::GgufFile& f = file.value();
            CHECK_EQ(f.getString("tokenizer.ggml.model").value(), "gpt2");
            CHECK_EQ(f.getString("tokenizer.ggml.pre").value(), "qwen2");
            CHECK_EQ(f.getString("general.name").value(), "cfg (synthetic)");
            const auto* tokens = f.find("tokenizer.ggml.tokens")->asArray();
            const auto* types = f.find("tokenizer.ggml.token_type")->asArray();
            const auto* merges = f.find("tokenizer.ggml.merges")->asArray();
            CHECK_EQ(tokens->size(), size_t(151936));
            CHECK_EQ(types->size(), size_t(151936));
            CHECK_EQ(merges->size(), size_t(151387));
            CHECK_EQ(*(*tokens)[151645].asString(), "<|im_end|>");
            CHECK_EQ((*types)[151645].asInt().value(), 3);  // special added token: control
            CHECK_EQ(*(*tokens)[151668].asString(), "</think>");
            CHECK_EQ((*types)[151668].asInt().value(), 4);  // non-special added token: user-defined
            CHECK_EQ(*(*tokens)[151669].asString(), "[PAD151669]");
            CHECK_EQ((*types)[151669].asInt().value(), 5);
            CHECK_EQ((*types)[100].asInt().value(), 1);
            CHECK_EQ(*(*merges)[0].asString(), "\xc4\xa0 \xc4\xa0"); // "Ġ Ġ"
            CHECK_EQ(f.getUInt("tokenizer.ggml.eos_token_id").value(), uint64_t(151645));
            CHECK_EQ(f.getUInt("tokenizer.ggml.padding_token_id").value(), uint64_t(151643));
            CHECK(f.find("tokenizer.ggml.bos_token_id") == nullptr);
            CHECK(!f.getBool("tokenizer.ggml.add_bos_token").value());
            CHECK(f.getString("tokenizer.chat_template").value().find("<|im_start|>") != std::string::npos);
        }
        auto d = describeModel(path("qtok.gguf")); // what inspect reads
        CHECK_OK(d);
        fs::remove(path("qtok.gguf"));

        // The same tokenizer does not fit a 4096-token shape.
        SynthParams small = params("tiny-qwen3", QuantPreset::F32, 1, "small.gguf");
        small.tokenizerPath = qwen.string();
        CHECK_ERR(writeSynthModel(small), StatusCode::InvalidArgument, "vocabulary of 4096");
        CHECK(!fs::exists(path("small.gguf")) && !fs::exists(path("small.gguf.part")));
    }

    // A SentencePiece tokenizer.model, padded: encodes as the original does.
    if (const auto spmFile = test::optionalTestData("models/stories260K/tok512.model")) {
        const fs::path& spm = *spmFile;
        SynthParams p = params("tiny-llama", QuantPreset::F32, 3, "spm.gguf");
        p.tokenizerPath = spm.string();
        CHECK_OK(writeSynthModel(p));
        auto model = loadAt(path("spm.gguf"));
        auto original = loadTokenizer(spm.string());
        CHECK_OK(model);
        CHECK_OK(original);
        if (model.isOk() && original.isOk()) {
            const std::string text = "Once upon a time, Zoë saw 42 cats.";
            CHECK(model.value()->encode(text, true) == original.value()->encode(text, true, false));
            CHECK_EQ(model.value()->info().vocabSize, 4096);
        }
        fs::remove(path("spm.gguf"));
    }
}

void checkBadInput() {
    CHECK_ERR(writeSynthModel(params("llama-9000", QuantPreset::F32, 1, "x.gguf")), StatusCode::InvalidArgument,
              "known shapes: llama-3-8b");
    SynthParams noTok = params("tiny-llama", QuantPreset::F32, 1, "x.gguf");
    noTok.tokenizerPath = path("missing/tokenizer.json");
    CHECK_ERR(writeSynthModel(noTok), StatusCode::NotFound, "tokenizer.json");
    std::ofstream(path("garbage.model")) << "this is not a protobuf";
    SynthParams garbage = noTok;
    garbage.tokenizerPath = path("garbage.model");
    CHECK(!writeSynthModel(garbage).isOk());
    std::ofstream(path("bad.json")) << "{\"model\": ";
    garbage.tokenizerPath = path("bad.json");
    CHECK_ERR(writeSynthModel(garbage), StatusCode::DataLoss, "bad.json");
    CHECK(!fs::exists(path("x.gguf")) && !fs::exists(path("x.gguf.part")));

    SynthParams missingFolder = params("tiny-llama", QuantPreset::F32, 1, "no/such/folder/out.gguf");
    CHECK(!writeSynthModel(missingFolder).isOk());
    CHECK(!fs::exists(path("no/such/folder/out.gguf")) && !fs::exists(path("no/such/folder/out.gguf.part")));
    CHECK(!fs::exists(path("no")));
}

using Outcome = test::CliOutcome;
Outcome cli(const std::string& args) { return test::runCli(g_dir, args, "", 120); }

void checkCli() {
    if (!std::getenv("HEARTH_CLI")) {
        std::printf("skipped CLI checks: HEARTH_CLI is not set\n");
        return;
    }
    const Outcome ok = cli("synth --shape tiny-qwen2 --type q8_0 --seed 4 --threads 2 " + path("cli.gguf"));
    CHECK_MSG(ok.exitCode == 0, ok.err);
    const auto j = nlohmann::json::parse(ok.out, nullptr, false);
    CHECK(!j.is_discarded() && j["tensors"] == 51 && j["preset"] == "Q8_0" && j["vocab_size"] == 4096);
    const Outcome inspect = cli("inspect -m " + path("cli.gguf") + " --json");
    CHECK_MSG(inspect.exitCode == 0, inspect.err);
    CHECK(inspect.out.find("\"architecture\":\"qwen2\"") != std::string::npos);

    const struct {
        std::string args, needle;
    } bad[] = {
        {"synth --shape nope --quant f32 --seed 1 " + path("o.gguf"), "known shapes: llama-3-8b"},
        {"synth --shape tiny-llama --quant Q3_X --seed 1 " + path("o.gguf"), "presets: F32, F16"},
        {"synth --shape tiny-llama --quant f32 " + path("o.gguf"), "--seed"},
        {"synth --shape tiny-llama --quant f32 --seed 1", "output path"},
        {"synth --quant f32 --seed 1 " + path("o.gguf"), "--shape NAME"},
        {"synth --shape tiny-llama --config c.json --quant f32 --seed 1 " + path("o.gguf"), "exactly one"},
        {"synth --shape tiny-llama --quant f32 --seed 1 --layers 0 " + path("o.gguf"), "--layers"},
        {"synth --shape tiny-llama --quant f32 --seed 1 --tokenizer " + path("none.json") + " " + path("o.gguf"),
         "none.json"},
        {"synth --shape tiny-llama --quant f32 --seed 1 " + path("nodir/o.gguf"), "cannot create"},
    };
    for (const auto& b : bad) {
        const Outcome o = cli(b.args);
        CHECK_MSG(o.exitCode > 0 && o.exitCode != 124, "`" << b.args << "` exited with " << o.exitCode);
        CHECK_MSG(o.out.empty(), "`" << b.args << "` printed " << o.out);
        CHECK_MSG(std::count(o.err.begin(), o.err.end(), '\n') == 1 && o.err.find(b.needle) != std::string::npos,
                  "`" << b.args << "`: '" << o.err << "' lacks '" << b.needle << "'");
    }
    CHECK(!fs::exists(path("o.gguf")) && !fs::exists(path("o.gguf.part")));
}

} // namespace

int main() {
    test::announce("synth", "cpu");
    g_dir = test::scratchDir("synth");
    const std::pair<const char*, void (*)()> parts[] = {
        {"tiny shapes", checkTinyShapes}, {"determinism", checkDeterminism}, {"real shape plans", checkRealShapePlans},
        {"big shape header", checkBigShapeHeader}, {"tokenizers", checkTokenizers}, {"bad input", checkBadInput},
        {"cli", checkCli}};
    for (const auto& [name, fn] : parts) {
        const auto start = std::chrono::steady_clock::now();
        fn();
        std::printf("-- %s: %.2f s\n", name,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return test::finish();
}
