#include "tokenizer/bpe/byte_level.h"

#include <array>

#include "base/utf8.h"

namespace hearth::bpe {

namespace {

struct Tables {
    std::array<char32_t, 256> toChar{};
    std::array<int16_t, 512> toByte{}; // every stand-in is below U+0200
    Tables() {
        toByte.fill(-1);
        // Printable Latin-1 bytes stand for themselves; the others (controls, space, 0x7F-0xA0,
        // 0xAD) take U+0100 onwards in byte order. This is GPT-2's definition.
        const auto printable = [](int b) {
            return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
        };
        char32_t next = 0x100;
        for (int b = 0; b < 256; ++b) {
            const char32_t c = printable(b) ? char32_t(b) : next++;
            toChar[size_t(b)] = c;
            toByte[size_t(c)] = int16_t(b);
        }
    }
};

const Tables& tables() {
    static const Tables t;
    return t;
}

} // namespace

char32_t byteToChar(uint8_t byte) { return tables().toChar[byte]; }

int charToByte(char32_t c) { return c < 512 ? tables().toByte[size_t(c)] : -1; }

char32_t decodeUtf8(std::string_view text, size_t pos, size_t& length) {
    const utf8::Step step = utf8::scan(text, pos);
    length = step.length;
    if (step.kind != utf8::Scan::Complete) return 0xFFFD;
    const auto b = [&](size_t i) { return char32_t(uint8_t(text[pos + i])); };
    switch (length) {
    case 1: return b(0);
    case 2: return ((b(0) & 0x1F) << 6) | (b(1) & 0x3F);
    case 3: return ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    default: return ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
    }
}

void appendUtf8(std::string& out, char32_t c) {
    if (c < 0x80) {
        out.push_back(char(c));
    } else if (c < 0x800) {
        out.push_back(char(0xC0 | (c >> 6)));
        out.push_back(char(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
        out.push_back(char(0xE0 | (c >> 12)));
        out.push_back(char(0x80 | ((c >> 6) & 0x3F)));
        out.push_back(char(0x80 | (c & 0x3F)));
    } else {
        out.push_back(char(0xF0 | (c >> 18)));
        out.push_back(char(0x80 | ((c >> 12) & 0x3F)));
        out.push_back(char(0x80 | ((c >> 6) & 0x3F)));
        out.push_back(char(0x80 | (c & 0x3F)));
    }
}

std::string bytesToByteLevel(std::string_view bytes) {
    std::string out;
    out.reserve(bytes.size() * 2);
    for (const char b : bytes) appendUtf8(out, byteToChar(uint8_t(b)));
    return out;
}

std::string byteLevelToBytes(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    size_t pos = 0;
    while (pos < text.size()) {
        size_t length = 0;
        // Invalid UTF-8 (not expected in a vocabulary) decodes as U+FFFD, which is no stand-in:
        // like other characters, it keeps its bytes.
        const int byte = charToByte(decodeUtf8(text, pos, length));
        if (byte >= 0) out.push_back(char(byte));
        else out.append(text.substr(pos, length));
        pos += length;
    }
    return out;
}

} // namespace hearth::bpe
