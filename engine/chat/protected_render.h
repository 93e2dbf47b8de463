// Rendering a chat template so that what people typed can be told apart from what the template
// wrote: the rendered prompt plus the byte ranges that came from user-controlled strings, which
// the tokenizer then keeps plain (no control tokens), whatever the template does to the text
// (`| trim`, `.strip()`, `tojson`, ...).
//
// User-controlled strings: every string of a message whose role is not "assistant" (the system
// prompt, user messages, tool results), and every string under an assistant's "tool_calls"
// (tool-call arguments). An assistant's content and reasoning are the model's own output.
//
// How: the template is rendered once with an unguessable marker in place of each controlled
// string (the skeleton: what the template writes itself), once for real, and once per controlled
// string with only that string real, which shows exactly what the template made of it. When the
// skeleton with each string's rendering put back equals the real rendering, the text is the real
// one, byte for byte. Otherwise (a template whose structure depends on the text itself) the
// skeleton is used with the raw strings put back: still safe, `exact` is false.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "chat/chat_template.h"
#include "hearth/status.h"

namespace hearth::chat {

struct ByteRange {
    size_t begin = 0, end = 0;
};

struct ProtectedRender {
    std::string text;
    std::vector<ByteRange> userRanges; // sorted, disjoint: bytes that came from controlled strings
    bool exact = true;                 // text is byte-identical to a plain render
};

// Errors: those of ChatTemplate::render.
Result<ProtectedRender> renderProtected(const ChatTemplate& tmpl, const nlohmann::ordered_json& messages,
                                        const RenderOptions& options);

} // namespace hearth::chat
