// Vocabulary metadata for synthetic models: a placeholder SentencePiece vocabulary (so the file
// loads anywhere), or a real tokenizer.model / tokenizer.json embedded as llama.cpp's converter
// would, padded with "[PADn]" tokens to the shape's vocabulary size (real checkpoints pad too:
// Qwen's 151,669 tokens sit in a 151,936-row embedding).
#include <algorithm>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "io/json_file.h"
#include "io/gguf_keys.h"
#include "synth/synth_internal.h"
#include "tokenizer/sp_model_proto.h"

namespace hearth::synth {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;
using io::GgufValue;

struct Vocab {
    std::vector<std::string> tokens;
    std::vector<float> scores;
    std::vector<int32_t> types;
    std::vector<bool> present; // false: a gap to pad

    void add(std::string token, float score, TokenKind kind) {
        tokens.push_back(std::move(token));
        scores.push_back(score);
        types.push_back(int32_t(kind));
        present.push_back(true);
    }
    // Fills gaps and the tail up to `size` with "[PADn]" (unused), as llama.cpp's converter does.
    void padTo(size_t size) {
        tokens.resize(size);
        scores.resize(size, 0.0f);
        types.resize(size, int32_t(TokenKind::Unused));
        present.resize(size, false);
        for (size_t i = 0; i < size; ++i)
            if (!present[i]) {
                tokens[i] = "[PAD" + std::to_string(i) + "]";
                scores[i] = -1e9f;
                types[i] = int32_t(TokenKind::Unused);
                present[i] = true;
            }
    }
};

Status tooLarge(const std::string& path, size_t tokens, int32_t vocab) {
    return invalidArgument(path + ": the tokenizer has " + std::to_string(tokens) +
                           " tokens, more than the shape's vocabulary of " + std::to_string(vocab));
}

// <unk>, <s>, </s>, the 256 byte pieces, printable ASCII with and without "▁", then padding:
// enough for SentencePiece to encode any text (through byte fallback) and decode it back.
Status addPlaceholder(const ModelConfig& config, Metadata& m) {
    if (config.vocabSize < 512)
        return invalidArgument("the placeholder vocabulary needs at least 512 tokens, the shape has " +
                               std::to_string(config.vocabSize) + " (pass --tokenizer)");
    Vocab v;
    v.add("<unk>", 0, TokenKind::Unknown);
    v.add("<s>", 0, TokenKind::Control);
    v.add("</s>", 0, TokenKind::Control);
    for (int b = 0; b < 256; ++b) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", b);
        v.add(name, 0, TokenKind::Byte);
    }
    const std::string space = "\xe2\x96\x81"; // U+2581, SentencePiece's space
    float score = -1;
    v.add(space, score--, TokenKind::Normal);
    for (char c = 0x21; c < 0x7F; ++c) v.add(std::string(1, c), score--, TokenKind::Normal);
    for (char c = 0x21; c < 0x7F; ++c) v.add(space + c, score--, TokenKind::Normal);
    v.padTo(size_t(config.vocabSize));
    m.emplace_back(gguf_key::kTokenizerModel, GgufValue::string("llama"));
    m.emplace_back(gguf_key::kTokens, GgufValue::stringArray(v.tokens));
    m.emplace_back(gguf_key::kScores, GgufValue::f32Array(v.scores));
    m.emplace_back(gguf_key::kTokenTypes, GgufValue::i32Array(v.types));
    m.emplace_back(gguf_key::kBosId, GgufValue::u32(1));
    m.emplace_back(gguf_key::kEosId, GgufValue::u32(2));
    m.emplace_back(gguf_key::kUnknownId, GgufValue::u32(0));
    m.emplace_back(gguf_key::kAddBos, GgufValue::boolean(true));
    m.emplace_back(gguf_key::kAddEos, GgufValue::boolean(false));
    return Status::ok();
}

Result<std::string> readBytes(const std::string& path) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) return notFound(path + ": no such file");
    std::ifstream in(path, std::ios::binary);
    if (!in) return invalidArgument(path + ": cannot be opened for reading");
    std::ostringstream bytes;
    bytes << in.rdbuf();
    if (in.bad()) return internalError(path + ": read error");
    return bytes.str();
}

