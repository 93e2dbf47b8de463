// The tokenizer interface the runtime uses, whatever the vocabulary's origin (SentencePiece
// tokenizer.model, GGUF "llama" vocabulary; byte-level BPE from tokenizer.json or a GGUF "gpt2"
// vocabulary, built with HEARTH_BPE).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hearth/status.h"

namespace hearth {

namespace io { class GgufFile; }

// A byte range [begin, end) of a text.
struct TextRange {
    size_t begin = 0;
    size_t end = 0;
    bool overlaps(size_t b, size_t e) const { return b < end && begin < e; }
};

enum class TokenKind : int32_t { // GGUF tokenizer.ggml.token_type values
    Normal = 1, Unknown = 2, Control = 3, UserDefined = 4, Unused = 5, Byte = 6,
};

class Tokenizer {
public:
    virtual ~Tokenizer() = default;

    // Encodes `text` as the model's tokenizer does. With addBos, prepends BOS when the model
    // asks for it (addsBos()), and appends EOS when it asks for that (addsEos(), rare), as
    // llama.cpp's add_special and HF's add_special_tokens do. Text is UTF-8; invalid bytes go
    // through byte fallback (kept as they are, as llama.cpp does), never crash.
    // SentencePiece: the dummy-prefix "▁" is added when the model says so; runs of spaces are
    // kept (as llama.cpp and HF's fast Llama tokenizer do). With parseSpecial, the text of a
    // control/user-defined token (e.g. "<s>") becomes that token, as HF's encode() does.
    virtual std::vector<int32_t> encode(std::string_view text, bool addBos, bool parseSpecial) const = 0;

    // Like encode(text, addBos, parseSpecial = true), except that special-token text that
    // overlaps one of `plainRanges` (sorted byte ranges of `text`) stays plain text: a rendered
    // chat prompt keeps its template's control tokens while what the user typed can never become
    // one. The text must be valid UTF-8 (chat content is sanitised before rendering).
    virtual std::vector<int32_t> encodeWithPlainRanges(std::string_view text, bool addBos,
                                                       std::span<const TextRange> plainRanges) const = 0;

    // The bytes a token contributes to text: "▁" becomes a space, "<0x41>" the byte 0x41,
    // control and unused tokens nothing, the unknown token SentencePiece's " ⁇ " (U+2047, so
    // that lost text shows), ids outside the vocabulary nothing. (The leading space after BOS is
    // handled by the detokenizer.)
    virtual std::string tokenBytes(int32_t id) const = 0;
    // The token's vocabulary string as stored (for display and `inspect`).
    virtual std::string tokenPiece(int32_t id) const = 0;
    virtual TokenKind tokenKind(int32_t id) const = 0;
    // The token's score as the vocabulary stores it (SentencePiece merge priority); 0 where the
    // vocabulary has none. GGUF export writes it as tokenizer.ggml.scores.
    virtual float tokenScore(int32_t /*id*/) const { return 0.0f; }
    // Byte-level BPE only (empty for other vocabularies), for GGUF export: the merges in rank
    // order as tokenizer.ggml.merges stores them ("Ġ t"), and the tokenizer.ggml.pre name of
    // the pre-tokenizer ("qwen2", "llama-bpe") when it is one Hearth knows by name.
    virtual std::vector<std::string> bpeMerges() const { return {}; }
    virtual std::string bpePreTokenizerName() const { return {}; }

    virtual int32_t vocabSize() const = 0;
    virtual int32_t bosId() const = 0;   // -1 if none
    virtual int32_t eosId() const = 0;   // -1 if none
    virtual bool addsBos() const = 0;    // whether prompts start with BOS by default
    virtual bool addsEos() const { return false; } // whether encode(addBos=true) appends EOS
    // Whether SentencePiece-style decoding drops the leading space of the first piece after BOS
    // (or at the very start).
    virtual bool stripsLeadingSpace() const = 0;

    // Plain decode of a whole id sequence (no special tokens' text), as HF decode(ids,
    // skip_special_tokens=True) would for SentencePiece: the first piece's leading space dropped
    // when stripsLeadingSpace().
    std::string decode(const std::vector<int32_t>& ids) const;
};

// Loads the tokenizer a GGUF file describes (tokenizer.ggml.model = "llama", or "gpt2" for
// byte-level BPE in builds with HEARTH_BPE; others: Unsupported naming the model type). Errors
// name the file and key.
Result<std::unique_ptr<Tokenizer>> loadTokenizerFromGguf(const io::GgufFile& file);
// Loads a SentencePiece tokenizer.model (through libsentencepiece), with BOS/EOS and add-BOS
// as the model (and an optional tokenizer_config.json beside it) says.
Result<std::unique_ptr<Tokenizer>> loadSentencePieceFile(const std::string& path);
// Picks by path: a .gguf file, a tokenizer.json (HF fast tokenizer: byte-level BPE), a
// tokenizer.model, or a folder holding one of them (tokenizer.json preferred, as HF's fast
// tokenizers use it).
Result<std::unique_ptr<Tokenizer>> loadTokenizer(const std::string& path);

// Turns a stream of token ids into UTF-8 text pieces, never emitting half a character:
// incomplete UTF-8 sequences are held until completed; invalid bytes become U+FFFD.
class StreamingDetokenizer {
public:
    // `previousId`: the token before the first one pushed (e.g. the last prompt token), or -1;
    // it decides whether a leading space is dropped (after BOS / at the start).
    StreamingDetokenizer(const Tokenizer& tokenizer, int32_t previousId);
    // Returns the text that is now complete (possibly empty).
    std::string push(int32_t id);
    // Returns whatever is held back (an incomplete sequence becomes U+FFFD).
    std::string flush();

private:
    const Tokenizer& m_tokenizer;
    int32_t m_previous;
    std::string m_pending;
};

} // namespace hearth
