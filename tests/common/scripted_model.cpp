#include "scripted_model.h"

#include <algorithm>
#include <cstring>
#include <fstream>

#include <nlohmann/json.hpp>

#include "check.h"
#include "io/gguf.h"
#include "synth/synth.h"
#include "tokenizer/tokenizer.h"

namespace hearth::test {
namespace fs = std::filesystem;

namespace {

// Qwen3's real vocabulary (151,936 rows) with tiny widths.
struct TinyQwen3Shape {
    int hidden = 64, ffn = 128, heads = 2, kvHeads = 1, headDim = 32, context = 2048;
    bool tiedEmbeddings = true;
};

// Synth's random model of `shape` carrying the tokenizer at `tokenizerJson`, through a config.json
// written to `configDir`. `skipTensorData`: header and tensor table only (see SynthParams).
bool synthTinyQwen3(const fs::path& configDir, const TinyQwen3Shape& shape, const fs::path& tokenizerJson,
                    QuantPreset preset, uint64_t seed, bool skipTensorData, const fs::path& out) {
    fs::create_directories(configDir);
    std::ofstream(configDir / "config.json") << nlohmann::json{
        {"model_type", "qwen3"}, {"vocab_size", 151936}, {"hidden_size", shape.hidden},
        {"intermediate_size", shape.ffn}, {"num_hidden_layers", 1}, {"num_attention_heads", shape.heads},
        {"num_key_value_heads", shape.kvHeads}, {"head_dim", shape.headDim},
        {"max_position_embeddings", shape.context}, {"rms_norm_eps", 1e-6}, {"rope_theta", 1e6},
        {"tie_word_embeddings", shape.tiedEmbeddings}, {"hidden_act", "silu"}}.dump();
    SynthParams p;
    p.configPath = (configDir / "config.json").string();
    p.tokenizerPath = tokenizerJson.string();
    p.preset = preset;
    p.seed = seed;
    p.skipTensorData = skipTensorData;
    p.outputPath = out.string();
    const Status written = writeSynthModel(p);
    CHECK_OK(written);
    return written.isOk();
}

} // namespace

bool writeScriptedGguf(const fs::path& base, const fs::path& out, const std::vector<int32_t>& chain, int32_t fallback) {
    auto file = io::GgufFile::open(base.string());
    CHECK_OK(file);
    if (!file.isOk()) return false;
    const io::GgufTensorInfo* embd = file.value().findTensor("token_embd.weight");
    CHECK(embd && embd->type == DType::F32 && embd->ne.size() == 2);
    if (!embd || embd->type != DType::F32 || embd->ne.size() != 2) return false;
    const uint64_t hidden = embd->ne[0], vocab = embd->ne[1];
    std::vector<int32_t> sorted = chain;
    std::sort(sorted.begin(), sorted.end());
    const bool usable = chain.size() < hidden && std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end() &&
                        std::all_of(chain.begin(), chain.end(), [&](int32_t id) { return id >= 0 && uint64_t(id) < vocab; });
    CHECK_MSG(usable, "the chain needs distinct ids in the vocabulary, fewer than the hidden size " << hidden);
    if (!usable) return false;

    io::GgufWriter writer;
    for (const auto& [key, value] : file.value().metadata()) writer.set(key, value);
    for (const io::GgufTensorInfo& t : file.value().tensors()) {
        CHECK_MSG(t.type == DType::F32, t.name << " is not F32");
        std::vector<float> v(t.elements(), 0.0f);
        auto at = [&](uint64_t row, uint64_t column) -> float& { return v[row * hidden + column]; };
        if (t.name.ends_with("norm.weight")) {
            std::fill(v.begin(), v.end(), 1.0f);
        } else if (t.name == "token_embd.weight") {
            // Slot 0 stands for "any other token"; chain[i] (all but the last) gets slot i + 1.
            for (uint64_t row = 0; row < vocab; ++row) at(row, 0) = 1.0f;
            for (size_t i = 0; i + 1 < chain.size(); ++i) {
                at(uint64_t(chain[i]), 0) = 0.0f;
                at(uint64_t(chain[i]), i + 1) = 1.0f;
            }
        } else if (t.name == "output.weight") {
            // The final norm scales a one-hot row to sqrt(hidden): logits of about 45, others 0.
            at(uint64_t(fallback), 0) = 8.0f;
            for (size_t i = 0; i + 1 < chain.size(); ++i) at(uint64_t(chain[i + 1]), i + 1) = 8.0f;
        }
        std::vector<uint8_t> bytes(v.size() * sizeof(float));
        std::memcpy(bytes.data(), v.data(), bytes.size());
        writer.addTensor(t.name, DType::F32, t.ne, std::move(bytes));
    }
    const Status written = writer.write(out.string());
    CHECK_OK(written);
    return written.isOk();
}

fs::path writeThinkingQwen3(const fs::path& dir, const fs::path& qwen3TokenizerJson, const ThinkingReply& reply) {
    // Only the metadata and tensor table are kept: writeScriptedGguf writes the weights.
    const TinyQwen3Shape shape{.hidden = 32, .ffn = 32, .heads = 4, .kvHeads = 2, .headDim = 8, .context = 1024,
                               .tiedEmbeddings = false};
    const fs::path basePath = dir / "qwen3-base.gguf";
    if (!synthTinyQwen3(dir / "qwen3-scripted", shape, qwen3TokenizerJson, QuantPreset::F32, 1, true, basePath))
        return {};

    auto base = io::GgufFile::open(basePath.string());
    CHECK_OK(base);
    if (!base.isOk()) return {};
    auto tok = loadTokenizerFromGguf(base.value());
    CHECK_OK(tok);
    if (!tok.isOk()) return {};
    std::vector<int32_t> chain;
    auto add = [&](const std::string& text, bool special) {
        const std::vector<int32_t> ids = tok.value()->encode(text, false, special);
        chain.insert(chain.end(), ids.begin(), ids.end());
        return ids.size();
    };
    // The generation prompt ends with "\n"; with thinking off it ends with "</think>\n\n".
    CHECK_EQ(add("\n", false), 1u);
    CHECK_EQ(add("<think>", true), 1u);
    add(reply.reasoning, false);
    CHECK_EQ(add("</think>", true), 1u);
    CHECK_EQ(add("\n\n", false), 1u);
    add(reply.answer, false);
    CHECK_EQ(add("<|im_end|>", true), 1u);
    const fs::path out = dir / "qwen3-scripted.gguf";
    if (!writeScriptedGguf(basePath, out, chain, chain.back())) return {};
    fs::remove(basePath);
    return out;
}

std::string writeTinyQwen3(const std::filesystem::path& dir, const std::filesystem::path& tokenizerJson,
                           const std::string& name, uint64_t seed) {
    const fs::path out = dir / name;
    return synthTinyQwen3(dir, TinyQwen3Shape{}, tokenizerJson, QuantPreset::Q8_0, seed, false, out) ? out.string()
                                                                                                      : std::string();
}

} // namespace hearth::test
