// UTF-8 validation by the Unicode rules (no overlongs, no surrogates, nothing past U+10FFFF),
// shared by the encoder (invalid bytes go through byte fallback) and the streaming detokenizer.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace hearth::utf8 {

enum class Scan { Complete, Incomplete, Invalid };

struct Step {
    Scan kind = Scan::Invalid;
    // Complete: the character's length. Incomplete: the bytes left (a valid start of a character
    // that the input cuts off). Invalid: the "maximal subpart" to replace by one U+FFFD (at least
    // one byte), as Unicode recommends, so that decoders agree on the number of U+FFFD.
    size_t length = 1;
};

// Looks at the character starting at s[pos] (pos < s.size()).
Step scan(std::string_view s, size_t pos);

inline constexpr std::string_view kReplacement = "\xEF\xBF\xBD"; // U+FFFD

// `s` with every invalid sequence (and a cut-off one at the end) replaced by U+FFFD.
std::string sanitize(std::string_view s);
// Whether `s` is valid UTF-8 throughout (check before sanitize() to avoid copying valid text).
bool isValid(std::string_view s);

// The code point at s[pos] (pos < s.size()); `length` gets its byte length. An invalid or cut-off
// sequence decodes as U+FFFD with the length scan() gives it.
char32_t decode(std::string_view s, size_t pos, size_t& length);
// Appends the UTF-8 bytes of `cp` (at most U+10FFFF).
void append(std::string& out, char32_t cp);

} // namespace hearth::utf8
