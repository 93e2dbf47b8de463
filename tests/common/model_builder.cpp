#include "model_builder.h"

#include <cmath>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include "io/gguf.h"
#include "quant/dequantize.h"
#include "tokenizer/sp_model_proto.h"

namespace hearth::test {
namespace {
namespace fs = std::filesystem;

// Vocabulary: <unk>, <s>, </s>, 256 byte tokens, then pieces "▁a".."▁z", letters, padding.
struct Vocab {
    std::vector<std::string> pieces;
    std::vector<float> scores;
    std::vector<int32_t> types;
};

Vocab makeVocab(int size) {
    Vocab v;
    auto add = [&](std::string piece, float score, TokenKind kind) {
        v.pieces.push_back(std::move(piece));
        v.scores.push_back(score);
        v.types.push_back(int32_t(kind));
    };
    add("<unk>", 0, TokenKind::Unknown);
    add("<s>", 0, TokenKind::Control);
    add("</s>", 0, TokenKind::Control);
    for (int b = 0; b < 256; ++b) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", b);
        add(name, 0, TokenKind::Byte);
    }
    const std::string space = "\xe2\x96\x81";
    add(space, -1, TokenKind::Normal);
    for (char c = 'a'; c <= 'z' && int(v.pieces.size()) < size; ++c) add(std::string(1, c), -2, TokenKind::Normal);
    for (char c = 'a'; c <= 'z' && int(v.pieces.size()) < size; ++c) add(space + c, -3, TokenKind::Normal);
    while (int(v.pieces.size()) < size) add("[PAD" + std::to_string(v.pieces.size()) + "]", -100, TokenKind::Unused);
    return v;
}

std::vector<uint8_t> encodeValues(const std::vector<float>& values, DType type) {
    std::vector<uint8_t> out;
    if (type == DType::F32) {
        out.resize(values.size() * 4);
        std::memcpy(out.data(), values.data(), out.size());
        return out;
    }
    out.resize(values.size() * 2);
    for (size_t i = 0; i < values.size(); ++i) {
        const uint16_t h = type == DType::F16 ? floatToHalf(values[i]) : floatToBf16(values[i]);
        std::memcpy(out.data() + 2 * i, &h, 2);
    }
    return out;
}

// HF rotate-half rows → GGUF adjacent-pair rows (what llama.cpp's converter does for llama).
std::vector<float> permuteToAdjacent(const std::vector<float>& w, int heads, int headDim, int cols) {
    std::vector<float> out(w.size());
    for (int h = 0; h < heads; ++h)
        for (int i = 0; i < headDim / 2; ++i)
            for (int c = 0; c < 2; ++c) {
                const float* src = &w[size_t(h * headDim + c * headDim / 2 + i) * cols];
                std::copy(src, src + cols, &out[size_t(h * headDim + 2 * i + c) * cols]);
            }
    return out;
}

} // namespace

