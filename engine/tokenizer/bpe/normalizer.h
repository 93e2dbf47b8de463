// Text preparation before pre-tokenization: invalid UTF-8 replaced, Unicode normalization
// (through ICU), and the character classes the added-token matcher needs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hearth/status.h"

namespace hearth::bpe {

// HF normalizers that Hearth applies. Anything else is refused at load time, by name.
enum class NormalizationForm { Nfc, Nfd, Nfkc, Nfkd };

class Normalizer {
public:
    // A sequence of forms (empty: identity). Errors: Internal when ICU cannot provide the form.
    static Result<Normalizer> create(std::vector<NormalizationForm> forms, const std::string& where);
    bool isIdentity() const { return m_forms.empty(); }
    // `text` must be valid UTF-8. Returns false only when ICU fails (then `out` is the input).
    bool apply(std::string_view text, std::string& out) const;
    const std::vector<NormalizationForm>& forms() const { return m_forms; }

private:
    std::vector<NormalizationForm> m_forms;
};

// Unicode White_Space (Rust's char::is_whitespace, regex \s).
bool isWhiteSpace(char32_t c);
// Rust regex's Unicode \w: alphabetic, marks, decimal digits, connector punctuation, joiners.
bool isWordChar(char32_t c);

} // namespace hearth::bpe
