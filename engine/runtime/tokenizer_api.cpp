// TextTokenizer: the public face of the tokenizer layer.
#include "hearth/tokenizer.h"

#include "tokenizer/tokenizer.h"

namespace hearth {

struct TextTokenizer::Impl {
    std::unique_ptr<Tokenizer> tokenizer;
};

TextTokenizer::TextTokenizer() : m_impl(std::make_unique<Impl>()) {}
TextTokenizer::~TextTokenizer() = default;

Result<std::unique_ptr<TextTokenizer>> TextTokenizer::load(const std::string& path) {
    HEARTH_ASSIGN(auto loaded, loadTokenizer(path));
    std::unique_ptr<TextTokenizer> out(new TextTokenizer());
    out->m_impl->tokenizer = std::move(loaded);
    return out;
}

std::vector<int32_t> TextTokenizer::encode(std::string_view text, bool addBos, bool parseSpecial) const {
    return m_impl->tokenizer->encode(text, addBos, parseSpecial);
}

std::string TextTokenizer::decode(const std::vector<int32_t>& ids) const { return m_impl->tokenizer->decode(ids); }

int32_t TextTokenizer::vocabSize() const { return m_impl->tokenizer->vocabSize(); }

} // namespace hearth
