// Internal helpers for the file parsers: overflow-checked arithmetic and byte strings made safe
// to quote in error messages. Not part of the engine API.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hearth::io::detail {

inline std::optional<uint64_t> checkedAdd(uint64_t a, uint64_t b) {
    uint64_t r;
    if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
    return r;
}

inline std::optional<uint64_t> checkedMul(uint64_t a, uint64_t b) {
    uint64_t r;
    if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
    return r;
}

// Rounds `value` up to a multiple of `alignment` (> 0); nullopt on overflow.
inline std::optional<uint64_t> alignUp(uint64_t value, uint64_t alignment) {
    uint64_t rem = value % alignment;
    if (rem == 0) return value;
    return checkedAdd(value, alignment - rem);
}

// Printable ASCII stays as is; anything else becomes \xNN so that corrupt names and magic
// bytes never put control characters or broken UTF-8 into a message. Long inputs are cut.
inline std::string printable(std::string_view bytes, size_t maxChars = 80) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (size_t i = 0; i < bytes.size(); ++i) {
        if (out.size() >= maxChars) {
            out += "...";
            break;
        }
        unsigned char c = static_cast<unsigned char>(bytes[i]);
        if (c >= 0x20 && c < 0x7F && c != '\\') {
            out += static_cast<char>(c);
        } else {
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

} // namespace hearth::io::detail
