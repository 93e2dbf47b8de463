// A model's tokenizer on its own, without loading the weights: for tools, token counters and
// tests. Qt-free. Ownership: the caller owns it. Threading: const calls from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hearth/status.h"

namespace hearth {

class TextTokenizer {
public:
    // `path`: a .gguf file, a tokenizer.json (byte-level BPE), a tokenizer.model (SentencePiece),
    // or a folder holding one. Errors: NotFound, DataLoss, Unsupported (naming the file).
    static Result<std::unique_ptr<TextTokenizer>> load(const std::string& path);
    ~TextTokenizer();

    // As the model's tokenizer encodes: addBos prepends BOS when the model adds one; with
    // parseSpecial the text of a special token (e.g. "<|im_end|>") becomes that token.
    std::vector<int32_t> encode(std::string_view text, bool addBos, bool parseSpecial) const;
    // The text of `ids` without special tokens' text. Ids outside the vocabulary contribute nothing.
    std::string decode(const std::vector<int32_t>& ids) const;
    int32_t vocabSize() const;

private:
    TextTokenizer();
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace hearth
