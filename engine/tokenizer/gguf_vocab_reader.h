// Reading a GGUF vocabulary's keys (tokenizer.ggml.*) with one set of checks and one error
// wording, for both loaders: SentencePiece vocabularies (gguf_vocab.cpp) and byte-level BPE
// ones (bpe/gguf_bpe.cpp). Errors are DataLoss naming the file and the key.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hearth/status.h"
#include "io/gguf.h"

namespace hearth {

class GgufVocabReader {
public:
    // The file must outlive the reader.
    explicit GgufVocabReader(const io::GgufFile& file) : m_file(file) {}

    // "<path>: key <key>: <what>".
    Status keyError(const std::string& key, const std::string& what) const;

    // The array at `key`: nullptr when absent and not required; an error when required and
    // absent, when not an array, or when `entries` (the token count) is set and differs.
    Result<const std::vector<io::GgufValue>*> array(const std::string& key, bool required,
                                                    std::optional<size_t> entries = std::nullopt) const;

    // A token id of a `vocab`-token vocabulary: `fallback` when absent (-1 when the fallback is
    // not such an id), -1 when the file says -1 ("none", as some converters write it), an error
    // when not an integer or outside the vocabulary.
    Result<int32_t> tokenId(const std::string& key, int64_t fallback, size_t vocab) const;

    // A boolean, `fallback` when absent.
    Result<bool> flag(const std::string& key, bool fallback) const;

private:
    const io::GgufFile& m_file;
};

} // namespace hearth
