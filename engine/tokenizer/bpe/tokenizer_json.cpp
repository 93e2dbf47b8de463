// Hugging Face tokenizer.json (the "fast tokenizer" file) for byte-level BPE models. Only what
// changes the ids is read: normalizer, pre_tokenizer, model, added_tokens, post_processor (for
// BOS/EOS). Anything Hearth cannot reproduce exactly is refused by name rather than approximated.
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "io/mapped_file.h"
#include "io/json_file.h"
#include "tokenizer/bpe/bpe_loader.h"
#include "tokenizer/bpe/bpe_tokenizer.h"
#include "tokenizer/bpe/byte_level.h"

namespace hearth::bpe {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

class JsonReader {
public:
    explicit JsonReader(std::string file) : m_file(std::move(file)) {}
    const std::string& file() const { return m_file; }

    Status bad(const std::string& key, const std::string& what) const {
        return dataLoss(m_file + ": key " + key + ": " + what);
    }
    Status unsupportedType(const std::string& key, const std::string& kind, const std::string& type,
                           const std::string& supported) const {
        return unsupported(m_file + ": key " + key + ": " + kind + " type \"" + type +
                           "\" is not supported (Hearth reads " + supported + ")");
    }
    // The "type" of a component object.
    Result<std::string> typeOf(const json& j, const std::string& key) const {
        if (!j.is_object()) return bad(key, "expected an object");
        const auto it = j.find("type");
        if (it == j.end() || !it->is_string()) return bad(key + ".type", "expected a string");
        return it->get<std::string>();
    }
    // An optional boolean member (null counts as absent).
    Result<bool> flag(const json& obj, const char* name, const std::string& key, bool fallback) const {
        const auto it = obj.find(name);
        if (it == obj.end() || it->is_null()) return fallback;
        if (!it->is_boolean()) return bad(key + "." + name, "expected true or false");
        return it->get<bool>();
    }

private:
    std::string m_file;
};

Status readNormalizer(const JsonReader& r, const json& j, const std::string& key,
                      std::vector<NormalizationForm>& forms) {
    if (j.is_null()) return Status::ok();
    HEARTH_ASSIGN(const std::string type, r.typeOf(j, key));
    static const std::map<std::string, NormalizationForm> kForms{
        {"NFC", NormalizationForm::Nfc}, {"NFD", NormalizationForm::Nfd},
        {"NFKC", NormalizationForm::Nfkc}, {"NFKD", NormalizationForm::Nfkd}};
    if (const auto it = kForms.find(type); it != kForms.end()) {
        forms.push_back(it->second);
        return Status::ok();
    }
    if (type == "Sequence") {
        const auto items = j.find("normalizers");
        if (items == j.end() || !items->is_array()) return r.bad(key + ".normalizers", "expected an array");
        for (size_t i = 0; i < items->size(); ++i)
            HEARTH_TRY(readNormalizer(r, (*items)[i], key + ".normalizers[" + std::to_string(i) + "]", forms));
        return Status::ok();
    }
    return r.unsupportedType(key, "normalizer", type, "NFC, NFD, NFKC, NFKD and Sequence");
}

struct PreTokenizerInfo {
    std::vector<PreTokenizerStep> steps;
    std::vector<std::string> splitPatterns; // regex text of each Split step, for the pre name
    bool hasByteLevel = false;
};

Status readPreTokenizer(const JsonReader& r, const json& j, const std::string& key, PreTokenizerInfo& info) {
    if (j.is_null()) return Status::ok();
    HEARTH_ASSIGN(const std::string type, r.typeOf(j, key));
    if (type == "Sequence") {
        const auto items = j.find("pretokenizers");
        if (items == j.end() || !items->is_array()) return r.bad(key + ".pretokenizers", "expected an array");
        for (size_t i = 0; i < items->size(); ++i)
            HEARTH_TRY(readPreTokenizer(r, (*items)[i], key + ".pretokenizers[" + std::to_string(i) + "]", info));
        return Status::ok();
    }
    if (type == "Split") {
        const auto pattern = j.find("pattern");
        if (pattern == j.end() || !pattern->is_object()) return r.bad(key + ".pattern", "expected an object");
        const bool isRegex = pattern->contains("Regex");
        const char* patternKind = isRegex ? "Regex" : "String";
        const auto text = pattern->find(patternKind);
        if (text == pattern->end() || !text->is_string())
            return r.bad(key + ".pattern", "expected {\"Regex\": \"...\"} or {\"String\": \"...\"}");
        const auto behavior = j.find("behavior");
        if (behavior == j.end() || !behavior->is_string()) return r.bad(key + ".behavior", "expected a string");
        if (*behavior != "Isolated")
            return unsupported(r.file() + ": key " + key + ".behavior: Split behavior \"" +
                               behavior->get<std::string>() + "\" is not supported (Hearth reads Isolated)");
        HEARTH_ASSIGN(const bool invert, r.flag(j, "invert", key, false));
        if (invert) return unsupported(r.file() + ": key " + key + ".invert: inverted Split is not supported");
        HEARTH_ASSIGN(auto regex, RegexSplitter::create(text->get<std::string>(), !isRegex,
                                                        r.file() + ": key " + key + ".pattern." + patternKind));
        info.steps.push_back({std::move(regex), false, false});
        info.splitPatterns.push_back(isRegex ? text->get<std::string>() : std::string());
        return Status::ok();
    }
    if (type == "ByteLevel") {
        PreTokenizerStep step;
        step.byteLevel = true;
        HEARTH_ASSIGN(step.addPrefixSpace, r.flag(j, "add_prefix_space", key, true));
        HEARTH_ASSIGN(const bool useRegex, r.flag(j, "use_regex", key, true));
        if (useRegex) {
            HEARTH_ASSIGN(step.regex, RegexSplitter::create(std::string(kGpt2Pattern), false, r.file() + ": key " + key));
        }
        info.steps.push_back(std::move(step));
        info.hasByteLevel = true;
        return Status::ok();
    }
    return r.unsupportedType(key, "pre-tokenizer", type, "Split, ByteLevel and Sequence");
}

Status checkDecoder(const JsonReader& r, const json& j, const std::string& key) {
    if (j.is_null()) return Status::ok();
    HEARTH_ASSIGN(const std::string type, r.typeOf(j, key));
    if (type == "ByteLevel") return Status::ok();
    if (type == "Sequence") {
        const auto items = j.find("decoders");
        if (items == j.end() || !items->is_array()) return r.bad(key + ".decoders", "expected an array");
        for (size_t i = 0; i < items->size(); ++i)
            HEARTH_TRY(checkDecoder(r, (*items)[i], key + ".decoders[" + std::to_string(i) + "]"));
        return Status::ok();
    }
    return r.unsupportedType(key, "decoder", type, "ByteLevel and Sequence");
}

// The special tokens a TemplateProcessing puts before and after a single sequence.
void readTemplate(const json& j, std::string& first, std::string& last) {
    if (!j.is_object()) return;
    const std::string type = j.value("type", "");
    if (type == "Sequence") {
        const auto items = j.find("processors");
        if (items != j.end() && items->is_array())
            for (const auto& item : *items) readTemplate(item, first, last);
        return;
    }
    if (type != "TemplateProcessing") return;
    const auto single = j.find("single");
    if (single == j.end() || !single->is_array() || single->empty()) return;
    const auto specialName = [](const json& item) -> std::string {
        const auto special = item.find("SpecialToken");
        if (special == item.end() || !special->is_object()) return {};
        const auto id = special->find("id");
        return id != special->end() && id->is_string() ? id->get<std::string>() : std::string();
    };
    first = specialName(single->front());
    if (single->size() > 1) last = specialName(single->back());
}

// tokenizer_config.json's bos_token/eos_token: a string or an AddedToken object.
std::string tokenContent(const json& j) {
    if (j.is_string()) return j.get<std::string>();
    if (j.is_object()) {
        const auto content = j.find("content");
        if (content != j.end() && content->is_string()) return content->get<std::string>();
    }
    return {};
}

} // namespace

