// The "messages" of a chat request: roles, text content (a string or a list of text parts), an
// assistant's earlier thinking (reasoning_content), and the order ChatSession needs.
#include "server/request_messages.h"

namespace hearth::server {
namespace {

FieldError readContent(const Json& message, const std::string& where, std::string& out) {
    const Json* content = findField(message, "content");
    if (!content) return {};
    if (content->is_string()) {
        out = content->get<std::string>();
        return {};
    }
    if (!content->is_array())
        return invalidRequest(where + ".content: expected a string or a list of text parts, got " + jsonExcerpt(*content),
                              "messages");
    for (size_t j = 0; j < content->size(); ++j) {
        const Json& part = (*content)[j];
        const std::string at = where + ".content[" + std::to_string(j) + "]";
        if (!part.is_object() || !part.contains("type") || !part["type"].is_string())
            return invalidRequest(at + ": expected {\"type\": \"text\", \"text\": ...}", "messages");
        if (part["type"] != "text")
            return invalidRequest(at + ": only text parts are supported, not " + jsonExcerpt(part["type"]), "messages");
        if (!part.contains("text") || !part["text"].is_string())
            return invalidRequest(at + ".text: expected a string", "messages");
        if (!out.empty()) out += "\n";
        out += part["text"].get<std::string>();
    }
    return {};
}

FieldError readMessage(const Json& message, size_t index, ChatMessage& out) {
    const std::string where = "messages[" + std::to_string(index) + "]";
    if (!message.is_object()) return invalidRequest(where + ": expected an object with \"role\" and \"content\"", "messages");
    const Json* role = findField(message, "role");
    if (!role || !role->is_string()) return invalidRequest(where + ".role: expected a string", "messages");
    out.role = role->get<std::string>();
    if (out.role == "developer") out.role = "system"; // OpenAI's newer name for it
    if (out.role != "system" && out.role != "user" && out.role != "assistant" && out.role != "tool")
        return invalidRequest(where + ".role: expected system, developer, user, assistant or tool, got " +
                                  jsonExcerpt(*role),
                              "messages");
    if (auto e = readContent(message, where, out.content)) return e;
    if (const Json* calls = findField(message, "tool_calls"); calls && !(calls->is_array() && calls->empty()))
        return invalidRequest(where + ".tool_calls: tool calls are not supported", "messages");
    if (out.role == "assistant") {
        for (const char* name : {"reasoning_content", "reasoning"})
            if (auto e = readString(message, name, out.reasoning))
                return invalidRequest(where + "." + e->message, "messages");
    }
    if (out.role == "system" && index > 0)
        return invalidRequest(where + ": a system message must come first, and only once", "messages");
    return {};
}

} // namespace

FieldError readMessages(const Json& body, std::vector<ChatMessage>& out) {
    const Json* messages = findField(body, "messages");
    if (!messages) return invalidRequest("messages: required, a list of {\"role\", \"content\"}", "messages");
    if (!messages->is_array()) return invalidRequest("messages: expected a list, got " + jsonExcerpt(*messages), "messages");
    if (messages->empty()) return invalidRequest("messages: the list is empty; send at least the user's message", "messages");
    out.clear();
    for (size_t i = 0; i < messages->size(); ++i) {
        ChatMessage message;
        if (auto e = readMessage((*messages)[i], i, message)) return e;
        out.push_back(std::move(message));
    }
    if (out.back().role != "user")
        return invalidRequest("messages: the last message must be the user's, not " + out.back().role + "'s", "messages");
    if (out.back().content.empty())
        return invalidRequest("messages[" + std::to_string(out.size() - 1) + "].content: the user's message is empty",
                              "messages");
    return {};
}

} // namespace hearth::server
