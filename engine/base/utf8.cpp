#include "base/utf8.h"

#include <cstdint>

namespace hearth::utf8 {

Step scan(std::string_view s, size_t pos) {
    const auto byteAt = [&](size_t i) { return static_cast<uint8_t>(s[i]); };
    const uint8_t lead = byteAt(pos);
    if (lead < 0x80) return {Scan::Complete, 1};

    // Length and the allowed range of the second byte (Unicode Table 3-7).
    size_t length = 0;
    uint8_t low = 0x80, high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        if (lead == 0xE0) low = 0xA0;       // no overlongs
        else if (lead == 0xED) high = 0x9F; // no surrogates
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        if (lead == 0xF0) low = 0x90;       // no overlongs
        else if (lead == 0xF4) high = 0x8F; // nothing past U+10FFFF
    } else {
        return {Scan::Invalid, 1}; // a continuation byte, C0/C1, F5..FF
    }

    for (size_t i = 1; i < length; ++i) {
        if (pos + i >= s.size()) return {Scan::Incomplete, i};
        const uint8_t b = byteAt(pos + i);
        const uint8_t lo = i == 1 ? low : 0x80;
        const uint8_t hi = i == 1 ? high : 0xBF;
        if (b < lo || b > hi) return {Scan::Invalid, i};
    }
    return {Scan::Complete, length};
}

std::string sanitize(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    size_t pos = 0;
    while (pos < s.size()) {
        const Step step = scan(s, pos);
        if (step.kind == Scan::Complete) out.append(s.substr(pos, step.length));
        else out.append(kReplacement);
        pos += step.length;
    }
    return out;
}

bool isValid(std::string_view s) {
    for (size_t pos = 0; pos < s.size();) {
        if (uint8_t(s[pos]) < 0x80) { // the common case, without a call
            ++pos;
            continue;
        }
        const Step step = scan(s, pos);
        if (step.kind != Scan::Complete) return false;
        pos += step.length;
    }
    return true;
}

char32_t decode(std::string_view s, size_t pos, size_t& length) {
    const Step step = scan(s, pos);
    length = step.length;
    if (step.kind != Scan::Complete) return 0xFFFD;
    const auto b = [&](size_t i) { return char32_t(uint8_t(s[pos + i])); };
    switch (length) {
    case 1: return b(0);
    case 2: return ((b(0) & 0x1F) << 6) | (b(1) & 0x3F);
    case 3: return ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    default: return ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
    }
}

void append(std::string& out, char32_t cp) {
    if (cp < 0x80) {
        out += char(cp);
    } else if (cp < 0x800) {
        out += char(0xC0 | (cp >> 6));
        out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += char(0xE0 | (cp >> 12));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    } else {
        out += char(0xF0 | (cp >> 18));
        out += char(0x80 | ((cp >> 12) & 0x3F));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    }
}

} // namespace hearth::utf8
