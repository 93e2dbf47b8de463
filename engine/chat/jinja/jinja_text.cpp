#include "chat/jinja/jinja_text.h"
#include "base/utf8.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace hearth::chat::jinja {

// ---- UTF-8 ------------------------------------------------------------------------------------

char32_t decodeAt(std::string_view s, size_t& pos) {
    const auto b0 = static_cast<unsigned char>(s[pos]);
    int len = 0;
    char32_t cp = 0;
    if (b0 < 0x80) {
        ++pos;
        return b0;
    } else if ((b0 & 0xE0) == 0xC0 && b0 >= 0xC2) {
        len = 2;
        cp = b0 & 0x1F;
    } else if ((b0 & 0xF0) == 0xE0) {
        len = 3;
        cp = b0 & 0x0F;
    } else if ((b0 & 0xF8) == 0xF0 && b0 <= 0xF4) {
        len = 4;
        cp = b0 & 0x07;
    }
    if (len == 0 || pos + len > s.size()) {
        ++pos;
        return b0; // invalid lead byte or truncated: the byte stands for itself
    }
    for (int i = 1; i < len; ++i) {
        const auto b = static_cast<unsigned char>(s[pos + i]);
        if ((b & 0xC0) != 0x80) {
            ++pos;
            return b0;
        }
        cp = (cp << 6) | (b & 0x3F);
    }
    // Overlong forms and surrogates are invalid as well.
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))) {
        ++pos;
        return b0;
    }
    pos += len;
    return cp;
}

std::vector<size_t> codePointOffsets(std::string_view s) {
    std::vector<size_t> offsets;
    offsets.reserve(s.size() + 1);
    size_t pos = 0;
    while (pos < s.size()) {
        offsets.push_back(pos);
        decodeAt(s, pos);
    }
    offsets.push_back(s.size());
    return offsets;
}

size_t codePointCount(std::string_view s) {
    size_t n = 0;
    size_t pos = 0;
    while (pos < s.size()) {
        decodeAt(s, pos);
        ++n;
    }
    return n;
}

bool isPySpace(char32_t cp) {
    switch (cp) {
    case 0x09: case 0x0A: case 0x0B: case 0x0C: case 0x0D: case 0x1C: case 0x1D: case 0x1E:
    case 0x1F: case 0x20: case 0x85: case 0xA0: case 0x1680: case 0x2028: case 0x2029:
    case 0x202F: case 0x205F: case 0x3000:
        return true;
    default:
        return cp >= 0x2000 && cp <= 0x200A;
    }
}

namespace {

// A string split into code points with their byte spans, for the strip/split helpers.
struct CodePoints {
    std::vector<char32_t> cps;
    std::vector<size_t> starts; // starts[i] = byte offset of cps[i]; starts[n] = size
};

CodePoints decodeAll(std::string_view s) {
    CodePoints out;
    size_t pos = 0;
    while (pos < s.size()) {
        out.starts.push_back(pos);
        out.cps.push_back(decodeAt(s, pos));
    }
    out.starts.push_back(s.size());
    return out;
}

bool inCharSet(char32_t cp, const std::vector<char32_t>& set) {
    return std::find(set.begin(), set.end(), cp) != set.end();
}

} // namespace

std::string pyStrip(std::string_view s, const std::string* chars, bool left, bool right) {
    const CodePoints text = decodeAll(s);
    std::vector<char32_t> set;
    if (chars) set = decodeAll(*chars).cps;
    auto strippable = [&](char32_t cp) { return chars ? inCharSet(cp, set) : isPySpace(cp); };
    size_t begin = 0;
    size_t end = text.cps.size();
    if (left) {
        while (begin < end && strippable(text.cps[begin])) ++begin;
    }
    if (right) {
        while (end > begin && strippable(text.cps[end - 1])) --end;
    }
    return std::string(s.substr(text.starts[begin], text.starts[end] - text.starts[begin]));
}

