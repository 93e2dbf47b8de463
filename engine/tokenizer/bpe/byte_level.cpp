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

std::string bytesToByteLevel(std::string_view bytes) {
    std::string out;
    out.reserve(bytes.size() * 2);
    for (const char b : bytes) utf8::append(out, byteToChar(uint8_t(b)));
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
        const int byte = charToByte(utf8::decode(text, pos, length));
        if (byte >= 0) out.push_back(char(byte));
        else out.append(text.substr(pos, length));
        pos += length;
    }
    return out;
}

} // namespace hearth::bpe
