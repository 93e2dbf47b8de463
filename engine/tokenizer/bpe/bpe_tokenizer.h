// Byte-level BPE tokenizer (Qwen2/2.5/3, Llama 3), built from a tokenizer.json or a GGUF "gpt2"
// vocabulary. Encoding follows HF tokenizers' pipeline:
//   1. added tokens are split out of the raw text (leftmost-longest; single_word, lstrip and
//      rstrip as HF applies them), only when the caller asks to parse special text;
//   2. the normalizer (NFC for Qwen) runs on the text between them;
//   3. the pre-tokenizer (Split regexes, ByteLevel) cuts it into words;
//   4. each word's bytes are merged by rank (BpeModel).
// Decoding maps byte-level pieces back to bytes; special added tokens are Control (no text, as
// Tokenizer::decode skips them), the others UserDefined (their text, as HF decodes them).
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "tokenizer/bpe/bpe_model.h"
#include "tokenizer/bpe/normalizer.h"
#include "tokenizer/bpe/regex_split.h"
#include "tokenizer/tokenizer.h"

namespace hearth::bpe {

struct AddedToken {
    int32_t id = -1;
    std::string content;
    bool special = true;     // Control when true, UserDefined otherwise
    bool singleWord = false; // only where no word character touches it
    bool lstrip = false;     // swallows the white space before it
    bool rstrip = false;     // swallows the white space after it
    bool normalized = false; // matched in the normalized text instead of the raw text
};

// One pre-tokenizer step: Split (regex set, byteLevel false) or ByteLevel (byteLevel true; regex
// set when it applies GPT-2's own split, use_regex).
struct PreTokenizerStep {
    std::shared_ptr<const RegexSplitter> regex;
    bool byteLevel = false;
    bool addPrefixSpace = false; // ByteLevel: a space before each piece that lacks one
};

struct BpeTokenizerSpec {
    std::string source;                  // the file, for messages
    std::vector<std::string> pieces;     // by id, as stored: byte-level form; added tokens' text
    std::vector<TokenKind> kinds;        // by id
    BpeModelSpec model;
    std::vector<AddedToken> added;
    std::vector<NormalizationForm> normalization;
    std::vector<PreTokenizerStep> preTokenizer;
    int32_t bosId = -1;
    int32_t eosId = -1;
    bool addBos = false;
    bool addEos = false;
    std::string preName; // tokenizer.ggml.pre equivalent when known ("qwen2", "llama-bpe")
};

class BpeTokenizer final : public Tokenizer {
public:
    static Result<std::unique_ptr<BpeTokenizer>> create(BpeTokenizerSpec spec);

    // parseSpecial false: the whole text is plain text, added tokens included (a user who types
    // "<|im_end|>" gets the pieces of that text, never the control token).
    std::vector<int32_t> encode(std::string_view text, bool addBos, bool parseSpecial) const override;
    std::vector<int32_t> encodeWithPlainRanges(std::string_view text, bool addBos,
                                               std::span<const TextRange> plainRanges) const override;
    std::string tokenBytes(int32_t id) const override;
    std::string tokenPiece(int32_t id) const override;
    TokenKind tokenKind(int32_t id) const override;
    int32_t vocabSize() const override { return int32_t(m_pieces.size()); }
    int32_t bosId() const override { return m_bosId; }
    int32_t eosId() const override { return m_eosId; }
    bool addsBos() const override { return m_addBos && m_bosId >= 0; }
    bool addsEos() const override { return m_addEos && m_eosId >= 0; }
    bool stripsLeadingSpace() const override { return false; }
    std::vector<std::string> bpeMerges() const override;
    std::string bpePreTokenizerName() const override { return m_preName; }

private:
    BpeTokenizer() = default;

    // Added tokens by the first byte of their text, longest first.
    struct Entry {
        std::string text; // as matched: the content, or its normalized form
        const AddedToken* token;
    };
    struct Matcher {
        std::array<std::vector<Entry>, 256> byFirstByte;
        std::array<bool, 256> starts{};
        bool empty = true;
    };
    struct Match {
        const AddedToken* token = nullptr;
        size_t begin = 0;
        size_t end = 0;
    };
    static void addToMatcher(Matcher& matcher, std::string text, const AddedToken& token);
    static Match findLeftmostLongest(const Matcher& matcher, std::string_view text, size_t from);
    // Splits `text` at added tokens: `plain` gets the stretches between them, ids go to `out`.
    // `base` is the offset of `text` in the text given to encode (for plainRanges).
    template <typename Plain>
    void splitAdded(const Matcher& matcher, std::string_view text, std::vector<int32_t>& out,
                    const Plain& plain, size_t base, std::span<const TextRange> plainRanges) const;
    void encodeSegment(std::string_view segment, bool parseSpecial, std::vector<int32_t>& out) const;
    std::vector<int32_t> encodeImpl(std::string_view text, bool addBos, bool parseSpecial,
                                    std::span<const TextRange> plainRanges) const;
    void encodePlain(std::string_view text, std::vector<int32_t>& out) const;
    void preTokenize(std::string_view piece, size_t step, std::vector<int32_t>& out) const;

    std::unique_ptr<BpeModel> m_model;
    std::vector<std::string> m_pieces;
    std::vector<std::string> m_bytes;
    std::vector<TokenKind> m_kinds;
    std::vector<AddedToken> m_added;
    Matcher m_rawMatcher;        // added tokens with normalized = false
    Matcher m_normalizedMatcher; // normalized = true, by their normalized text
    Normalizer m_normalizer;
    std::vector<PreTokenizerStep> m_steps;
    int32_t m_bosId = -1;
    int32_t m_eosId = -1;
    bool m_addBos = false;
    bool m_addEos = false;
    std::string m_preName;
};

} // namespace hearth::bpe