std::vector<std::string> pySplit(std::string_view s, const std::string* sep, int64_t maxSplit) {
    std::vector<std::string> parts;
    if (sep) {
        size_t pos = 0;
        int64_t splits = 0;
        while (maxSplit < 0 || splits < maxSplit) {
            const size_t hit = s.find(*sep, pos);
            if (hit == std::string_view::npos) break;
            parts.emplace_back(s.substr(pos, hit - pos));
            pos = hit + sep->size();
            ++splits;
        }
        parts.emplace_back(s.substr(pos));
        return parts;
    }
    // Whitespace splitting drops empty pieces and leading/trailing runs.
    const CodePoints text = decodeAll(s);
    const size_t n = text.cps.size();
    size_t i = 0;
    int64_t splits = 0;
    while (i < n) {
        while (i < n && isPySpace(text.cps[i])) ++i;
        if (i >= n) break;
        if (maxSplit >= 0 && splits >= maxSplit) {
            size_t end = n;
            while (end > i && isPySpace(text.cps[end - 1])) --end;
            parts.emplace_back(s.substr(text.starts[i], text.starts[end] - text.starts[i]));
            return parts;
        }
        size_t j = i;
        while (j < n && !isPySpace(text.cps[j])) ++j;
        parts.emplace_back(s.substr(text.starts[i], text.starts[j] - text.starts[i]));
        ++splits;
        i = j;
    }
    return parts;
}

std::vector<std::string> pyRSplit(std::string_view s, const std::string* sep, int64_t maxSplit) {
    if (maxSplit < 0) return pySplit(s, sep, maxSplit);
    std::vector<std::string> parts;
    if (sep) {
        size_t end = s.size();
        int64_t splits = 0;
        while (splits < maxSplit && end >= sep->size()) {
            const size_t hit = s.rfind(*sep, end - sep->size());
            if (hit == std::string_view::npos) break;
            parts.emplace_back(s.substr(hit + sep->size(), end - hit - sep->size()));
            end = hit;
            ++splits;
        }
        parts.emplace_back(s.substr(0, end));
        std::reverse(parts.begin(), parts.end());
        return parts;
    }
    const CodePoints text = decodeAll(s);
    size_t j = text.cps.size();
    int64_t splits = 0;
    while (j > 0) {
        while (j > 0 && isPySpace(text.cps[j - 1])) --j;
        if (j == 0) break;
        if (splits >= maxSplit) {
            size_t begin = 0;
            while (begin < j && isPySpace(text.cps[begin])) ++begin;
            parts.emplace_back(s.substr(text.starts[begin], text.starts[j] - text.starts[begin]));
            break;
        }
        size_t i = j;
        while (i > 0 && !isPySpace(text.cps[i - 1])) --i;
        parts.emplace_back(s.substr(text.starts[i], text.starts[j] - text.starts[i]));
        ++splits;
        j = i;
    }
    std::reverse(parts.begin(), parts.end());
    return parts;
}

std::vector<std::string> pySplitLines(std::string_view s, bool keepEnds) {
    std::vector<std::string> lines;
    const CodePoints text = decodeAll(s);
    const size_t n = text.cps.size();
    size_t lineStart = 0;
    for (size_t i = 0; i < n; ++i) {
        const char32_t c = text.cps[i];
        const bool isBreak = c == '\n' || c == '\r' || c == 0x0B || c == 0x0C || c == 0x1C ||
                             c == 0x1D || c == 0x1E || c == 0x85 || c == 0x2028 || c == 0x2029;
        if (!isBreak) continue;
        size_t breakEnd = i + 1;
        if (c == '\r' && i + 1 < n && text.cps[i + 1] == '\n') breakEnd = i + 2;
        const size_t contentEnd = keepEnds ? breakEnd : i;
        lines.emplace_back(s.substr(text.starts[lineStart], text.starts[contentEnd] - text.starts[lineStart]));
        lineStart = breakEnd;
        i = breakEnd - 1;
    }
    if (lineStart < n) lines.emplace_back(s.substr(text.starts[lineStart]));
    return lines;
}

std::string pyReplace(std::string_view s, std::string_view from, std::string_view to, int64_t count) {
    std::string out;
    if (from.empty()) {
        // Python inserts `to` between every code point (and at both ends).
        const CodePoints text = decodeAll(s);
        int64_t done = 0;
        for (size_t i = 0; i <= text.cps.size(); ++i) {
            if (count < 0 || done < count) {
                out += to;
                ++done;
            }
            if (i < text.cps.size()) out += s.substr(text.starts[i], text.starts[i + 1] - text.starts[i]);
        }
        return out;
    }
    size_t pos = 0;
    int64_t done = 0;
    while (count < 0 || done < count) {
        const size_t hit = s.find(from, pos);
        if (hit == std::string_view::npos) break;
        out += s.substr(pos, hit - pos);
        out += to;
        pos = hit + from.size();
        ++done;
    }
    out += s.substr(pos);
    return out;
}