// tokenizer_config.json beside the tokenizer, if any (null when absent).
Result<json> readTokenizerConfig(const std::string& tokenizerPath) {
    const fs::path path = fs::path(tokenizerPath).parent_path() / "tokenizer_config.json";
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) return json();
    HEARTH_ASSIGN(json j, io::readJsonFile(path.string()));
    if (!j.is_object()) return dataLoss(path.string() + ": expected a JSON object");
    return j;
}

// A special token's text: "<|im_end|>" or {"content": "<|im_end|>", ...}; empty when unset.
std::string tokenText(const json& config, const char* key) {
    if (!config.is_object()) return {};
    auto it = config.find(key);
    if (it == config.end()) return {};
    if (it->is_string()) return it->get<std::string>();
    if (it->is_object())
        if (auto c = it->find("content"); c != it->end() && c->is_string()) return c->get<std::string>();
    return {};
}

// chat_template (a string, or a list of {name, template} where "default" wins), bos/eos flags.
void addConfigKeys(const json& config, Metadata& m) {
    if (!config.is_object()) return;
    for (const char* key : {"add_bos_token", "add_eos_token"})
        if (auto it = config.find(key); it != config.end() && it->is_boolean())
            m.emplace_back(std::string("tokenizer.ggml.") + key, GgufValue::boolean(it->get<bool>()));
    auto it = config.find("chat_template");
    if (it == config.end()) return;
    std::string chatTemplate;
    if (it->is_string()) {
        chatTemplate = it->get<std::string>();
    } else if (it->is_array()) {
        for (const json& t : *it) {
            if (!t.is_object() || !t.contains("template") || !t["template"].is_string()) continue;
            if (chatTemplate.empty() || (t.contains("name") && t["name"] == "default"))
                chatTemplate = t["template"].get<std::string>();
        }
    }
    if (!chatTemplate.empty()) m.emplace_back(gguf_key::kChatTemplate, GgufValue::string(chatTemplate));
}

Status addSentencePiece(const std::string& path, const ModelConfig& config, Metadata& m) {
    HEARTH_ASSIGN(const std::string bytes, readBytes(path));
    HEARTH_ASSIGN(const spm::ModelProto proto, spm::parseModelProto(bytes, path));
    if (proto.pieces.size() > size_t(config.vocabSize)) return tooLarge(path, proto.pieces.size(), config.vocabSize);
    Vocab v;
    for (const spm::Piece& p : proto.pieces) v.add(p.piece, p.score, p.kind);
    v.padTo(size_t(config.vocabSize));
    m.emplace_back(gguf_key::kTokenizerModel, GgufValue::string("llama"));
    m.emplace_back(gguf_key::kTokens, GgufValue::stringArray(v.tokens));
    m.emplace_back(gguf_key::kScores, GgufValue::f32Array(v.scores));
    m.emplace_back(gguf_key::kTokenTypes, GgufValue::i32Array(v.types));
    const std::pair<const char*, int64_t> ids[] = {{gguf_key::kBosId, proto.bosId()},
                                                   {gguf_key::kEosId, proto.eosId()},
                                                   {gguf_key::kUnknownId, proto.unkId()},
                                                   {gguf_key::kPaddingId, proto.padId()}};
    for (const auto& [key, id] : ids)
        if (id >= 0 && id < int64_t(proto.pieces.size())) m.emplace_back(key, GgufValue::u32(uint32_t(id)));
    m.emplace_back(gguf_key::kAddSpacePrefix, GgufValue::boolean(proto.addDummyPrefix()));
    HEARTH_ASSIGN(const json tokenizerConfig, readTokenizerConfig(path));
    addConfigKeys(tokenizerConfig, m);
    return Status::ok();
}

// Every Split regex and whether a ByteLevel step appears, anywhere in the pre-tokenizer.
void scanPreTokenizer(const json& node, std::vector<std::string>& regexes, bool& byteLevel) {
    if (node.is_array()) {
        for (const json& child : node) scanPreTokenizer(child, regexes, byteLevel);
        return;
    }
    if (!node.is_object()) return;
    if (auto type = node.find("type"); type != node.end() && type->is_string()) {
        if (*type == "ByteLevel") byteLevel = true;
        if (*type == "Split")
            if (auto p = node.find("pattern"); p != node.end() && p->is_object())
                if (auto r = p->find("Regex"); r != p->end() && r->is_string()) regexes.push_back(r->get<std::string>());
    }
    for (const auto& [key, child] : node.items())
        if (child.is_structured()) scanPreTokenizer(child, regexes, byteLevel);
}

