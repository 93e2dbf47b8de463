// A model's own chat template (Jinja, from GGUF `tokenizer.chat_template` or the `chat_template`
// of tokenizer_config.json), rendered by Hearth's Jinja interpreter exactly as transformers'
// apply_chat_template renders it (same environment: trim_blocks, lstrip_blocks, its tojson,
// raise_exception and strftime_now).
//
//     HEARTH_ASSIGN(auto tmpl, chat::ChatTemplate::parse(source));
//     chat::RenderOptions options;
//     options.addGenerationPrompt = true;
//     options.extraContext["enable_thinking"] = false;
//     HEARTH_ASSIGN(std::string prompt, tmpl.render(messages, options));
//
// Errors (syntax, an undefined variable used where that is an error, raise_exception from the
// template, a template that loops or recurses without end or builds too much data, messages or
// tools nested over 256 levels deep) come back as a Status whose message
// names the problem and the template line; nothing throws out of this API.
#pragma once

#include <cstdint>
#include <ctime>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "hearth/status.h"

namespace hearth::chat {

namespace jinja {
struct TemplateAst;
}

// Bounds on one render, so that no template can hang or exhaust memory.
struct TemplateLimits {
    size_t maxOutputBytes = 16u << 20; // the prompt, and any single string built while rendering
    // Statements executed + loop iterations + macro calls + data built (list and dict elements,
    // string bytes / 64).
    int64_t maxOperations = 2'000'000;
    int maxCallDepth = 200;            // nested macro calls
};

struct RenderOptions {
    bool addGenerationPrompt = false;
    // Tool definitions (a JSON list, usually {"type": "function", "function": {...}}), or null
    // for none: the template then sees `tools` = None, as with transformers' tools=None.
    nlohmann::ordered_json tools;
    // More template variables, e.g. {"enable_thinking": false} for Qwen3, {"date_string": ...}.
    nlohmann::ordered_json extraContext = nlohmann::ordered_json::object();
    // Special tokens as strings; unset ones are undefined in the template (as when a tokenizer
    // has no such token).
    std::optional<std::string> bosToken;
    std::optional<std::string> eosToken;
    // The local wall-clock time strftime_now() formats; unset means the system clock. Tests
    // inject a fixed time.
    std::function<std::tm()> clock;
    TemplateLimits limits;
};

class ChatTemplate {
public:
    // Parses the template once; syntax errors, unknown tags/filters/tests fail here.
    static Result<ChatTemplate> parse(std::string_view source);

    // Renders `messages` (a JSON list of {"role", "content", ...}). Use ordered_json so that dict
    // key order (visible through tojson, e.g. tool schemas) is the caller's, as in Python.
    Result<std::string> render(const nlohmann::ordered_json& messages, const RenderOptions& options = {}) const;

    const std::string& source() const { return *m_source; }

private:
    ChatTemplate() = default;
    std::shared_ptr<const std::string> m_source;
    std::shared_ptr<const jinja::TemplateAst> m_ast;
};

// The template text a tokenizer_config.json carries: `chat_template` as a string, or the one named
// "default" when it is a list of {"name", "template"} (several templates per model).
// NotFound when the config has none (the model then runs in plain completion mode).
Result<std::string> chatTemplateFromTokenizerConfig(const nlohmann::ordered_json& config);

} // namespace hearth::chat
