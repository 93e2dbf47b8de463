#include "chat/jinja/jinja_lexer.h"
#include "base/utf8.h"

#include <algorithm>
#include <cstdlib>

#include "chat/jinja/jinja_text.h"
#include "chat/jinja/jinja_value.h"

namespace hearth::chat::jinja {

namespace {

// Jinja reads the source as Python's str.splitlines() does and joins the lines with "\n"; without
// keep_trailing_newline the final line break disappears.
std::string normalizeNewlines(std::string_view source) {
    const auto lines = pySplitLines(source, false);
    std::string out;
    out.reserve(source.size());
    for (size_t i = 0; i < lines.size(); ++i) {
        if (i) out += '\n';
        out += lines[i];
    }
    return out;
}

bool isNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool isNameChar(char c) { return isNameStart(c) || (c >= '0' && c <= '9'); }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isTagSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// Python's str.rstrip() (Unicode whitespace), used by '{%-'.
void rstripAll(std::string& text) { text = pyStrip(text, nullptr, false, true); }

int hexValue(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

class Lexer {
public:
    explicit Lexer(std::string source) : m_src(std::move(source)) {}

    std::vector<Token> run() {
        bool lineStarting = true; // Jinja: the previous token ended with a newline (or none yet)
        while (m_pos < m_src.size()) {
            const size_t tagStart = findTagStart(m_pos);
            std::string text = m_src.substr(m_pos, tagStart - m_pos);
            if (tagStart == m_src.size()) {
                pushText(std::move(text), m_pos);
                m_pos = tagStart;
                break;
            }
            const char kind = m_src[tagStart + 1]; // '{', '%' or '#'
            const char sign = tagStart + 2 < m_src.size() ? m_src[tagStart + 2] : '\0';
            if (sign == '-') {
                rstripAll(text);
            } else if (sign != '+' && kind != '{') {
                // lstrip_blocks: drop the indentation before a block/comment tag on its own line.
                const size_t lineStart = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
                if (lineStart > 0 || lineStarting) {
                    const std::string_view tail(text.data() + lineStart, text.size() - lineStart);
                    if (!tail.empty() && pyStrip(tail, nullptr, true, true).empty()) text.resize(lineStart);
                }
            }
            pushText(std::move(text), m_pos);
            const int line = lineAt(tagStart);
            size_t bodyStart = tagStart + 2 + ((sign == '-' || sign == '+') ? 1 : 0);
            if (kind == '#') {
                m_pos = lexCommentEnd(bodyStart, line);
            } else if (kind == '%' && isRawBlock(bodyStart)) {
                m_pos = lexRaw(bodyStart, line);
            } else {
                m_tokens.push_back({kind == '{' ? TokenKind::VarBegin : TokenKind::BlockBegin, "", line});
                m_pos = lexTagBody(bodyStart, kind == '{', line);
            }
            lineStarting = m_pos > 0 && m_src[m_pos - 1] == '\n' && m_pos > tagStart + 2;
        }
        m_tokens.push_back({TokenKind::End, "", lineAt(m_src.size())});
        return std::move(m_tokens);
    }

private:
    size_t findTagStart(size_t from) const {
        size_t pos = from;
        while (true) {
            pos = m_src.find('{', pos);
            if (pos == std::string::npos || pos + 1 >= m_src.size()) return m_src.size();
            const char next = m_src[pos + 1];
            if (next == '{' || next == '%' || next == '#') return pos;
            ++pos;
        }
    }

    int lineAt(size_t pos) {
        // Lines are counted incrementally: tokens are produced in source order.
        while (m_lineCountedTo < pos && m_lineCountedTo < m_src.size()) {
            if (m_src[m_lineCountedTo] == '\n') ++m_line;
            ++m_lineCountedTo;
        }
        return m_line;
    }

    void pushText(std::string text, size_t at) {
        if (text.empty()) return;
        m_tokens.push_back({TokenKind::Text, std::move(text), lineAt(at)});
    }

    // After the closing marker: '-' eats all following whitespace, '+' nothing, and plain
    // block/comment ends eat one newline (trim_blocks).
    size_t afterClose(size_t pos, char sign, bool trimBlocks) const {
        if (sign == '-') {
            while (pos < m_src.size()) {
                size_t next = pos;
                const char32_t cp = decodeAt(m_src, next);
                if (!isPySpace(cp)) break;
                pos = next;
            }
        } else if (sign != '+' && trimBlocks && pos < m_src.size() && m_src[pos] == '\n') {
            ++pos;
        }
        return pos;
    }

    size_t lexCommentEnd(size_t from, int line) {
        const size_t end = m_src.find("#}", from);
        if (end == std::string::npos) throw TemplateError(line, "unclosed comment: '{#' without '#}'");
        char sign = '\0';
        if (end > from && (m_src[end - 1] == '-' || m_src[end - 1] == '+')) sign = m_src[end - 1];
        return afterClose(end + 2, sign, true);
    }

    bool isRawBlock(size_t pos) const {
        while (pos < m_src.size() && isTagSpace(m_src[pos])) ++pos;
        if (m_src.compare(pos, 3, "raw") != 0) return false;
        pos += 3;
        while (pos < m_src.size() && isTagSpace(m_src[pos])) ++pos;
        if (pos < m_src.size() && m_src[pos] == '-') ++pos;
        return m_src.compare(pos, 2, "%}") == 0;
    }

    // {% raw %}...{% endraw %}: the content is text, taken literally.
    size_t lexRaw(size_t from, int line) {
        const size_t open = m_src.find("%}", from);
        const bool openStrip = open > 0 && m_src[open - 1] == '-';
        size_t contentStart = afterClose(open + 2, openStrip ? '-' : '\0', true);
        size_t search = contentStart;
        while (true) {
            const size_t tag = m_src.find("{%", search);
            if (tag == std::string::npos) throw TemplateError(line, "unclosed '{% raw %}' block (no '{% endraw %}')");
            size_t p = tag + 2;
            const char sign = p < m_src.size() ? m_src[p] : '\0';
            if (sign == '-' || sign == '+') ++p;
            while (p < m_src.size() && isTagSpace(m_src[p])) ++p;
            if (m_src.compare(p, 6, "endraw") == 0) {
                p += 6;
                while (p < m_src.size() && isTagSpace(m_src[p])) ++p;
                char closeSign = '\0';
                if (p < m_src.size() && (m_src[p] == '-' || m_src[p] == '+')) closeSign = m_src[p++];
                if (m_src.compare(p, 2, "%}") == 0) {
                    std::string text = m_src.substr(contentStart, tag - contentStart);
                    if (sign == '-') rstripAll(text);
                    pushText(std::move(text), contentStart);
                    return afterClose(p + 2, closeSign, true);
                }
            }
            search = tag + 2;
        }
    }

    size_t lexTagBody(size_t pos, bool isVar, int openLine) {
        std::vector<char> balance;
        while (true) {
            while (pos < m_src.size() && isTagSpace(m_src[pos])) ++pos;
            if (pos >= m_src.size()) {
                throw TemplateError(openLine, std::string("unclosed '") + (isVar ? "{{" : "{%") + "' tag (no '" +
                                                  (isVar ? "}}" : "%}") + "' before the end of the template)");
            }
            const int line = lineAt(pos);
            if (balance.empty()) {
                const char* close = isVar ? "}}" : "%}";
                char sign = '\0';
                size_t at = pos;
                if ((m_src[pos] == '-' || (!isVar && m_src[pos] == '+')) && m_src.compare(pos + 1, 2, close) == 0) {
                    sign = m_src[pos];
                    at = pos + 1;
                }
                if (m_src.compare(at, 2, close) == 0) {
                    m_tokens.push_back({isVar ? TokenKind::VarEnd : TokenKind::BlockEnd, "", line});
                    return afterClose(at + 2, sign, !isVar);
                }
            }
            const char c = m_src[pos];
            if (isNameStart(c)) {
                size_t end = pos;
                while (end < m_src.size() && isNameChar(m_src[end])) ++end;
                m_tokens.push_back({TokenKind::Name, m_src.substr(pos, end - pos), line});
                pos = end;
            } else if (isDigit(c)) {
                pos = lexNumber(pos, line);
            } else if (c == '\'' || c == '"') {
                pos = lexString(pos, line);
            } else {
                static const char* const kOps[] = {"//", "**", "==", "!=", "<=", ">=", "+", "-", "*", "/", "%",
                                                   "~", "<", ">", "=", ".", ",", ":", "|", "(", ")", "[", "]",
                                                   "{", "}"};
                const char* match = nullptr;
                for (const char* op : kOps) {
                    if (m_src.compare(pos, std::char_traits<char>::length(op), op) == 0) {
                        match = op;
                        break;
                    }
                }
                if (!match) {
                    throw TemplateError(line, std::string("unexpected character '") + c + "' inside a tag");
                }
                const std::string op(match);
                if (op == "(" || op == "[" || op == "{") {
                    balance.push_back(op[0]);
                } else if (op == ")" || op == "]" || op == "}") {
                    const char want = op == ")" ? '(' : (op == "]" ? '[' : '{');
                    if (balance.empty()) throw TemplateError(line, "unexpected '" + op + "'");
                    if (balance.back() != want) {
                        throw TemplateError(line, "unexpected '" + op + "': a '" + std::string(1, balance.back()) +
                                                      "' is not closed");
                    }
                    balance.pop_back();
                }
                m_tokens.push_back({TokenKind::Operator, op, line});
                pos += op.size();
            }
        }
    }

    size_t lexNumber(size_t pos, int line) {
        auto digits = [&](size_t p) {
            while (p < m_src.size() && (isDigit(m_src[p]) || (m_src[p] == '_' && p + 1 < m_src.size() && isDigit(m_src[p + 1])))) ++p;
            return p;
        };
        size_t end = digits(pos);
        bool isFloat = false;
        if (end + 1 < m_src.size() && m_src[end] == '.' && isDigit(m_src[end + 1])) {
            isFloat = true;
            end = digits(end + 1);
        }
        if (end < m_src.size() && (m_src[end] == 'e' || m_src[end] == 'E')) {
            size_t p = end + 1;
            if (p < m_src.size() && (m_src[p] == '+' || m_src[p] == '-')) ++p;
            if (p < m_src.size() && isDigit(m_src[p])) {
                isFloat = true;
                end = digits(p);
            }
        }
        std::string text = m_src.substr(pos, end - pos);
        text.erase(std::remove(text.begin(), text.end(), '_'), text.end());
        Token token{isFloat ? TokenKind::Float : TokenKind::Integer, text, line};
        if (isFloat) {
            token.floatValue = std::strtod(text.c_str(), nullptr);
        } else {
            errno = 0;
            token.intValue = std::strtoll(text.c_str(), nullptr, 10);
            if (errno == ERANGE) throw TemplateError(line, "integer literal too large: " + text);
        }
        m_tokens.push_back(std::move(token));
        return end;
    }

    // Jinja unescapes string literals with Python's 'unicode-escape' codec.
    size_t lexString(size_t pos, int line) {
        const char quote = m_src[pos];
        std::string value;
        size_t p = pos + 1;
        while (true) {
            if (p >= m_src.size()) throw TemplateError(line, "unterminated string literal");
            const char c = m_src[p];
            if (c == quote) break;
            if (c != '\\' || p + 1 >= m_src.size()) {
                value += c;
                ++p;
                continue;
            }
            const char e = m_src[p + 1];
            p += 2;
            switch (e) {
            case '\n': break; // line continuation
            case '\\': value += '\\'; break;
            case '\'': value += '\''; break;
            case '"': value += '"'; break;
            case 'a': value += '\a'; break;
            case 'b': value += '\b'; break;
            case 'f': value += '\f'; break;
            case 'n': value += '\n'; break;
            case 'r': value += '\r'; break;
            case 't': value += '\t'; break;
            case 'v': value += '\v'; break;
            case 'x':
            case 'u':
            case 'U': {
                const int width = e == 'x' ? 2 : (e == 'u' ? 4 : 8);
                char32_t cp = 0;
                for (int i = 0; i < width; ++i) {
                    const int h = p + i < m_src.size() ? hexValue(m_src[p + i]) : -1;
                    if (h < 0) throw TemplateError(line, std::string("truncated \\") + e + " escape in a string literal");
                    cp = cp * 16 + static_cast<char32_t>(h);
                }
                if (cp > 0x10FFFF) throw TemplateError(line, "invalid \\U escape in a string literal");
                utf8::append(value, cp);
                p += width;
                break;
            }
            default:
                if (e >= '0' && e <= '7') {
                    char32_t cp = static_cast<char32_t>(e - '0');
                    for (int i = 0; i < 2 && p < m_src.size() && m_src[p] >= '0' && m_src[p] <= '7'; ++i) {
                        cp = cp * 8 + static_cast<char32_t>(m_src[p++] - '0');
                    }
                    utf8::append(value, cp);
                } else {
                    value += '\\'; // unknown escapes stay as written
                    value += e;
                }
            }
        }
        m_tokens.push_back({TokenKind::String, std::move(value), line});
        return p + 1;
    }

    std::string m_src;
    size_t m_pos = 0;
    std::vector<Token> m_tokens;
    int m_line = 1;
    size_t m_lineCountedTo = 0;
};

} // namespace

std::vector<Token> tokenize(std::string_view source) {
    return Lexer(normalizeNewlines(source)).run();
}

} // namespace hearth::chat::jinja
