// Text helpers for the Jinja interpreter: Python's view of strings (code points, str.isspace,
// str.split/strip), Python's number formatting (repr of floats), Python's repr() of strings and
// containers, and json.dumps as transformers' `tojson` filter calls it.
// Templates are rendered by Python in the reference implementation, so wherever a template can
// observe a difference (lengths, slices, printed numbers) we follow Python, not C++.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace hearth::chat::jinja {

using Json = nlohmann::ordered_json;

// ---- UTF-8 as Python code points ------------------------------------------------------------
// Byte offsets of each code point's start (plus the end). An invalid byte counts as one code
// point of its own, so any byte string can be sliced without losing data.
std::vector<size_t> codePointOffsets(std::string_view s);
size_t codePointCount(std::string_view s);
// Decodes one code point at `pos` (advancing it); invalid bytes decode as themselves (0x80-0xFF).
char32_t decodeAt(std::string_view s, size_t& pos);

// Python's str.isspace() for one code point.
bool isPySpace(char32_t cp);

// str.strip/lstrip/rstrip; `chars` null means whitespace.
std::string pyStrip(std::string_view s, const std::string* chars, bool left, bool right);
// str.split(sep, maxsplit) with sep null meaning "runs of whitespace"; str.rsplit likewise.
std::vector<std::string> pySplit(std::string_view s, const std::string* sep, int64_t maxSplit);
std::vector<std::string> pyRSplit(std::string_view s, const std::string* sep, int64_t maxSplit);
std::vector<std::string> pySplitLines(std::string_view s, bool keepEnds);
std::string pyReplace(std::string_view s, std::string_view from, std::string_view to, int64_t count);

// Case mapping: ASCII, Latin-1, Latin Extended-A, Greek and Cyrillic basic ranges. Other scripts
// have no case or are left as they are (documented limitation).
char32_t toUpperCp(char32_t cp);
char32_t toLowerCp(char32_t cp);
std::string pyUpper(std::string_view s);
std::string pyLower(std::string_view s);
std::string pyTitle(std::string_view s);      // str.title()
std::string pyCapitalize(std::string_view s); // str.capitalize()

// ---- Numbers ----------------------------------------------------------------------------------
// Python's repr(float): shortest round-trip digits; fixed notation when 1e-4 <= |x| < 1e16,
// otherwise d.ddde+XX; always shows ".0" for integral values; inf/nan as Python prints them.
std::string pyFloatRepr(double v);
// json.dumps's float formatting: as repr, but Infinity/-Infinity/NaN.
std::string jsonFloat(double v);

// ---- Serialisation ----------------------------------------------------------------------------
// Python repr() of a string: quote choice and escapes as CPython does for printable text.
std::string pyStrRepr(std::string_view s);
// Python str() of a JSON value as the template sees it: strings verbatim, None/True/False,
// lists and dicts in repr form ({'a': [1, None]}).
std::string pyStr(const Json& j);
std::string pyRepr(const Json& j);

struct JsonDumpOptions {
    bool ensureAscii = false;
    bool sortKeys = false;
    bool hasIndent = false;
    std::string indent;         // the indent unit (an int n becomes n spaces)
    std::string itemSeparator;  // defaults: ", " without indent, "," with indent (Python)
    std::string keySeparator = ": ";
};
// json.dumps(value, ...) exactly as Python writes it (escapes, separators, float repr).
std::string pyJsonDumps(const Json& j, const JsonDumpOptions& options);

} // namespace hearth::chat::jinja
