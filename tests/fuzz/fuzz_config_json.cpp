// libFuzzer target: parseJson (config.json and friends) on arbitrary bytes. No exception may
// escape and a refusal must name the input.
#include <cstdint>
#include <string>

#include "io/json_file.h"

using namespace hearth::io;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string name = "config.json";
    auto parsed = parseJson(std::string(reinterpret_cast<const char*>(data), size), name);
    if (!parsed.isOk()) {
        if (parsed.status().message().rfind(name + ": ", 0) != 0) __builtin_trap();
        return 0;
    }
    // Read the fields a loader would, without throwing on wrong types.
    const nlohmann::json& j = *parsed;
    if (j.is_object()) {
        volatile bool seen = j.contains("hidden_size") && j["hidden_size"].is_number_integer();
        (void)seen;
    }
    return 0;
}
