// The Jinja parser: tokens -> TemplateAst, with Jinja's operator precedence (filters bind
// tighter than arithmetic, `not` looser than comparisons, `x if c else y` loosest).
// Unknown tags, filters and tests are rejected here, so a template that would fail on them is
// refused when it is loaded rather than halfway through a conversation.
#pragma once

#include <string_view>

#include "chat/jinja/jinja_ast.h"

namespace hearth::chat::jinja {

// Throws TemplateError (with the line) on any syntax error.
TemplateAst parseTemplate(std::string_view source);

} // namespace hearth::chat::jinja
