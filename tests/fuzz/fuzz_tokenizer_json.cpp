// libFuzzer target: a Hugging Face tokenizer.json (byte-level BPE) from arbitrary bytes. The input
// is up to three parts split at NUL bytes (JSON holds no raw NUL): tokenizer.json, a text to
// encode, tokenizer_config.json. A refusal must name the file; an accepted tokenizer must encode
// that text and a few fixed ones to ids inside its vocabulary, and decode them, without crashing.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/bpe/bpe_loader.h"

using namespace hearth;

namespace {

std::string_view nextPart(std::string_view& rest) {
    const size_t nul = rest.find('\0');
    const std::string_view part = rest.substr(0, nul);
    rest = nul == std::string_view::npos ? std::string_view() : rest.substr(nul + 1);
    return part;
}

void exercise(const Tokenizer& tokenizer, std::string_view text) {
    for (bool special : {false, true}) {
        const std::vector<int32_t> ids = tokenizer.encode(text, /*addBos=*/special, special);
        for (int32_t id : ids)
            if (id < 0 || id >= tokenizer.vocabSize()) __builtin_trap();
        volatile size_t sink = tokenizer.decode(ids).size();
        (void)sink;
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view rest(reinterpret_cast<const char*>(data), size);
    const std::string json(nextPart(rest));
    const std::string_view text = nextPart(rest);
    const std::string config(nextPart(rest));
    const std::string name = "fuzz/tokenizer.json";
    auto tokenizer = bpe::parseTokenizerJson(json, config, name);
    if (!tokenizer.isOk()) {
        const std::string& message = tokenizer.status().message();
        if (message.rfind(name + ": ", 0) != 0 && message.rfind("fuzz/tokenizer_config.json: ", 0) != 0)
            __builtin_trap();
        return 0;
    }
    const Tokenizer& t = **tokenizer;
    exercise(t, text);
    exercise(t, "Hello world, it's 2025!  \n\t caf\xc3\xa9 \xe4\xb8\xad\xe6\x96\x87 \xf0\x9f\x98\x80");
    exercise(t, "\xff\xfe bad \xc3 utf-8 \xed\xa0\x80");
    exercise(t, "<|im_start|>user\n<s></s><|endoftext|>");
    return 0;
}