// llama.cpp's tokenizer.ggml.pre from the split regex: the digit rule tells them apart.
std::string detectPre(const std::vector<std::string>& regexes) {
    for (const std::string& r : regexes) {
        if (r.find("\\p{N}{1,3}") != std::string::npos) return "llama-bpe";
        if (r.find("\\p{L}\\p{M}") != std::string::npos || r.find("[\\p{L}\\p{M}]") != std::string::npos)
            return "qwen35";
        if (r.find("\\p{N}|") != std::string::npos && r.find("\\p{L}+") != std::string::npos) return "qwen2";
    }
    return {};
}

Status addByteLevelBpe(const SynthParams& params, const ModelConfig& config, Metadata& m) {
    const std::string& path = params.tokenizerPath;
    HEARTH_ASSIGN(const json j, io::readJsonFile(path));
    const json* model = j.is_object() && j.contains("model") ? &j["model"] : nullptr;
    if (!model || !model->is_object() || !model->contains("vocab") || !(*model)["vocab"].is_object())
        return dataLoss(path + ": expected a tokenizer.json with model.vocab");
    if (model->contains("type") && (*model)["type"] != "BPE")
        return unsupported(path + ": model type " + (*model)["type"].dump() + " is not supported (only BPE)");
    std::vector<std::string> regexes;
    bool byteLevel = false;
    if (j.contains("pre_tokenizer")) scanPreTokenizer(j["pre_tokenizer"], regexes, byteLevel);
    if (!byteLevel) return unsupported(path + ": only byte-level BPE tokenizers (ByteLevel pre-tokenizer) are supported");
    std::string pre = params.tokenizerPre.empty() ? detectPre(regexes) : params.tokenizerPre;
    if (pre.empty())
        return invalidArgument(path + ": cannot tell the pre-tokenizer from its split regex; name it "
                                      "(--tokenizer-pre qwen2, llama-bpe, qwen35, ...)");

    // The rows the tokenizer needs (its highest id + 1), so that a message gives its real size.
    int64_t needed = 0;
    for (const auto& [text, id] : (*model)["vocab"].items())
        if (id.is_number_integer()) needed = std::max(needed, id.get<int64_t>() + 1);
    if (j.contains("added_tokens") && j["added_tokens"].is_array())
        for (const json& t : j["added_tokens"])
            if (t.is_object() && t.contains("id") && t["id"].is_number_integer())
                needed = std::max(needed, t["id"].get<int64_t>() + 1);
    if (needed > config.vocabSize) return tooLarge(path, size_t(needed), config.vocabSize);

    Vocab v; // ids index it directly; gaps are padded below
    v.tokens.resize(size_t(config.vocabSize));
    v.scores.resize(size_t(config.vocabSize), 0.0f);
    v.types.resize(size_t(config.vocabSize), int32_t(TokenKind::Normal));
    v.present.resize(size_t(config.vocabSize), false);
    std::map<std::string, int32_t> idOf;
    auto place = [&](int64_t id, const std::string& text, TokenKind kind) -> Status {
        if (id < 0) return dataLoss(path + ": token '" + text + "' has a negative id");
        if (id >= config.vocabSize) return tooLarge(path, size_t(id) + 1, config.vocabSize);
        v.tokens[size_t(id)] = text;
        v.types[size_t(id)] = int32_t(kind);
        v.present[size_t(id)] = true;
        idOf[text] = int32_t(id);
        return Status::ok();
    };
    for (const auto& [text, id] : (*model)["vocab"].items()) {
        if (!id.is_number_integer()) return dataLoss(path + ": model.vocab[" + text + "] is not an integer id");
        HEARTH_TRY(place(id.get<int64_t>(), text, TokenKind::Normal));
    }
    if (j.contains("added_tokens") && j["added_tokens"].is_array())
        for (const json& t : j["added_tokens"]) {
            if (!t.is_object() || !t.contains("id") || !t["id"].is_number_integer() || !t.contains("content") ||
                !t["content"].is_string())
                return dataLoss(path + ": added_tokens entries need an integer id and a string content");
            const bool special = t.contains("special") && t["special"].is_boolean() && t["special"].get<bool>();
            HEARTH_TRY(place(t["id"].get<int64_t>(), t["content"].get<std::string>(),
                             special ? TokenKind::Control : TokenKind::UserDefined));
        }
    v.padTo(size_t(config.vocabSize));

    std::vector<std::string> merges;
    if (model->contains("merges") && (*model)["merges"].is_array()) {
        merges.reserve((*model)["merges"].size());
        for (const json& merge : (*model)["merges"]) {
            if (merge.is_string()) merges.push_back(merge.get<std::string>());
            else if (merge.is_array() && merge.size() == 2 && merge[0].is_string() && merge[1].is_string())
                merges.push_back(merge[0].get<std::string>() + " " + merge[1].get<std::string>());
            else return dataLoss(path + ": model.merges holds an entry that is neither \"a b\" nor [\"a\", \"b\"]");
        }
    }

    HEARTH_ASSIGN(const json tokenizerConfig, readTokenizerConfig(path));
    auto lookup = [&](const std::string& text, const char* what, std::optional<int32_t>& out) -> Status {
        if (text.empty()) return Status::ok();
        auto it = idOf.find(text);
        if (it == idOf.end()) return dataLoss(path + ": " + what + " '" + text + "' is not in the vocabulary");
        out = it->second;
        return Status::ok();
    };
    std::optional<int32_t> bos, eos, pad, eot;
    HEARTH_TRY(lookup(tokenText(tokenizerConfig, "bos_token"), "bos_token", bos));
    HEARTH_TRY(lookup(tokenText(tokenizerConfig, "eos_token"), "eos_token", eos));
    HEARTH_TRY(lookup(tokenText(tokenizerConfig, "pad_token"), "pad_token", pad));
    // Without a tokenizer_config.json: the chat end token if there is one, else the text end.
    for (const char* guess : {"<|im_end|>", "<|eot_id|>", "<|endoftext|>", "<|end_of_text|>"})
        if (!eos && idOf.count(guess)) eos = idOf[guess];
    if (!bos && tokenizerConfig.is_null() && idOf.count("<|begin_of_text|>")) bos = idOf["<|begin_of_text|>"];
    for (const char* end : {"<|im_end|>", "<|eot_id|>"})
        if (!eot && idOf.count(end)) eot = idOf[end];

    m.emplace_back(gguf_key::kTokenizerModel, GgufValue::string("gpt2"));
    m.emplace_back(gguf_key::kTokenizerPre, GgufValue::string(pre));
    m.emplace_back(gguf_key::kTokens, GgufValue::stringArray(v.tokens));
    m.emplace_back(gguf_key::kTokenTypes, GgufValue::i32Array(v.types));
    m.emplace_back(gguf_key::kMerges, GgufValue::stringArray(merges));
    if (bos) m.emplace_back(gguf_key::kBosId, GgufValue::u32(uint32_t(*bos)));
    if (eos) m.emplace_back(gguf_key::kEosId, GgufValue::u32(uint32_t(*eos)));
    if (eot) m.emplace_back(gguf_key::kEotId, GgufValue::u32(uint32_t(*eot)));
    if (pad) m.emplace_back(gguf_key::kPaddingId, GgufValue::u32(uint32_t(*pad)));
    const bool hasAddBos = tokenizerConfig.is_object() && tokenizerConfig.contains("add_bos_token") &&
                           tokenizerConfig["add_bos_token"].is_boolean();
    // Llama 3 adds <|begin_of_text|> through its post-processor, Qwen adds nothing.
    if (!hasAddBos) m.emplace_back(gguf_key::kAddBos, GgufValue::boolean(pre == "llama-bpe" && bos));
    addConfigKeys(tokenizerConfig, m);
    return Status::ok();
}

bool endsWith(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

} // namespace

Status addTokenizer(const SynthParams& params, const ModelConfig& config, Metadata& metadata) {
    if (params.tokenizerPath.empty()) return addPlaceholder(config, metadata);
    std::error_code ec;
    if (!fs::is_regular_file(params.tokenizerPath, ec))
        return notFound(params.tokenizerPath + ": no such tokenizer file");
    try {
        if (endsWith(params.tokenizerPath, ".json")) return addByteLevelBpe(params, config, metadata);
        return addSentencePiece(params.tokenizerPath, config, metadata);
    } catch (const std::exception& e) { // nlohmann::json on unexpected input
        return dataLoss(params.tokenizerPath + ": " + e.what());
    }
}

} // namespace hearth::synth