Result<std::unique_ptr<Tokenizer>> parseTokenizerJson(const std::string& jsonText, const std::string& configText,
                                                      const std::string& path) {
    try {
        const JsonReader r(path);
        HEARTH_ASSIGN(const json root, io::parseJson(jsonText, path));
        if (!root.is_object()) return dataLoss(path + ": expected a JSON object");

        BpeTokenizerSpec spec;
        spec.source = path;
        spec.model.source = path + ": key model.merges";

        // The model.
        const auto model = root.find("model");
        if (model == root.end() || !model->is_object()) return r.bad("model", "expected an object");
        std::string modelType = model->value("type", "");
        if (modelType.empty() && model->contains("merges")) modelType = "BPE"; // older files omit it
        if (modelType != "BPE")
            return r.unsupportedType("model.type", "model", modelType.empty() ? "(none)" : modelType,
                                     "byte-level BPE only");
        HEARTH_ASSIGN(spec.model.ignoreMerges, r.flag(*model, "ignore_merges", "model", false));
        HEARTH_ASSIGN(const bool byteFallback, r.flag(*model, "byte_fallback", "model", false));
        if (byteFallback)
            return unsupported(path + ": key model.byte_fallback: BPE with byte fallback (SentencePiece style) "
                                      "is not supported; Hearth reads byte-level BPE");
        for (const char* affix : {"continuing_subword_prefix", "end_of_word_suffix"}) {
            const auto it = model->find(affix);
            if (it != model->end() && it->is_string() && !it->get<std::string>().empty())
                return unsupported(path + ": key model." + affix + ": subword affixes are not supported");
        }
        const auto vocab = model->find("vocab");
        if (vocab == model->end() || !vocab->is_object()) return r.bad("model.vocab", "expected an object");
        int64_t maxId = -1;
        spec.model.vocab.reserve(vocab->size());
        for (const auto& [piece, id] : vocab->items()) {
            if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() > INT32_MAX)
                return r.bad("model.vocab", "token '" + piece + "' has no valid id");
            spec.model.vocab.emplace_back(piece, int32_t(id.get<int64_t>()));
            maxId = std::max(maxId, id.get<int64_t>());
        }
        const auto merges = model->find("merges");
        if (merges == model->end() || !merges->is_array()) return r.bad("model.merges", "expected an array");
        spec.model.merges.reserve(merges->size());
        for (size_t i = 0; i < merges->size(); ++i) {
            const json& m = (*merges)[i];
            const std::string key = "model.merges[" + std::to_string(i) + "]";
            if (m.is_string()) { // "left right"
                const std::string text = m.get<std::string>();
                const size_t space = text.find(' ');
                if (space == std::string::npos || space == 0 || space + 1 >= text.size() ||
                    text.find(' ', space + 1) != std::string::npos)
                    return r.bad(key, "expected two tokens separated by one space, got '" + text + "'");
                spec.model.merges.emplace_back(text.substr(0, space), text.substr(space + 1));
            } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
                spec.model.merges.emplace_back(m[0].get<std::string>(), m[1].get<std::string>());
            } else {
                return r.bad(key, "expected \"a b\" or [\"a\", \"b\"]");
            }
        }

        // Added tokens.
        if (const auto added = root.find("added_tokens"); added != root.end() && !added->is_null()) {
            if (!added->is_array()) return r.bad("added_tokens", "expected an array");
            for (size_t i = 0; i < added->size(); ++i) {
                const json& a = (*added)[i];
                const std::string key = "added_tokens[" + std::to_string(i) + "]";
                if (!a.is_object()) return r.bad(key, "expected an object");
                const auto id = a.find("id");
                const auto content = a.find("content");
                if (id == a.end() || !id->is_number_integer() || id->get<int64_t>() < 0 || id->get<int64_t>() > INT32_MAX)
                    return r.bad(key + ".id", "expected a token id");
                if (content == a.end() || !content->is_string()) return r.bad(key + ".content", "expected a string");
                AddedToken token;
                token.id = int32_t(id->get<int64_t>());
                token.content = content->get<std::string>();
                HEARTH_ASSIGN(token.special, r.flag(a, "special", key, false));
                HEARTH_ASSIGN(token.singleWord, r.flag(a, "single_word", key, false));
                HEARTH_ASSIGN(token.lstrip, r.flag(a, "lstrip", key, false));
                HEARTH_ASSIGN(token.rstrip, r.flag(a, "rstrip", key, false));
                HEARTH_ASSIGN(token.normalized, r.flag(a, "normalized", key, !token.special));
                maxId = std::max<int64_t>(maxId, token.id);
                spec.added.push_back(std::move(token));
            }
        }
        if (maxId < 0) return r.bad("model.vocab", "the vocabulary is empty");
        // Ids index the tables below: a stray huge id must not size them (a 96-byte file naming
        // id 2147483647 asked for 64 GB). Real vocabularies leave few ids unnamed.
        const int64_t named = int64_t(spec.model.vocab.size() + spec.added.size());
        if (maxId >= 2 * named + 1024)
            return dataLoss(path + ": token id " + std::to_string(maxId) + " is far past the " + std::to_string(named) +
                            " tokens named (ids must run from 0, with few gaps)");

        // Pieces and kinds by id.
        spec.pieces.assign(size_t(maxId + 1), std::string());
        spec.kinds.assign(size_t(maxId + 1), TokenKind::Unused);
        for (const auto& [piece, id] : spec.model.vocab) {
            spec.pieces[size_t(id)] = piece;
            spec.kinds[size_t(id)] = TokenKind::Normal;
        }
        for (const AddedToken& token : spec.added) {
            spec.pieces[size_t(token.id)] = token.content;
            spec.kinds[size_t(token.id)] = token.special ? TokenKind::Control : TokenKind::UserDefined;
        }
        if (const auto unk = model->find("unk_token"); unk != model->end() && unk->is_string()) {
            const auto it = vocab->find(unk->get<std::string>());
            if (it != vocab->end()) spec.model.unkId = int32_t(it->get<int64_t>());
        }

        // Normalizer, pre-tokenizer, decoder.
        HEARTH_TRY(readNormalizer(r, root.value("normalizer", json()), "normalizer", spec.normalization));
        PreTokenizerInfo pre;
        HEARTH_TRY(readPreTokenizer(r, root.value("pre_tokenizer", json()), "pre_tokenizer", pre));
        if (!pre.hasByteLevel)
            return unsupported(path + ": key pre_tokenizer: it has no ByteLevel step, so this is not a byte-level "
                                      "BPE tokenizer (Hearth reads SentencePiece models from tokenizer.model)");
        HEARTH_TRY(checkDecoder(r, root.value("decoder", json()), "decoder"));
        spec.preTokenizer = std::move(pre.steps);
        if (spec.preTokenizer.size() == 2 && pre.splitPatterns.size() == 1 && !spec.preTokenizer[1].regex &&
            !spec.preTokenizer[1].addPrefixSpace)
            spec.preName = knownPreTokenizerName(pre.splitPatterns[0]);
        else if (spec.preTokenizer.size() == 1 && spec.preTokenizer[0].regex && !spec.preTokenizer[0].addPrefixSpace)
            spec.preName = "gpt-2";

        // Special ids and the BOS/EOS policy: tokenizer_config.json first, the post-processor's
        // template otherwise.
        const auto idOf = [&](const std::string& content) -> int32_t {
            for (const AddedToken& token : spec.added)
                if (token.content == content) return token.id;
            const auto it = vocab->find(bytesToByteLevel(content));
            return it == vocab->end() ? -1 : int32_t(it->get<int64_t>());
        };
        std::string templateFirst, templateLast;
        readTemplate(root.value("post_processor", json()), templateFirst, templateLast);
        std::string bosText = templateFirst;
        std::string eosText;
        std::optional<bool> addBos, addEos;
        const std::string configPath = (fs::path(path).parent_path() / "tokenizer_config.json").string();
        if (!configText.empty()) {
            HEARTH_ASSIGN(const json config, io::parseJson(configText, configPath));
            if (!config.is_object()) return dataLoss(configPath + ": expected a JSON object");
            const JsonReader c(configPath);
            if (const auto it = config.find("bos_token"); it != config.end()) bosText = tokenContent(*it);
            if (const auto it = config.find("eos_token"); it != config.end()) eosText = tokenContent(*it);
            for (const auto& [name, out] : {std::pair{"add_bos_token", &addBos}, {"add_eos_token", &addEos}}) {
                const auto it = config.find(name);
                if (it == config.end() || it->is_null()) continue;
                if (!it->is_boolean()) return c.bad(name, "expected true or false");
                *out = it->get<bool>();
            }
        }
        if (eosText.empty()) // no config: the usual end-of-text tokens
            for (const char* name : {"<|endoftext|>", "<|end_of_text|>", "</s>"})
                if (idOf(name) >= 0) {
                    eosText = name;
                    break;
                }
        spec.bosId = bosText.empty() ? -1 : idOf(bosText);
        spec.eosId = eosText.empty() ? -1 : idOf(eosText);
        if (!bosText.empty() && spec.bosId < 0)
            return dataLoss(path + ": the BOS token '" + bosText + "' is not in the vocabulary");
        if (!eosText.empty() && spec.eosId < 0)
            return dataLoss(path + ": the EOS token '" + eosText + "' is not in the vocabulary");
        // Without add_bos_token, the template decides; a config that names a BOS token while its
        // tokenizer.json has no template (Llama 3 as some packages ship it) still means the model
        // was trained with BOS first, which is what llama.cpp's GGUF of it says too.
        spec.addBos = addBos.value_or(!templateFirst.empty() || (!bosText.empty() && !configText.empty()));
        spec.addEos = addEos.value_or(!templateLast.empty() && templateLast == eosText);
        HEARTH_ASSIGN(auto tokenizer, BpeTokenizer::create(std::move(spec)));
        return std::unique_ptr<Tokenizer>(std::move(tokenizer));
    } catch (const std::bad_alloc&) {
        return outOfMemory(path + ": out of memory while loading the tokenizer");
    } catch (const std::exception& e) {
        return dataLoss(path + ": unexpected content: " + e.what());
    }
}

Result<std::unique_ptr<Tokenizer>> loadTokenizerJson(const std::string& path) {
    try {
        HEARTH_ASSIGN(const std::string text, io::readWholeFile(path));
        if (text.empty()) return dataLoss(path + ": invalid JSON at byte 0: the file is empty");
        std::string configText;
        const fs::path configPath = fs::path(path).parent_path() / "tokenizer_config.json";
        std::error_code ec;
        if (fs::is_regular_file(configPath, ec)) {
            HEARTH_ASSIGN(configText, io::readWholeFile(configPath.string()));
            if (configText.empty()) return dataLoss(configPath.string() + ": invalid JSON at byte 0: the file is empty");
        }
        return parseTokenizerJson(text, configText, path);
    } catch (const std::bad_alloc&) {
        return outOfMemory(path + ": out of memory while loading the tokenizer");
    } catch (const std::exception& e) {
        return internalError(path + ": loading the tokenizer failed: " + e.what());
    }
}

} // namespace hearth::bpe
