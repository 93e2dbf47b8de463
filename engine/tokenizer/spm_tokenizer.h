// SentencePiece tokenizer over libsentencepiece: the segmentation is the library's; Hearth adds
// the BOS/EOS policy, splitting on special tokens' text, and the per-token byte table the
// detokenizer uses.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hearth/status.h"
#include "tokenizer/sp_model_proto.h"
#include "tokenizer/tokenizer.h"

namespace sentencepiece { class SentencePieceProcessor; }

namespace hearth::spm {

struct TokenizerOptions {
    std::string source;   // the file (and key) the vocabulary came from, for error messages
    int32_t bosId = -1;   // -1: none
    int32_t eosId = -1;
    bool addBos = true;
    bool addEos = false;
};

class SpmTokenizer final : public Tokenizer {
public:
    // Loads `model` into libsentencepiece. Errors: DataLoss naming options.source when the
    // library refuses the vocabulary or an id is out of range; Internal for anything else.
    static Result<std::unique_ptr<SpmTokenizer>> create(const ModelProto& model,
                                                        const TokenizerOptions& options);
    ~SpmTokenizer() override;

    std::vector<int32_t> encode(std::string_view text, bool addBos, bool parseSpecial) const override;
    std::vector<int32_t> encodeWithPlainRanges(std::string_view text, bool addBos,
                                               std::span<const TextRange> plainRanges) const override;
    std::string tokenBytes(int32_t id) const override;
    std::string tokenPiece(int32_t id) const override;
    TokenKind tokenKind(int32_t id) const override;
    float tokenScore(int32_t id) const override;
    int32_t vocabSize() const override { return static_cast<int32_t>(m_pieces.size()); }
    int32_t bosId() const override { return m_bosId; }
    int32_t eosId() const override { return m_eosId; }
    bool addsBos() const override { return m_addBos && m_bosId >= 0; }
    bool addsEos() const override { return m_addEos && m_eosId >= 0; }
    bool stripsLeadingSpace() const override { return m_stripsLeadingSpace; }

private:
    SpmTokenizer();
    // One stretch of user text (between special tokens): dummy prefix, then the library.
    void encodeText(std::string_view segment, std::vector<int32_t>& out) const;
    // Valid UTF-8 straight to the library.
    void encodeRun(std::string_view run, std::vector<int32_t>& out) const;
    int32_t byteToken(uint8_t byte) const; // byte fallback (unk if the vocabulary has no such byte)
    // The longest special token whose text starts at text[pos], or {-1, 0}.
    std::pair<int32_t, size_t> matchSpecial(std::string_view text, size_t pos) const;
    std::vector<int32_t> encodeImpl(std::string_view text, bool addBos, bool parseSpecial,
                                    std::span<const TextRange> plainRanges) const;

    std::unique_ptr<sentencepiece::SentencePieceProcessor> m_processor;
    std::vector<std::string> m_pieces;
    std::vector<std::string> m_bytes;
    std::vector<TokenKind> m_kinds;
    std::vector<float> m_scores; // as stored: GGUF export writes them back
    // Control and user-defined tokens by the first byte of their text, longest first.
    std::array<std::vector<std::pair<std::string, int32_t>>, 256> m_specials;
    bool m_hasSpecials = false;
    int32_t m_bosId = -1;
    int32_t m_eosId = -1;
    bool m_addBos = true;
    bool m_addEos = false;
    bool m_stripsLeadingSpace = true;
    bool m_addDummyPrefix = true;
    int32_t m_unkId = 0;
    std::array<int32_t, 256> m_byteIds{}; // byte value -> its <0xAB> token, or -1
};

} // namespace hearth::spm
