// GPT-2's byte-to-unicode table: byte-level BPE vocabularies store every byte as a printable
// character (0x20 ' ' is stored as U+0120 'Ġ', 0x0A as U+010A 'Ċ'), so that merges and
// vocabulary files are plain text. Hearth works on raw bytes internally and converts only at the
// edges (loading a vocabulary, showing a piece).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace hearth::bpe {

// The character (code point) that stands for `byte`.
char32_t byteToChar(uint8_t byte);
// The byte a character stands for, or -1 when it is not one of the 256 stand-ins.
int charToByte(char32_t c);

// Raw bytes -> the byte-level form (UTF-8 of the stand-in characters).
std::string bytesToByteLevel(std::string_view bytes);
// Byte-level form -> raw bytes. A character that is not a stand-in (possible in hand-made
// vocabularies) is kept as its own UTF-8, as HF's ByteLevel decoder does. Input must be valid
// UTF-8; invalid bytes are kept as they are.
std::string byteLevelToBytes(std::string_view text);

} // namespace hearth::bpe
