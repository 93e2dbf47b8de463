// Typed reads of one JSON object's optional fields, each failure a 400 naming the field and what
// it accepts ("temperature: expected a number in [0, 2], got \"hot\""). A null field counts as
// absent, as OpenAI's API treats it. Qt-free.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "server/api_error.h"

namespace hearth::server {

using Json = nlohmann::json;
using FieldError = std::optional<ApiError>;

// The field's value, or nullptr when it is absent or null.
const Json* findField(const Json& object, const char* name);

// Short JSON text of a value for messages (long values cut).
std::string jsonExcerpt(const Json& value);

FieldError readBool(const Json& object, const char* name, bool& out);
FieldError readString(const Json& object, const char* name, std::string& out);
// A number in [min, max], or (min, max] when `minExclusive`.
FieldError readNumber(const Json& object, const char* name, double min, double max, bool minExclusive,
                      std::optional<float>& out);
// An integer (no fraction) in [min, max].
FieldError readInteger(const Json& object, const char* name, int64_t min, int64_t max, std::optional<int64_t>& out);

} // namespace hearth::server
