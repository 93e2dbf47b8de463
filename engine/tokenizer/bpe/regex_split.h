// The pre-tokenizer regex on PCRE2 (UTF + Unicode properties, JIT-compiled when the library
// has a JIT). HF's tokenizers run these patterns on Oniguruma, whose \s is the Unicode
// White_Space property; PCRE2's \s in UCP mode is "Z or tab/LF/VT/FF/CR", which lacks U+0085
// (NEL). The pattern is therefore rewritten before compiling: every \s and \S outside a
// character class, and every \s inside one, becomes the explicit White_Space set.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "hearth/status.h"

namespace hearth::bpe {

class RegexSplitter {
public:
    // Compiles `pattern` (a regex, or with `literal` a plain string to split on). Errors:
    // DataLoss "<where>: invalid regex at offset N: <PCRE2's message>", where `where` names the
    // file and key the pattern came from.
    static Result<std::shared_ptr<const RegexSplitter>> create(const std::string& pattern, bool literal,
                                                               const std::string& where);
    ~RegexSplitter();
    RegexSplitter(const RegexSplitter&) = delete;
    RegexSplitter& operator=(const RegexSplitter&) = delete;

    // HF's Split with behavior "Isolated": every match is a piece of its own and so is every
    // stretch between matches; together the pieces cover `text`. Empty matches give nothing.
    // `text` must be valid UTF-8 (it is not checked again). Thread-safe.
    void split(std::string_view text, const std::function<void(std::string_view)>& sink) const;

    const std::string& pattern() const { return m_pattern; } // as given, before the rewrite

private:
    RegexSplitter() = default;
    struct Code;
    std::unique_ptr<Code> m_code;
    std::string m_pattern;
    bool m_jit = false;
};

// The rewrite described above (exposed for tests).
std::string rewriteWhiteSpaceClasses(const std::string& pattern);

} // namespace hearth::bpe
