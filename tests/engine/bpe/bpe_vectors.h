// Shared by the byte-level BPE tests: reading the reference vectors (one {"text", "ids"} JSON
// object a line) and checking a tokenizer against them.
#pragma once

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "check.h"
#include "tokenizer/bpe/normalizer.h"
#include "tokenizer/tokenizer.h"

namespace hearth::test {

struct BpeVector {
    std::string text;
    std::vector<int32_t> ids;
};

inline std::vector<BpeVector> readBpeVectors(const std::string& path) {
    std::vector<BpeVector> out;
    std::ifstream in(path);
    std::string line;
    size_t number = 0;
    while (std::getline(in, line)) {
        ++number;
        if (line.empty()) continue;
        const auto j = nlohmann::json::parse(line, nullptr, false);
        CHECK_MSG(!j.is_discarded() && j.contains("text") && j.contains("ids"), path << ":" << number << ": bad record");
        if (j.is_discarded() || !j.contains("text") || !j.contains("ids")) continue;
        out.push_back({j["text"].get<std::string>(), j["ids"].get<std::vector<int32_t>>()});
    }
    CHECK_MSG(!out.empty(), path << ": no records");
    return out;
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
