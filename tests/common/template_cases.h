// The chat-template reference cases (tests/data/templates/expected.json, rendered by
// transformers' apply_chat_template on the GPU machine) and the render options each case names.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "chat/chat_template.h"

namespace hearth::test {

// The folder holding the templates (<name>.jinja, <name>.json) and expected.json.
std::string templateDir();
// The parsed expected.json.
nlohmann::ordered_json templateCases();
// The template source a case renders (its own "source", or <template>.jinja).
std::string templateSource(const nlohmann::ordered_json& record);
// The options of a case ("options" of a record): generation prompt, tools, extra context, BOS/EOS
// strings and the fixed clock.
chat::RenderOptions renderOptionsFrom(const nlohmann::ordered_json& options);

} // namespace hearth::test