// ---- Case mapping -----------------------------------------------------------------------------

char32_t toUpperCp(char32_t c) {
    if (c >= 'a' && c <= 'z') return c - 32;
    if (c < 0x80) return c;
    if (c >= 0xE0 && c <= 0xFE && c != 0xF7) return c - 32;
    if (c == 0xFF) return 0x178;
    if (c == 0xB5) return 0x39C;
    if (c >= 0x100 && c <= 0x17F) {
        if (c == 0x131) return 'I';
        if (c == 0x17F) return 'S';
        if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E)) return (c % 2 == 0) ? c - 1 : c;
        if (c == 0x130 || c == 0x138 || c == 0x149 || c == 0x178) return c;
        return (c % 2 == 1) ? c - 1 : c;
    }
    if (c >= 0x3B1 && c <= 0x3C9) return c == 0x3C2 ? 0x3A3 : c - 32;
    if (c >= 0x3AC && c <= 0x3AF) return c == 0x3AC ? 0x386 : c - 37; // accented alpha..iota
    if (c >= 0x430 && c <= 0x44F) return c - 32;
    if (c >= 0x450 && c <= 0x45F) return c - 80;
    return c;
}

char32_t toLowerCp(char32_t c) {
    if (c >= 'A' && c <= 'Z') return c + 32;
    if (c < 0x80) return c;
    if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 32;
    if (c == 0x178) return 0xFF;
    if (c >= 0x100 && c <= 0x17F) {
        if (c == 0x130) return 'i';
        if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E)) return (c % 2 == 1) ? c + 1 : c;
        if (c == 0x131 || c == 0x138 || c == 0x149 || c == 0x17F) return c;
        return (c % 2 == 0) ? c + 1 : c;
    }
    if (c >= 0x391 && c <= 0x3A9 && c != 0x3A2) return c + 32;
    if (c == 0x386) return 0x3AC;
    if (c >= 0x388 && c <= 0x38A) return c + 37;
    if (c >= 0x410 && c <= 0x42F) return c + 32;
    if (c >= 0x400 && c <= 0x40F) return c + 80;
    return c;
}

namespace {

bool isCased(char32_t c) { return toUpperCp(c) != c || toLowerCp(c) != c || c == 0xDF; }

// Python maps some characters to two: 'ß'.upper() == 'SS', 'ß'.capitalize() == 'Ss'. Mapping
// functions return these markers (beyond Unicode) for them.
constexpr char32_t kUpperSharpS = 0x110000;
constexpr char32_t kTitleSharpS = 0x110001;

template <typename F>
std::string mapCodePoints(std::string_view s, F&& f) {
    std::string out;
    out.reserve(s.size());
    size_t pos = 0;
    size_t index = 0;
    while (pos < s.size()) {
        const size_t start = pos;
        const char32_t cp = decodeAt(s, pos);
        const char32_t mapped = f(cp, index++);
        if (mapped == cp) out.append(s.substr(start, pos - start)); // keeps invalid bytes intact
        else if (mapped == kUpperSharpS) out += "SS";
        else if (mapped == kTitleSharpS) out += "Ss";
        else utf8::append(out, mapped);
    }
    return out;
}

} // namespace

std::string pyUpper(std::string_view s) {
    return mapCodePoints(s, [](char32_t c, size_t) { return c == 0xDF ? kUpperSharpS : toUpperCp(c); });
}

std::string pyLower(std::string_view s) {
    return mapCodePoints(s, [](char32_t c, size_t) { return toLowerCp(c); });
}

std::string pyTitle(std::string_view s) {
    bool previousCased = false;
    return mapCodePoints(s, [&](char32_t c, size_t) {
        const char32_t mapped = previousCased ? toLowerCp(c) : (c == 0xDF ? kTitleSharpS : toUpperCp(c));
        previousCased = isCased(c);
        return mapped;
    });
}

std::string pyCapitalize(std::string_view s) {
    return mapCodePoints(s, [](char32_t c, size_t index) {
        if (index == 0) return c == 0xDF ? kTitleSharpS : toUpperCp(c);
        return toLowerCp(c);
    });
}

