#include "tokenizer/bpe/normalizer.h"

#include <unicode/bytestream.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>

#include "base/utf8.h"

namespace hearth::bpe {

namespace {

const icu::Normalizer2* instance(NormalizationForm form, UErrorCode& error) {
    switch (form) {
    case NormalizationForm::Nfc: return icu::Normalizer2::getNFCInstance(error);
    case NormalizationForm::Nfd: return icu::Normalizer2::getNFDInstance(error);
    case NormalizationForm::Nfkc: return icu::Normalizer2::getNFKCInstance(error);
    case NormalizationForm::Nfkd: return icu::Normalizer2::getNFKDInstance(error);
    }
    return nullptr;
}

} // namespace


Result<Normalizer> Normalizer::create(std::vector<NormalizationForm> forms, const std::string& where) {
    for (const NormalizationForm form : forms) {
        UErrorCode error = U_ZERO_ERROR;
        if (!instance(form, error) || U_FAILURE(error))
            return internalError(where + ": ICU cannot provide the normalizer: " + u_errorName(error));
    }
    Normalizer n;
    n.m_forms = std::move(forms);
    return n;
}

bool Normalizer::apply(std::string_view text, std::string& out) const {
    out.assign(text);
    for (const NormalizationForm form : m_forms) {
        UErrorCode error = U_ZERO_ERROR;
        const icu::Normalizer2* n = instance(form, error);
        if (!n || U_FAILURE(error)) return false;
        const icu::StringPiece piece(out.data(), int32_t(out.size()));
        // Most text is already normalized; checking is much cheaper than rebuilding it.
        if (n->isNormalizedUTF8(piece, error) && U_SUCCESS(error)) continue;
        error = U_ZERO_ERROR;
        std::string normalized;
        normalized.reserve(out.size() + 16);
        icu::StringByteSink<std::string> sink(&normalized);
        n->normalizeUTF8(0, piece, sink, nullptr, error);
        if (U_FAILURE(error)) return false;
        out = std::move(normalized);
    }
    return true;
}

bool isWhiteSpace(char32_t c) { return u_isUWhiteSpace(UChar32(c)); }

bool isWordChar(char32_t c) {
    const UChar32 u = UChar32(c);
    if (u_hasBinaryProperty(u, UCHAR_ALPHABETIC) || u_hasBinaryProperty(u, UCHAR_JOIN_CONTROL)) return true;
    const int8_t type = u_charType(u);
    return type == U_DECIMAL_DIGIT_NUMBER || type == U_NON_SPACING_MARK || type == U_ENCLOSING_MARK ||
           type == U_COMBINING_SPACING_MARK || type == U_CONNECTOR_PUNCTUATION;
}

} // namespace hearth::bpe
