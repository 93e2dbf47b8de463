// libFuzzer target: SafetensorsModel::parse on arbitrary bytes. A refusal must name the input;
// every tensor of an accepted file must lie inside the buffer.
#include <cstdint>
#include <string>

#include "io/safetensors.h"

using namespace hearth::io;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string name = "fuzz.safetensors";
    auto parsed =
        SafetensorsModel::parse(MappedFile::fromBuffer(name, std::string(reinterpret_cast<const char*>(data), size)));
    if (!parsed.isOk()) {
        if (parsed.status().message().rfind(name + ": ", 0) != 0) __builtin_trap();
        return 0;
    }
    volatile uint8_t sink = 0;
    for (const auto& [tensorName, t] : parsed->tensors())
        for (uint64_t i = 0; i < t.bytes; ++i) sink = sink ^ t.data[i];
    return 0;
}