// ---- Numbers ----------------------------------------------------------------------------------

std::string pyFloatRepr(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
    if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
    // Shortest round-trip digits, as Python's repr uses (David Gay's algorithm, same result).
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
    std::string sci(buf, res.ptr);
    std::string sign;
    if (sci[0] == '-') {
        sign = "-";
        sci.erase(0, 1);
    }
    const size_t ePos = sci.find('e');
    std::string digits = sci.substr(0, ePos);
    digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
    const int exponent = std::stoi(sci.substr(ePos + 1));
    if (exponent >= -4 && exponent < 16) {
        std::string out;
        if (exponent >= 0) {
            const size_t intDigits = static_cast<size_t>(exponent) + 1;
            if (digits.size() <= intDigits) {
                out = digits + std::string(intDigits - digits.size(), '0') + ".0";
            } else {
                out = digits.substr(0, intDigits) + "." + digits.substr(intDigits);
            }
        } else {
            out = "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
        }
        return sign + out;
    }
    std::string mantissa = digits.substr(0, 1);
    if (digits.size() > 1) mantissa += "." + digits.substr(1);
    char expBuf[16];
    std::snprintf(expBuf, sizeof(expBuf), "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    return sign + mantissa + expBuf;
}

std::string jsonFloat(double v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v < 0 ? "-Infinity" : "Infinity";
    return pyFloatRepr(v);
}

// ---- repr / str -------------------------------------------------------------------------------

namespace {

// Code points that CPython's str.isprintable() rejects and repr() therefore escapes, for the
// ranges chat text actually contains (controls, odd spaces, format characters, private use).
bool isPyNonPrintable(char32_t c) {
    if (c < 0x20 || (c >= 0x7F && c <= 0xA0) || c == 0xAD) return true;
    if (c == 0x1680 || c == 0x180E || (c >= 0x2000 && c <= 0x200F) || (c >= 0x2028 && c <= 0x202F)) return true;
    if ((c >= 0x205F && c <= 0x206F) || c == 0x3000 || c == 0xFEFF) return true;
    if ((c >= 0xE000 && c <= 0xF8FF) || (c >= 0xFFF9 && c <= 0xFFFB)) return true;
    if (c >= 0xF0000) return true; // supplementary private use planes
    return false;
}

void appendHexEscape(std::string& out, char32_t c) {
    char buf[16];
    if (c <= 0xFF) std::snprintf(buf, sizeof(buf), "\\x%02x", static_cast<unsigned>(c));
    else if (c <= 0xFFFF) std::snprintf(buf, sizeof(buf), "\\u%04x", static_cast<unsigned>(c));
    else std::snprintf(buf, sizeof(buf), "\\U%08x", static_cast<unsigned>(c));
    out += buf;
}

} // namespace

std::string pyStrRepr(std::string_view s) {
    const bool hasSingle = s.find('\'') != std::string_view::npos;
    const bool hasDouble = s.find('"') != std::string_view::npos;
    const char quote = (hasSingle && !hasDouble) ? '"' : '\'';
    std::string out(1, quote);
    size_t pos = 0;
    while (pos < s.size()) {
        const size_t start = pos;
        const char32_t c = decodeAt(s, pos);
        if (c == static_cast<char32_t>(quote) || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c == '\t') {
            out += "\\t";
        } else if (isPyNonPrintable(c)) {
            appendHexEscape(out, c);
        } else {
            out.append(s.substr(start, pos - start));
        }
    }
    out += quote;
    return out;
}

std::string pyRepr(const Json& j) {
    switch (j.type()) {
    case Json::value_t::null: return "None";
    case Json::value_t::boolean: return j.get<bool>() ? "True" : "False";
    case Json::value_t::number_integer: return std::to_string(j.get<int64_t>());
    case Json::value_t::number_unsigned: return std::to_string(j.get<uint64_t>());
    case Json::value_t::number_float: return pyFloatRepr(j.get<double>());
    case Json::value_t::string: return pyStrRepr(j.get_ref<const std::string&>());
    case Json::value_t::array: {
        std::string out = "[";
        bool first = true;
        for (const auto& item : j) {
            if (!first) out += ", ";
            first = false;
            out += pyRepr(item);
        }
        return out + "]";
    }
    case Json::value_t::object: {
        std::string out = "{";
        bool first = true;
        for (auto it = j.begin(); it != j.end(); ++it) {
            if (!first) out += ", ";
            first = false;
            out += pyStrRepr(it.key()) + ": " + pyRepr(it.value());
        }
        return out + "}";
    }
    default: return "None";
    }
}

std::string pyStr(const Json& j) {
    if (j.is_string()) return j.get<std::string>();
    return pyRepr(j);
}

// ---- json.dumps -------------------------------------------------------------------------------

namespace {

void appendJsonString(std::string& out, std::string_view s, bool ensureAscii) {
    out += '"';
    size_t pos = 0;
    while (pos < s.size()) {
        const size_t start = pos;
        const char32_t c = decodeAt(s, pos);
        switch (c) {
        case '"': out += "\\\""; continue;
        case '\\': out += "\\\\"; continue;
        case '\n': out += "\\n"; continue;
        case '\r': out += "\\r"; continue;
        case '\t': out += "\\t"; continue;
        case '\b': out += "\\b"; continue;
        case '\f': out += "\\f"; continue;
        default: break;
        }
        char buf[16];
        if (c < 0x20 || (ensureAscii && c >= 0x7F)) {
            if (c >= 0x10000) {
                const char32_t v = c - 0x10000;
                std::snprintf(buf, sizeof(buf), "\\u%04x\\u%04x", static_cast<unsigned>(0xD800 + (v >> 10)),
                              static_cast<unsigned>(0xDC00 + (v & 0x3FF)));
            } else {
                std::snprintf(buf, sizeof(buf), "\\u%04x", static_cast<unsigned>(c));
            }
            out += buf;
        } else {
            out.append(s.substr(start, pos - start));
        }
    }
    out += '"';
}

void dumpValue(std::string& out, const Json& j, const JsonDumpOptions& o, const std::string& itemSep, int depth) {
    auto newline = [&](int level) {
        out += '\n';
        for (int i = 0; i < level; ++i) out += o.indent;
    };
    switch (j.type()) {
    case Json::value_t::null: out += "null"; return;
    case Json::value_t::boolean: out += j.get<bool>() ? "true" : "false"; return;
    case Json::value_t::number_integer: out += std::to_string(j.get<int64_t>()); return;
    case Json::value_t::number_unsigned: out += std::to_string(j.get<uint64_t>()); return;
    case Json::value_t::number_float: out += jsonFloat(j.get<double>()); return;
    case Json::value_t::string: appendJsonString(out, j.get_ref<const std::string&>(), o.ensureAscii); return;
    case Json::value_t::array: {
        if (j.empty()) {
            out += "[]";
            return;
        }
        out += '[';
        bool first = true;
        for (const auto& item : j) {
            if (!first) out += itemSep;
            if (o.hasIndent) newline(depth + 1);
            first = false;
            dumpValue(out, item, o, itemSep, depth + 1);
        }
        if (o.hasIndent) newline(depth);
        out += ']';
        return;
    }
    case Json::value_t::object: {
        if (j.empty()) {
            out += "{}";
            return;
        }
        std::vector<Json::const_iterator> entries;
        for (auto it = j.begin(); it != j.end(); ++it) entries.push_back(it);
        if (o.sortKeys) {
            std::stable_sort(entries.begin(), entries.end(),
                             [](const auto& a, const auto& b) { return a.key() < b.key(); });
        }
        out += '{';
        bool first = true;
        for (const auto& it : entries) {
            if (!first) out += itemSep;
            if (o.hasIndent) newline(depth + 1);
            first = false;
            appendJsonString(out, it.key(), o.ensureAscii);
            out += o.keySeparator;
            dumpValue(out, it.value(), o, itemSep, depth + 1);
        }
        if (o.hasIndent) newline(depth);
        out += '}';
        return;
    }
    default: out += "null"; return;
    }
}

} // namespace

std::string pyJsonDumps(const Json& j, const JsonDumpOptions& options) {
    // Python: separators default to (', ', ': '), or (',', ': ') when an indent is given.
    std::string itemSep = options.itemSeparator;
    if (itemSep.empty()) itemSep = options.hasIndent ? "," : ", ";
    std::string out;
    dumpValue(out, j, options, itemSep, 0);
    return out;
}

} // namespace hearth::chat::jinja
