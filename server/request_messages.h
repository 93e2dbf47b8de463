// The "messages" field of a chat completion request. Qt-free.
#pragma once

#include <vector>

#include "hearth/chat.h"
#include "server/json_fields.h"

namespace hearth::server {

// Reads body["messages"]: a non-empty list of {"role", "content"} where content is a string, null
// or a list of {"type": "text", "text"} parts (joined by newlines); "developer" is read as
// "system", which may only come first; an assistant's "reasoning_content" is kept. The last
// message must be the user's and not empty. Tool calls and non-text parts are refused.
FieldError readMessages(const Json& body, std::vector<ChatMessage>& out);

} // namespace hearth::server
