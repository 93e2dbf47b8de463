// hearth-cli tokenize: stdin text → ids (as HF encode(text, add_special_tokens=False)), or
// with --decode, ids → text.
#include <cstdio>
#include <iostream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "hearth/tokenizer.h"
#include "tools/cli_args.h"

namespace hearth::cli {

int tokenizeCommand(const std::vector<std::string>& argv) {
    auto parsed = Args::parse(argv, {"-m"}, {"--json", "--decode"}, {{"--model", "-m"}});
    if (!parsed.isOk()) return usageError(parsed.status().message());
    const Args& args = parsed.value();
    if (!args.value("-m")) return usageError("tokenize needs -m MODEL_OR_TOKENIZER");
    auto tokenizer = TextTokenizer::load(*args.value("-m"));
    if (!tokenizer.isOk()) return fail(tokenizer.status());
    const TextTokenizer& tok = *tokenizer.value();
    const std::string input((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());

    if (args.has("--decode")) {
        std::vector<int32_t> ids;
        const auto first = input.find_first_not_of(" \t\r\n");
        if (first != std::string::npos && input[first] == '{') {
            auto j = nlohmann::json::parse(input, nullptr, false);
            if (j.is_discarded() || !j.contains("ids") || !j["ids"].is_array())
                return fail(invalidArgument("stdin: expected {\"ids\":[...]} or a list of ids"));
            for (const auto& v : j["ids"]) {
                if (!v.is_number_integer()) return fail(invalidArgument("stdin: ids must be integers"));
                ids.push_back(v.get<int32_t>());
            }
        } else {
            auto parsedIds = Args::parseIds(input, "stdin");
            if (!parsedIds.isOk()) return fail(parsedIds.status());
            ids = parsedIds.value();
        }
        for (int32_t id : ids)
            if (id < 0 || id >= tok.vocabSize())
                return fail(invalidArgument("token id " + std::to_string(id) + " is outside the vocabulary of " +
                                            std::to_string(tok.vocabSize())));
        const std::string text = tok.decode(ids);
        if (args.has("--json")) {
            std::printf("%s\n", nlohmann::json({{"text", text}}).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
        } else {
            std::fwrite(text.data(), 1, text.size(), stdout);
        }
        return 0;
    }

    const std::vector<int32_t> ids = tok.encode(input, /*addBos=*/false, /*parseSpecial=*/true);
    if (args.has("--json")) {
        std::printf("%s\n", nlohmann::json({{"ids", ids}}).dump().c_str());
    } else {
        for (size_t i = 0; i < ids.size(); ++i) std::printf(i ? " %d" : "%d", ids[i]);
        std::printf("\n");
    }
    return 0;
}

} // namespace hearth::cli
