// JSON files with errors naming the file and the byte where parsing failed. nlohmann throws;
// every exception is caught here so none crosses the engine API.
#include "io/json_file.h"

#include "io/mapped_file.h"

namespace hearth::io {
namespace {

// nlohmann's what() reads "[json.exception.parse_error.101] parse error at line 1, column 5:
// syntax error ..."; keep the part after the location, the byte is reported separately.
std::string reason(const char* what) {
    std::string s = what;
    if (auto at = s.find("column "); at != std::string::npos) {
        if (auto colon = s.find(": ", at); colon != std::string::npos) return s.substr(colon + 2);
    }
    if (auto bracket = s.find("] "); bracket != std::string::npos) return s.substr(bracket + 2);
    return s;
}

} // namespace

Result<nlohmann::json> parseJson(const std::string& text, const std::string& nameForErrors) {
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        return dataLoss(nameForErrors + ": invalid JSON at byte " + std::to_string(e.byte) + ": " +
                        reason(e.what()));
    } catch (const std::bad_alloc&) {
        return outOfMemory(nameForErrors + ": out of memory while parsing JSON");
    } catch (const std::exception& e) {
        return dataLoss(nameForErrors + ": invalid JSON: " + e.what());
    }
}

Result<nlohmann::json> readJsonFile(const std::string& path) {
    HEARTH_ASSIGN(const std::string text, readWholeFile(path));
    if (text.empty()) return dataLoss(path + ": invalid JSON at byte 0: the file is empty");
    return parseJson(text, path);
}

} // namespace hearth::io
