// Entry points of the byte-level BPE loaders, for tokenizer_loader.cpp and gguf_vocab.cpp
// (compiled only with HEARTH_BPE).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "hearth/status.h"
#include "tokenizer/tokenizer.h"

namespace hearth {

namespace io { class GgufFile; }

namespace bpe {

// A Hugging Face tokenizer.json with a byte-level BPE model, plus tokenizer_config.json beside
// it when present (BOS/EOS tokens, add_bos_token/add_eos_token). Errors name the file and key:
// DataLoss for malformed JSON or inconsistent data, Unsupported for a model, normalizer,
// pre-tokenizer or decoder type Hearth does not handle (named).
Result<std::unique_ptr<Tokenizer>> loadTokenizerJson(const std::string& path);
// The same from text already read (tests); `configText` is tokenizer_config.json or empty.
Result<std::unique_ptr<Tokenizer>> parseTokenizerJson(const std::string& jsonText, const std::string& configText,
                                                      const std::string& path);

// A GGUF "gpt2" vocabulary: tokenizer.ggml.tokens/token_type/merges/pre and the special ids.
Result<std::unique_ptr<Tokenizer>> loadGgufBpeVocab(const io::GgufFile& file);

// Pre-tokenizer regexes llama.cpp knows by tokenizer.ggml.pre name.
struct KnownPreTokenizer {
    std::string_view name;    // tokenizer.ggml.pre
    std::string_view pattern; // the Split regex (Isolated), followed by ByteLevel
    bool nfc;                 // the HF tokenizer normalizes to NFC first
    bool ignoreMerges;        // the HF model sets ignore_merges
};
// nullptr when `name` is unknown.
const KnownPreTokenizer* findKnownPreTokenizer(std::string_view name);
// The name whose pattern is exactly `pattern`, or empty.
std::string knownPreTokenizerName(std::string_view pattern);
std::string knownPreTokenizerNames(); // "qwen2, llama-bpe, ..." for messages

// GPT-2's own split, applied by the ByteLevel pre-tokenizer when use_regex is true.
inline constexpr std::string_view kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

} // namespace bpe
} // namespace hearth
