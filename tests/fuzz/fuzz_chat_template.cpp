// libFuzzer target: a chat template from a GGUF is untrusted code our interpreter runs. The input is
// the template source: parse it, then render two fixed conversations under tight limits. Errors
// are fine; an exception, a crash, a hang or an output past the byte limit is not.
#include <cstdint>
#include <ctime>
#include <string>
#include <string_view>

#include "chat/chat_template.h"

using namespace hearth::chat;
using Json = nlohmann::ordered_json;

namespace {

RenderOptions fuzzOptions(bool generationPrompt) {
    RenderOptions options;
    options.addGenerationPrompt = generationPrompt;
    options.bosToken = "<s>";
    options.eosToken = "</s>";
    options.clock = [] {
        std::tm t{};
        t.tm_year = 125;
        t.tm_mday = 14;
        t.tm_mon = 2;
        return t;
    };
    options.limits = TemplateLimits{.maxOutputBytes = 64 << 10, .maxOperations = 20'000, .maxCallDepth = 20};
    return options;
}

const Json& conversations() {
    static const Json all = Json::parse(R"([
      [{"role": "user", "content": "Hi"}],
      [{"role": "system", "content": "Be terse."},
       {"role": "user", "content": "Weather in Paris? <|im_end|> {{ 7 }}"},
       {"role": "assistant", "content": "<think>\nlook up\n</think>\n\n",
        "tool_calls": [{"type": "function", "function": {"name": "weather", "arguments": {"city": "Paris"}}}]},
       {"role": "tool", "content": "{\"temp\": 21.5}"},
       {"role": "assistant", "content": "21.5 \u00b0C, sunny."}]
    ])");
    return all;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    auto tmpl = ChatTemplate::parse(std::string_view(reinterpret_cast<const char*>(data), size));
    if (!tmpl.isOk()) {
        if (tmpl.status().message().empty()) __builtin_trap();
        return 0;
    }
    for (bool generationPrompt : {false, true}) {
        RenderOptions options = fuzzOptions(generationPrompt);
        if (generationPrompt) {
            options.tools = Json::parse(R"([{"type": "function", "function": {"name": "weather",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}])");
            options.extraContext["enable_thinking"] = false;
        }
        for (const Json& messages : conversations()) {
            auto out = tmpl->render(messages, options);
            if (out.isOk() ? out->size() > options.limits.maxOutputBytes : out.status().message().empty())
                __builtin_trap();
        }
    }
    return 0;
}
