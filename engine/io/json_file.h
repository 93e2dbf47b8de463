// Reading JSON files (config.json, generation_config.json, tokenizer_config.json) with errors
// that name the file and, for parse errors, the byte position.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "hearth/status.h"

namespace hearth::io {

// NotFound if missing; DataLoss if not valid JSON ("config.json: invalid JSON at byte 17: ...").
Result<nlohmann::json> readJsonFile(const std::string& path);
// Parses text that came from `nameForErrors`.
Result<nlohmann::json> parseJson(const std::string& text, const std::string& nameForErrors);

} // namespace hearth::io
