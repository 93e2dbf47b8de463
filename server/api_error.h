// An error as OpenAI's API reports it: an HTTP status and {"error": {"message", "type", "param",
// "code"}}, which every OpenAI client library turns into its own exception. Qt-free.
#pragma once

#include <string>

#include "hearth/status.h"

namespace hearth::server {

struct ApiError {
    int status = 400;
    std::string type = "invalid_request_error"; // "authentication_error", "not_found_error", "server_error", ...
    std::string message;                        // for people: names the field and what it accepts
    std::string param;                          // the request field at fault; empty: null
    std::string code;                           // "context_length_exceeded", "model_not_found", ...; empty: null
};

// A 400 naming the field at fault.
ApiError invalidRequest(std::string message, std::string param = {}, std::string code = {});
// The engine's failure of an accepted request: the caller's mistake (InvalidArgument,
// FailedPrecondition) is a 400, memory a 503 (try again later), anything else a 500.
ApiError fromStatus(const Status& status);

// {"error": {...}} as JSON text.
std::string errorBody(const ApiError& error);

} // namespace hearth::server
