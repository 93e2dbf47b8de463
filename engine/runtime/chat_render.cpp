// renderChatPrompt: a conversation given as JSON, rendered and tokenized by the same code a
// ChatSession uses, so that what it shows is what a chat would send.
#include <optional>

#include "hearth/chat.h"
#include "runtime/chat_prompt.h"
#include "runtime/model_internal.h"

namespace hearth {
namespace {

using Json = nlohmann::ordered_json;

Result<Json> parseJson(const std::string& text, const char* what) {
    try {
        return Json::parse(text);
    } catch (const Json::exception& e) { // "[json.exception.parse_error.101] parse error at line 1, ..."
        const std::string message = e.what();
        const size_t tag = message.find("] ");
        return invalidArgument(std::string(what) + ": not valid JSON: " +
                               (tag == std::string::npos ? message : message.substr(tag + 2)));
    }
}

// Turns carrying each message as given; the role and a string content are also read out for
// completion mode, which joins the contents.
Result<std::vector<ChatTurn>> turnsFromJson(const Json& messages) {
    if (!messages.is_array()) return invalidArgument("messages: expected a JSON list of messages");
    std::vector<ChatTurn> turns;
    for (size_t i = 0; i < messages.size(); ++i) {
        const Json& m = messages[i];
        const std::string where = "messages[" + std::to_string(i) + "]";
        if (!m.is_object()) return invalidArgument(where + ": expected an object with \"role\" and \"content\"");
        if (!m.contains("role") || !m["role"].is_string()) return invalidArgument(where + ": needs a string \"role\"");
        ChatTurn turn;
        turn.message.role = m["role"].get<std::string>();
        if (m.contains("content") && m["content"].is_string()) turn.message.content = m["content"].get<std::string>();
        turn.given = m;
        turns.push_back(std::move(turn));
    }
    return turns;
}

} // namespace

Result<RenderedPrompt> renderChatPrompt(const Model& model, const PromptRenderParams& params) {
    HEARTH_ASSIGN(const Json messages, parseJson(params.messagesJson, "messages"));
    HEARTH_ASSIGN(const std::vector<ChatTurn> turns, turnsFromJson(messages));
    PromptOptions options{.enableThinking = params.enableThinking, .addGenerationPrompt = params.addGenerationPrompt};
    if (!params.toolsJson.empty()) {
        HEARTH_ASSIGN(options.tools, parseJson(params.toolsJson, "tools"));
        if (!options.tools.is_array()) return invalidArgument("tools: expected a JSON list of tool definitions");
    }
    const bool overridden = !params.chatTemplate.empty();
    const std::string& source = overridden ? params.chatTemplate : loadedModel(model).chatTemplate;
    std::optional<chat::ChatTemplate> tmpl;
    if (!source.empty()) {
        auto parsed = chat::ChatTemplate::parse(source);
        if (!parsed.isOk())
            return parsed.status().withContext(overridden ? "the chat-template override" : model.info().path + ": chat template");
        tmpl = std::move(parsed).value();
    }
    HEARTH_ASSIGN(ChatPrompt prompt, buildChatPrompt(loadedModel(model), tmpl ? &*tmpl : nullptr, turns, options));
    return RenderedPrompt{std::move(prompt.text), std::move(prompt.ids), tmpl.has_value(), prompt.exact};
}

} // namespace hearth