std::vector<TinyTensor> makeTinyTensors(const TinyModelSpec& s) {
    std::mt19937_64 rng(s.seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<TinyTensor> t;
    auto matrix = [&](std::string gguf, std::string hf, int rows, int cols, float stdDev) {
        TinyTensor x{std::move(gguf), std::move(hf), {rows, cols}, std::vector<float>(size_t(rows) * cols)};
        for (float& v : x.values) v = normal(rng) * stdDev;
        t.push_back(std::move(x));
    };
    auto vector = [&](std::string gguf, std::string hf, int n, float mean, float stdDev) {
        TinyTensor x{std::move(gguf), std::move(hf), {n}, std::vector<float>(n)};
        for (float& v : x.values) v = mean + normal(rng) * stdDev;
        t.push_back(std::move(x));
    };
    const int q = s.heads * s.headDim, kv = s.kvHeads * s.headDim;
    matrix("token_embd.weight", "model.embed_tokens.weight", s.vocab, s.hidden, 0.5f);
    for (int l = 0; l < s.layers; ++l) {
        const std::string g = "blk." + std::to_string(l) + ".", h = "model.layers." + std::to_string(l) + ".";
        vector(g + "attn_norm.weight", h + "input_layernorm.weight", s.hidden, 1.0f, 0.1f);
        matrix(g + "attn_q.weight", h + "self_attn.q_proj.weight", q, s.hidden, 0.2f);
        matrix(g + "attn_k.weight", h + "self_attn.k_proj.weight", kv, s.hidden, 0.2f);
        matrix(g + "attn_v.weight", h + "self_attn.v_proj.weight", kv, s.hidden, 0.2f);
        if (s.arch == "qwen2") {
            vector(g + "attn_q.bias", h + "self_attn.q_proj.bias", q, 0.0f, 0.2f);
            vector(g + "attn_k.bias", h + "self_attn.k_proj.bias", kv, 0.0f, 0.2f);
            vector(g + "attn_v.bias", h + "self_attn.v_proj.bias", kv, 0.0f, 0.2f);
        }
        if (s.arch == "qwen3") {
            vector(g + "attn_q_norm.weight", h + "self_attn.q_norm.weight", s.headDim, 1.0f, 0.1f);
            vector(g + "attn_k_norm.weight", h + "self_attn.k_norm.weight", s.headDim, 1.0f, 0.1f);
        }
        matrix(g + "attn_output.weight", h + "self_attn.o_proj.weight", s.hidden, q, 0.2f);
        vector(g + "ffn_norm.weight", h + "post_attention_layernorm.weight", s.hidden, 1.0f, 0.1f);
        matrix(g + "ffn_gate.weight", h + "mlp.gate_proj.weight", s.ffn, s.hidden, 0.2f);
        matrix(g + "ffn_up.weight", h + "mlp.up_proj.weight", s.ffn, s.hidden, 0.2f);
        matrix(g + "ffn_down.weight", h + "mlp.down_proj.weight", s.hidden, s.ffn, 0.2f);
    }
    vector("output_norm.weight", "model.norm.weight", s.hidden, 1.0f, 0.1f);
    if (!s.tied) matrix("output.weight", "lm_head.weight", s.vocab, s.hidden, 0.2f);
    return t;
}

void writeTinyGguf(const TinyModelSpec& s, const fs::path& path,
                   const std::function<void(std::vector<TinyTensor>&)>& mutate) {
    std::vector<TinyTensor> tensors = makeTinyTensors(s);
    if (s.arch == "llama")
        for (TinyTensor& t : tensors) {
            const bool isQ = t.ggufName.find("attn_q.weight") != std::string::npos;
            const bool isK = t.ggufName.find("attn_k.weight") != std::string::npos;
            if (isQ || isK) t.values = permuteToAdjacent(t.values, isQ ? s.heads : s.kvHeads, s.headDim, s.hidden);
        }
    if (mutate) mutate(tensors);
    io::GgufWriter w;
    const std::string a = s.arch;
    w.set("general.architecture", io::GgufValue::string(a));
    w.set("general.name", io::GgufValue::string("tiny-" + a));
    w.set(a + ".context_length", io::GgufValue::u32(s.context));
    w.set(a + ".embedding_length", io::GgufValue::u32(s.hidden));
    w.set(a + ".block_count", io::GgufValue::u32(s.layers));
    w.set(a + ".feed_forward_length", io::GgufValue::u32(s.ffn));
    w.set(a + ".attention.head_count", io::GgufValue::u32(s.heads));
    w.set(a + ".attention.head_count_kv", io::GgufValue::u32(s.kvHeads));
    w.set(a + ".attention.key_length", io::GgufValue::u32(s.headDim));
    w.set(a + ".attention.value_length", io::GgufValue::u32(s.headDim));
    w.set(a + ".attention.layer_norm_rms_epsilon", io::GgufValue::f32(1e-5f));
    w.set(a + ".rope.freq_base", io::GgufValue::f32(s.ropeTheta));
    for (const auto& [k, v] : s.extraStringKeys) w.set(k, io::GgufValue::string(v));
    for (const auto& [k, v] : s.extraFloatKeys) w.set(k, io::GgufValue::f32(v));
    for (const auto& [k, v] : s.extraUIntKeys) w.set(k, io::GgufValue::u32(v));
    const Vocab vocab = makeVocab(s.vocab);
    w.set("tokenizer.ggml.model", io::GgufValue::string("llama"));
    w.set("tokenizer.ggml.tokens", io::GgufValue::stringArray(vocab.pieces));
    w.set("tokenizer.ggml.scores", io::GgufValue::f32Array(vocab.scores));
    w.set("tokenizer.ggml.token_type", io::GgufValue::i32Array(vocab.types));
    w.set("tokenizer.ggml.bos_token_id", io::GgufValue::u32(1));
    w.set("tokenizer.ggml.eos_token_id", io::GgufValue::u32(2));
    for (const TinyTensor& t : tensors) {
        const bool matrix = t.shape.size() == 2;
        const DType type = matrix ? s.type : DType::F32;
        std::vector<uint64_t> ne(t.shape.rbegin(), t.shape.rend()); // ggml order
        w.addTensor(t.ggufName, type, ne, encodeValues(t.values, type));
    }
    const Status st = w.write(path.string());
    if (!st.isOk()) std::fprintf(stderr, "writeTinyGguf: %s\n", st.message().c_str());
}

void writeTinyHfFolder(const TinyModelSpec& s, const fs::path& folder) {
    fs::create_directories(folder);
    nlohmann::json config = {
        {"model_type", s.arch}, {"vocab_size", s.vocab}, {"hidden_size", s.hidden},
        {"intermediate_size", s.ffn}, {"num_hidden_layers", s.layers}, {"num_attention_heads", s.heads},
        {"num_key_value_heads", s.kvHeads}, {"head_dim", s.headDim}, {"max_position_embeddings", s.context},
        {"rms_norm_eps", 1e-5}, {"rope_theta", s.ropeTheta}, {"tie_word_embeddings", s.tied},
        {"hidden_act", "silu"}, {"bos_token_id", 1}, {"eos_token_id", 2},
    };
    std::ofstream(folder / "config.json") << config.dump(2);
    std::ofstream(folder / "generation_config.json") << nlohmann::json({{"bos_token_id", 1}, {"eos_token_id", 2}}).dump();

    // safetensors: header JSON (padded with spaces to 8 bytes), then the tensors back to back.
    const std::vector<TinyTensor> tensors = makeTinyTensors(s);
    nlohmann::json header = nlohmann::json::object();
    std::string data;
    for (const TinyTensor& t : tensors) {
        const DType type = t.shape.size() == 2 ? s.type : DType::F32;
        const std::vector<uint8_t> bytes = encodeValues(t.values, type);
        header[t.hfName] = {{"dtype", type == DType::F32 ? "F32" : type == DType::F16 ? "F16" : "BF16"},
                            {"shape", t.shape},
                            {"data_offsets", {data.size(), data.size() + bytes.size()}}};
        data.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    }
    header["__metadata__"] = {{"format", "pt"}};
    std::string headerText = header.dump();
    headerText.append((8 - headerText.size() % 8) % 8, ' ');
    const uint64_t headerLen = headerText.size();
    std::ofstream out(folder / "model.safetensors", std::ios::binary);
    out.write(reinterpret_cast<const char*>(&headerLen), 8);
    out << headerText << data;

    writeTinyTokenizerModel(folder, s.vocab);
}

void writeTinyTokenizerModel(const fs::path& folder, int vocabSize) {
    // tokenizer.model: the same vocabulary as a SentencePiece BPE model with byte fallback.
    const Vocab vocab = makeVocab(vocabSize);
    spm::ModelProto proto;
    for (size_t i = 0; i < vocab.pieces.size(); ++i)
        proto.pieces.push_back({vocab.pieces[i], vocab.scores[i], TokenKind(vocab.types[i]), {}});
    proto.trainerSpec.setInt(spm::field::kModelType, int64_t(spm::ModelType::Bpe));
    proto.trainerSpec.setBool(spm::field::kByteFallback, true);
    proto.normalizerSpec.setBytes(spm::field::kName, "identity");
    std::ofstream(folder / "tokenizer.model", std::ios::binary) << spm::serializeModelProto(proto);
}

} // namespace hearth::test
