// GGUF "gpt2" vocabularies (byte-level BPE, as llama.cpp's converter writes them): tokens in
// byte-level form by id, token types, merges by rank, and tokenizer.ggml.pre naming the
// pre-tokenizer. The GGUF records no regex and no normalizer: both come from the known name.
#include <exception>

#include "io/gguf.h"
#include "io/gguf_keys.h"
#include "tokenizer/gguf_vocab_reader.h"
#include "tokenizer/bpe/bpe_loader.h"
#include "tokenizer/bpe/bpe_tokenizer.h"

namespace hearth::bpe {

namespace {

constexpr const char* kTokensKey = gguf_key::kTokens;
constexpr const char* kTypesKey = gguf_key::kTokenTypes;
constexpr const char* kMergesKey = gguf_key::kMerges;
constexpr const char* kPreKey = gguf_key::kTokenizerPre;

} // namespace

Result<std::unique_ptr<Tokenizer>> loadGgufBpeVocab(const io::GgufFile& file) {
    try {
        const GgufVocabReader r(file);
        const std::string& path = file.path();

        // The pre-tokenizer by name. Files from before the key existed used GPT-2's split.
        std::string preName = "gpt-2";
        if (file.find(kPreKey)) {
            HEARTH_ASSIGN(preName, file.getString(kPreKey));
        }
        const KnownPreTokenizer* known = findKnownPreTokenizer(preName);
        if (!known)
            return unsupported(path + ": key " + kPreKey + ": pre-tokenizer \"" + preName +
                               "\" is not supported (Hearth knows " + knownPreTokenizerNames() + ")");

        HEARTH_ASSIGN(const auto* tokens, r.array(kTokensKey, true));
        if (tokens->empty()) return r.keyError(kTokensKey, "the vocabulary is empty");
        const size_t vocab = tokens->size();
        if (vocab > size_t(INT32_MAX)) return r.keyError(kTokensKey, "too many tokens");
        HEARTH_ASSIGN(const auto* types, r.array(kTypesKey, false, vocab));
        HEARTH_ASSIGN(const auto* merges, r.array(kMergesKey, true));

        BpeTokenizerSpec spec;
        spec.source = path;
        spec.model.source = path + ": key " + kMergesKey;
        spec.model.ignoreMerges = known->ignoreMerges;
        if (known->nfc) spec.normalization.push_back(NormalizationForm::Nfc);
        spec.preName = preName;
        HEARTH_ASSIGN(spec.bosId, r.tokenId(gguf_key::kBosId, -1, vocab));
        HEARTH_ASSIGN(spec.eosId, r.tokenId(gguf_key::kEosId, -1, vocab));
        // llama.cpp's defaults: Llama 3 starts with BOS, Qwen and GPT-2 do not.
        HEARTH_ASSIGN(spec.addBos, r.flag(gguf_key::kAddBos, known->ignoreMerges));
        HEARTH_ASSIGN(spec.addEos, r.flag(gguf_key::kAddEos, false));

        spec.pieces.resize(vocab);
        spec.kinds.resize(vocab);
        for (size_t i = 0; i < vocab; ++i) {
            const std::string* text = (*tokens)[i].asString();
            if (!text)
                return r.keyError(kTokensKey, "entry " + std::to_string(i) + " is a " +
                                             io::ggufValueTypeName((*tokens)[i].type) + ", expected a string");
            TokenKind kind = TokenKind::Normal;
            if (types) {
                const auto type = (*types)[i].asInt();
                if (!type || *type < 1 || *type > 6)
                    return r.keyError(kTypesKey, "entry " + std::to_string(i) + " is not a token type 1..6");
                kind = static_cast<TokenKind>(*type);
            } else if (int32_t(i) == spec.bosId || int32_t(i) == spec.eosId) {
                kind = TokenKind::Control; // older files: at least the ids the file names
            }
            spec.pieces[i] = *text;
            spec.kinds[i] = kind;
            const auto id = int32_t(i);
            switch (kind) {
            case TokenKind::Normal:
            case TokenKind::Unknown:
            case TokenKind::Byte: spec.model.vocab.emplace_back(*text, id); break;
            // Control and user-defined tokens are stored as their text (not in byte-level
            // form) and matched whole, like HF's added tokens.
            case TokenKind::Control: spec.added.push_back({id, *text, true}); break;
            case TokenKind::UserDefined: spec.added.push_back({id, *text, false}); break;
            case TokenKind::Unused: break;
            }
        }

        spec.model.merges.reserve(merges->size());
        for (size_t i = 0; i < merges->size(); ++i) {
            const std::string* text = (*merges)[i].asString();
            const size_t space = text ? text->find(' ') : std::string::npos;
            if (!text || space == std::string::npos || space == 0 || space + 1 >= text->size() ||
                text->find(' ', space + 1) != std::string::npos)
                return r.keyError(kMergesKey, "entry " + std::to_string(i) + " is not two tokens separated by one space");
            spec.model.merges.emplace_back(text->substr(0, space), text->substr(space + 1));
        }

        // The regex split, then the byte mapping (implicit: Hearth works on raw bytes).
        HEARTH_ASSIGN(auto regex, RegexSplitter::create(std::string(known->pattern), false,
                                                        path + ": key " + kPreKey + " (" + preName + ")"));
        spec.preTokenizer.push_back({std::move(regex), false, false});
        spec.preTokenizer.push_back({nullptr, true, false});

        HEARTH_ASSIGN(auto tokenizer, BpeTokenizer::create(std::move(spec)));
        return std::unique_ptr<Tokenizer>(std::move(tokenizer));
    } catch (const std::bad_alloc&) {
        return outOfMemory(file.path() + ": out of memory while loading the tokenizer");
    } catch (const std::exception& e) {
        return internalError(file.path() + ": loading the tokenizer failed: " + e.what());
    }
}

} // namespace hearth::bpe
