// GGUF "llama" vocabularies: tokenizer.ggml.tokens/scores/token_type rebuilt as a SentencePiece
// BPE ModelProto and loaded through libsentencepiece, so that GGUF and tokenizer.model files
// tokenize with the same code. GGUF "gpt2" (byte-level BPE) vocabularies go to bpe/gguf_bpe.cpp.
#include <exception>
#include <optional>

#include "io/gguf.h"
#include "io/gguf_keys.h"
#include "tokenizer/gguf_vocab_reader.h"
#include "tokenizer/sp_model_proto.h"
#include "tokenizer/spm_tokenizer.h"
#include "tokenizer/tokenizer.h"
#if defined(HEARTH_HAS_BPE)
#include "tokenizer/bpe/bpe_loader.h"
#endif

namespace hearth {

namespace {

constexpr const char* kModelKey = gguf_key::kTokenizerModel;
constexpr const char* kTokensKey = gguf_key::kTokens;
constexpr const char* kScoresKey = gguf_key::kScores;
constexpr const char* kTypesKey = gguf_key::kTokenTypes;

bool looksLikeBytePiece(const std::string& piece) {
    const auto hex = [](char c) {
        return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F') || (c >= 'a' && c <= 'f');
    };
    return piece.size() == 6 && piece.compare(0, 3, "<0x") == 0 && hex(piece[3]) && hex(piece[4]) &&
           piece[5] == '>';
}

Result<std::unique_ptr<Tokenizer>> loadLlamaVocab(const io::GgufFile& file) {
    const GgufVocabReader reader(file);
    HEARTH_ASSIGN(const auto* tokens, reader.array(kTokensKey, true));
    if (tokens->empty()) return reader.keyError(kTokensKey, "the vocabulary is empty");
    const size_t vocab = tokens->size();
    if (vocab > size_t(INT32_MAX)) return reader.keyError(kTokensKey, "too many tokens");
    HEARTH_ASSIGN(const auto* scores, reader.array(kScoresKey, false, vocab));
    HEARTH_ASSIGN(const auto* types, reader.array(kTypesKey, false, vocab));

    // llama.cpp's defaults for SentencePiece vocabularies.
    HEARTH_ASSIGN(const int32_t bosId, reader.tokenId(gguf_key::kBosId, 1, vocab));
    HEARTH_ASSIGN(const int32_t eosId, reader.tokenId(gguf_key::kEosId, 2, vocab));
    HEARTH_ASSIGN(const int32_t unkId, reader.tokenId(gguf_key::kUnknownId, 0, vocab));
    HEARTH_ASSIGN(const bool addBos, reader.flag(gguf_key::kAddBos, true));
    HEARTH_ASSIGN(const bool addEos, reader.flag(gguf_key::kAddEos, false));
    HEARTH_ASSIGN(const bool addSpacePrefix, reader.flag(gguf_key::kAddSpacePrefix, true));

    spm::ModelProto model;
    model.pieces.resize(vocab);
    bool hasBytes = false;
    int32_t unknownPiece = -1;
    for (size_t i = 0; i < vocab; ++i) {
        auto& piece = model.pieces[i];
        const std::string* text = (*tokens)[i].asString();
        if (!text)
            return reader.keyError(kTokensKey, "entry " + std::to_string(i) + " is a " +
                                                   io::ggufValueTypeName((*tokens)[i].type) +
                                                   ", expected a string");
        piece.piece = *text;
        if (scores) {
            const auto score = (*scores)[i].asFloat();
            if (!score)
                return reader.keyError(kScoresKey, "entry " + std::to_string(i) + " is a " +
                                                       io::ggufValueTypeName((*scores)[i].type) +
                                                       ", expected a number");
            piece.score = static_cast<float>(*score);
        }
        if (types) {
            const auto type = (*types)[i].asInt();
            if (!type || *type < 1 || *type > 6)
                return reader.keyError(kTypesKey, "entry " + std::to_string(i) +
                                                      " is not a token type 1..6");
            piece.kind = static_cast<TokenKind>(*type);
        } else { // older files: infer what SentencePiece needs to know
            if (int32_t(i) == unkId) piece.kind = TokenKind::Unknown;
            else if (int32_t(i) == bosId || int32_t(i) == eosId) piece.kind = TokenKind::Control;
            else if (looksLikeBytePiece(piece.piece)) piece.kind = TokenKind::Byte;
        }
        if (piece.kind == TokenKind::Byte) hasBytes = true;
        if (piece.kind == TokenKind::Unknown && unknownPiece < 0) unknownPiece = int32_t(i);
    }
    // SentencePiece needs an unknown piece; take the one the file names if none is typed so.
    if (unknownPiece < 0) {
        if (unkId < 0)
            return reader.keyError(kTypesKey, "the vocabulary has no unknown token");
        model.pieces[size_t(unkId)].kind = TokenKind::Unknown;
        unknownPiece = unkId;
    }

    using namespace spm::field;
    model.trainerSpec.setInt(kModelType, static_cast<int64_t>(spm::ModelType::Bpe));
    model.trainerSpec.setInt(kVocabSize, static_cast<int64_t>(vocab));
    // The library refuses byte pieces unless byte_fallback is on, and only falls back with it.
    model.trainerSpec.setBool(kByteFallback, hasBytes);
    model.trainerSpec.setInt(kUnkId, unknownPiece);
    model.trainerSpec.setInt(kBosId, bosId);
    model.trainerSpec.setInt(kEosId, eosId);
    model.trainerSpec.setInt(kPadId, -1);
    // GGUF records no normalisation: llama.cpp applies none, and keeps runs of spaces.
    model.normalizerSpec.setBytes(kName, "identity");
    model.normalizerSpec.setBool(kAddDummyPrefix, addSpacePrefix);
    model.normalizerSpec.setBool(kRemoveExtraWhitespaces, false);
    model.normalizerSpec.setBool(kEscapeWhitespaces, true);

    spm::TokenizerOptions options;
    options.source = file.path();
    options.bosId = bosId;
    options.eosId = eosId;
    options.addBos = addBos;
    options.addEos = addEos;
    HEARTH_ASSIGN(auto tokenizer, spm::SpmTokenizer::create(model, options));
    return std::unique_ptr<Tokenizer>(std::move(tokenizer));
}

} // namespace

Result<std::unique_ptr<Tokenizer>> loadTokenizerFromGguf(const io::GgufFile& file) {
    try {
        const io::GgufValue* model = file.find(kModelKey);
        if (!model) return notFound(file.path() + ": key " + std::string(kModelKey) +
                                    " is missing: the file has no tokenizer");
        HEARTH_ASSIGN(const std::string type, file.getString(kModelKey));
        if (type == "llama") return loadLlamaVocab(file);
        if (type == "gpt2") {
#if defined(HEARTH_HAS_BPE)
            return bpe::loadGgufBpeVocab(file);
#else
            return unsupported(file.path() + ": key " + std::string(kModelKey) +
                               ": tokenizer type \"gpt2\" (byte-level BPE) is not supported: this build has "
                               "no byte-level BPE support (HEARTH_BPE=OFF)");
#endif
        }
        return unsupported(file.path() + ": key " + std::string(kModelKey) + ": tokenizer type \"" +
                           type + "\" is not supported (\"llama\" SentencePiece and \"gpt2\" byte-level BPE are)");
    } catch (const std::exception& e) {
        return internalError(file.path() + ": loading the tokenizer failed: " + e.what());
    } catch (...) {
        return internalError(file.path() + ": loading the tokenizer failed");
    }
}

} // namespace hearth
