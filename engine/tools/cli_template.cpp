// hearth-cli template: the exact prompt a chat would send for a conversation given as JSON, for
// finding out why a model answers strangely (a template that drops the system prompt, a missing
// generation prompt, thinking left open).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "hearth/chat.h"
#include "tools/cli_args.h"

namespace hearth::cli {
namespace {

Result<std::string> readText(const std::string& path, const char* option) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return notFound(path + ": no such file (" + option + ")");
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in) return invalidArgument(path + ": cannot be read");
    return text.str();
}

// The files as text (key order matters: templates print tool schemas with tojson); a request
// body ({"messages": [...], "tools": [...]}) gives its two lists.
Status readConversation(const std::string& messagesPath, const std::optional<std::string>& toolsPath,
                        PromptRenderParams& params) {
    HEARTH_ASSIGN(params.messagesJson, readText(messagesPath, "--messages"));
    const auto body = nlohmann::ordered_json::parse(params.messagesJson, nullptr, /*allow_exceptions=*/false);
    if (body.is_object() && body.contains("messages")) {
        params.messagesJson = body["messages"].dump();
        if (body.contains("tools") && !body["tools"].is_null()) params.toolsJson = body["tools"].dump();
    }
    if (toolsPath) {
        HEARTH_ASSIGN(params.toolsJson, readText(*toolsPath, "--tools"));
    }
    return Status::ok();
}

} // namespace

int templateCommand(const std::vector<std::string>& argv) {
    auto parsed = Args::parse(argv, {"-m", "--messages", "--tools"}, {"--no-think", "--no-generation-prompt", "--json"},
                              {{"--model", "-m"}});
    if (!parsed.isOk()) return usageError(parsed.status().message());
    const Args& args = parsed.value();
    if (!args.value("-m")) return usageError("template needs -m MODEL");
    if (!args.value("--messages")) return usageError("template needs --messages FILE.json");

    PromptRenderParams params;
    params.enableThinking = !args.has("--no-think");
    params.addGenerationPrompt = !args.has("--no-generation-prompt");
    if (Status s = readConversation(*args.value("--messages"), args.value("--tools"), params); !s.isOk())
        return fail(s);
    auto model = Model::load({.path = *args.value("-m")});
    if (!model.isOk()) return fail(model.status());
    auto rendered = renderChatPrompt(*model.value(), params);
    if (!rendered.isOk()) return fail(rendered.status());
    const RenderedPrompt& r = rendered.value();
    if (!r.hasTemplate)
        warn("this model has no chat template: chats run in plain completion mode, the messages' text joined");
    if (!r.exact)
        warn("the template's output depends on the typed text itself; shown is the safe prompt a chat sends, "
             "which differs from a plain render");

    if (args.has("--json")) {
        const nlohmann::ordered_json out = {
            {"text", r.text}, {"ids", r.ids}, {"has_template", r.hasTemplate}, {"exact", r.exact}};
        std::printf("%s\n", out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    } else {
        std::fwrite(r.text.data(), 1, r.text.size(), stdout); // byte for byte: no newline added
    }
    return 0;
}

} // namespace hearth::cli
