#include "server/api_error.h"

#include <nlohmann/json.hpp>

namespace hearth::server {

ApiError invalidRequest(std::string message, std::string param, std::string code) {
    return {400, "invalid_request_error", std::move(message), std::move(param), std::move(code)};
}

ApiError fromStatus(const Status& status) {
    switch (status.code()) {
    case StatusCode::InvalidArgument:
    case StatusCode::FailedPrecondition:
    case StatusCode::Unsupported: return invalidRequest(status.message());
    case StatusCode::OutOfMemory: return {503, "server_error", status.message(), {}, "out_of_memory"};
    default: return {500, "server_error", status.message(), {}, {}};
    }
}

std::string errorBody(const ApiError& error) {
    using Json = nlohmann::json;
    const Json body = {{"error",
                        {{"message", error.message},
                         {"type", error.type},
                         {"param", error.param.empty() ? Json(nullptr) : Json(error.param)},
                         {"code", error.code.empty() ? Json(nullptr) : Json(error.code)}}}};
    return body.dump(-1, ' ', false, Json::error_handler_t::replace);
}

} // namespace hearth::server
