#include "tokenizer/bpe/regex_split.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

namespace hearth::bpe {

namespace {

// Unicode White_Space (the property Oniguruma's and Rust's \s use), as class members.
constexpr std::string_view kWhiteSpaceMembers =
    "\\t\\n\\x{0B}\\f\\r\\x{20}\\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}"
    "\\x{202F}\\x{205F}\\x{3000}";

std::string pcre2Message(int code) {
    PCRE2_UCHAR buffer[256];
    const int n = pcre2_get_error_message(code, buffer, sizeof buffer);
    return n < 0 ? "PCRE2 error " + std::to_string(code) : std::string(reinterpret_cast<char*>(buffer));
}

size_t utf8Length(uint8_t lead) {
    if (lead < 0x80) return 1;
    if (lead >= 0xF0) return 4;
    if (lead >= 0xE0) return 3;
    return 2;
}

} // namespace

struct RegexSplitter::Code {
    pcre2_code* code = nullptr;
    ~Code() { pcre2_code_free(code); }
};

RegexSplitter::~RegexSplitter() = default;

std::string rewriteWhiteSpaceClasses(const std::string& pattern) {
    std::string out;
    out.reserve(pattern.size() + 64);
    bool inClass = false;
    bool quoted = false; // inside \Q...\E
    for (size_t i = 0; i < pattern.size(); ++i) {
        const char c = pattern[i];
        if (quoted) {
            if (c == '\\' && i + 1 < pattern.size() && pattern[i + 1] == 'E') quoted = false;
            out.push_back(c);
            continue;
        }
        if (c == '\\' && i + 1 < pattern.size()) {
            const char next = pattern[++i];
            if (next == 's') {
                if (inClass) out += kWhiteSpaceMembers;
                else out += "[" + std::string(kWhiteSpaceMembers) + "]";
            } else if (next == 'S' && !inClass) {
                out += "[^" + std::string(kWhiteSpaceMembers) + "]";
            } else { // any other escape (also \S inside a class, which keeps PCRE2's meaning)
                if (next == 'Q') quoted = true;
                out.push_back('\\');
                out.push_back(next);
            }
            continue;
        }
        if (!inClass && c == '[') {
            inClass = true;
            out.push_back(c);
            // A ']' right after '[' or '[^' is a literal member, not the end.
            if (i + 1 < pattern.size() && pattern[i + 1] == '^') out.push_back(pattern[++i]);
            if (i + 1 < pattern.size() && pattern[i + 1] == ']') out.push_back(pattern[++i]);
            continue;
        }
        if (inClass && c == '[' && i + 1 < pattern.size() && pattern[i + 1] == ':') {
            // A POSIX class such as [:alpha:] inside a class: copy it whole.
            const size_t end = pattern.find(":]", i + 2);
            if (end != std::string::npos) {
                out.append(pattern, i, end + 2 - i);
                i = end + 1;
                continue;
            }
        }
        if (inClass && c == ']') inClass = false;
        out.push_back(c);
    }
    return out;
}

Result<std::shared_ptr<const RegexSplitter>> RegexSplitter::create(const std::string& pattern, bool literal,
                                                                   const std::string& where) {
    std::shared_ptr<RegexSplitter> splitter(new RegexSplitter());
    splitter->m_pattern = pattern;
    splitter->m_code = std::make_unique<Code>();
    const std::string compiled = literal ? pattern : rewriteWhiteSpaceClasses(pattern);
    if (compiled.empty()) return dataLoss(where + ": the split pattern is empty");
    // PCRE2 refuses UCP beside LITERAL; a literal has no classes for it to change anyway.
    const uint32_t options = literal ? PCRE2_UTF | PCRE2_LITERAL : PCRE2_UTF | PCRE2_UCP;
    int errorCode = 0;
    PCRE2_SIZE errorOffset = 0;
    splitter->m_code->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(compiled.data()), compiled.size(),
                                           options, &errorCode, &errorOffset, nullptr);
    if (!splitter->m_code->code) {
        // The offset is in the rewritten pattern; the pattern itself is quoted for context.
        return dataLoss(where + ": invalid regex \"" + pattern + "\": " + pcre2Message(errorCode) +
                        " (at offset " + std::to_string(errorOffset) + " of the compiled form)");
    }
    // JIT is an optimisation only: without it (no JIT in this PCRE2 build) matching is slower.
    splitter->m_jit = pcre2_jit_compile(splitter->m_code->code, PCRE2_JIT_COMPLETE) == 0;
    return std::shared_ptr<const RegexSplitter>(std::move(splitter));
}

void RegexSplitter::split(std::string_view text, const std::function<void(std::string_view)>& sink) const {
    if (text.empty()) return;
    const std::unique_ptr<pcre2_match_data, void (*)(pcre2_match_data*)> matchData(
        pcre2_match_data_create_from_pattern(m_code->code, nullptr), pcre2_match_data_free);
    pcre2_match_data* match = matchData.get();
    if (!match) { // out of memory: the text still goes on, as one piece
        sink(text);
        return;
    }
    const auto subject = reinterpret_cast<PCRE2_SPTR>(text.data());
    size_t emitted = 0; // end of what has been passed on
    size_t start = 0;
    while (start < text.size()) {
        int rc = PCRE2_ERROR_NOMATCH;
        if (m_jit) rc = pcre2_jit_match(m_code->code, subject, text.size(), start, 0, match, nullptr);
        // Without JIT, or when the JIT's stack runs out: the interpreter, which uses the heap.
        if (!m_jit || (rc < 0 && rc != PCRE2_ERROR_NOMATCH))
            rc = pcre2_match(m_code->code, subject, text.size(), start, PCRE2_NO_UTF_CHECK | PCRE2_NO_JIT, match,
                             nullptr);
        if (rc < 0) break; // no further match (or a limit hit): the rest is one stretch
        const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(match);
        const size_t begin = ovector[0];
        const size_t end = ovector[1];
        if (end <= begin) { // an empty match: step over one character
            start = begin + (begin < text.size() ? utf8Length(uint8_t(text[begin])) : 1);
            continue;
        }
        if (begin > emitted) sink(text.substr(emitted, begin - emitted));
        sink(text.substr(begin, end - begin));
        emitted = end;
        start = end;
    }
    if (emitted < text.size()) sink(text.substr(emitted));
}

} // namespace hearth::bpe
