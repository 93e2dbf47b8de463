// libFuzzer target: the real chat templates of tests/data/templates rendered with fuzzed data.
// The input is JSON: a message list, or {"messages", "tools", "extra"}; any value may have any
// type, as a chat request's could. Errors are fine; an exception, a crash, a hang or an output
// past the byte limit is not.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "chat/chat_template.h"

using namespace hearth::chat;
using Json = nlohmann::ordered_json;

namespace {

const std::vector<ChatTemplate>& templates() {
    static const std::vector<ChatTemplate> all = [] {
        std::vector<ChatTemplate> out;
        for (const auto& entry : std::filesystem::directory_iterator(HEARTH_SOURCE_DIR "/tests/data/templates")) {
            if (entry.path().extension() != ".jinja") continue;
            std::ifstream in(entry.path(), std::ios::binary);
            std::stringstream text;
            text << in.rdbuf();
            auto tmpl = ChatTemplate::parse(text.str());
            if (!tmpl.isOk()) __builtin_trap(); // the test data must parse
            out.push_back(std::move(*tmpl));
        }
        if (out.empty()) __builtin_trap();
        return out;
    }();
    return all;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    Json input = Json::parse(reinterpret_cast<const char*>(data), reinterpret_cast<const char*>(data) + size,
                                   nullptr, /*allow_exceptions=*/false);
    if (input.is_discarded()) return 0;
    const bool wrapped = input.is_object();
    const Json none;
    const Json* messages = &input;
    if (wrapped) messages = input.contains("messages") ? &input["messages"] : &none;
    RenderOptions options;
    options.addGenerationPrompt = true;
    options.bosToken = "<s>";
    options.eosToken = "</s>";
    options.clock = [] { return std::tm{}; };
    options.limits = TemplateLimits{.maxOutputBytes = 64 << 10, .maxOperations = 20'000, .maxCallDepth = 20};
    if (wrapped) { // moved, not copied: nlohmann::json's copy recurses per level of nesting
        if (const auto it = input.find("tools"); it != input.end()) options.tools = std::move(*it);
        if (const auto it = input.find("extra"); it != input.end()) options.extraContext = std::move(*it);
    }
    for (const ChatTemplate& tmpl : templates()) {
        auto out = tmpl.render(*messages, options);
        if (out.isOk() ? out->size() > options.limits.maxOutputBytes : out.status().message().empty())
            __builtin_trap();
    }
    return 0;
}
