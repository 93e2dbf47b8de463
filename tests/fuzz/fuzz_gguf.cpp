// libFuzzer target: GgufFile::parse on arbitrary bytes. A refusal must name the input; an
// accepted file must be fully readable and survive a rewrite through GgufWriter.
#include <cstdint>
#include <string>

#include "io/gguf.h"

using namespace hearth::io;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string name = "fuzz.gguf";
    auto parsed = GgufFile::parse(MappedFile::fromBuffer(name, std::string(reinterpret_cast<const char*>(data), size)));
    if (!parsed.isOk()) {
        if (parsed.status().message().rfind(name + ": ", 0) != 0) __builtin_trap();
        return 0;
    }
    // Touch every tensor byte: ASan reports any pointer outside the buffer.
    volatile uint8_t sink = 0;
    for (const GgufTensorInfo& t : parsed->tensors())
        for (uint64_t i = 0; i < t.bytes; ++i) sink = sink ^ t.data[i];

    GgufWriter writer;
    for (const auto& [key, value] : parsed->metadata()) writer.set(key, value);
    for (const GgufTensorInfo& t : parsed->tensors()) writer.addTensorView(t.name, t.type, t.ne, t.data, t.bytes);
    auto bytes = writer.serialize();
    if (!bytes.isOk()) __builtin_trap(); // whatever the reader accepts, the writer must write
    auto again = GgufFile::parse(MappedFile::fromBuffer(name, *bytes));
    if (!again.isOk() || again->tensors().size() != parsed->tensors().size() ||
        again->metadata().size() != parsed->metadata().size())
        __builtin_trap();
    return 0;
}
