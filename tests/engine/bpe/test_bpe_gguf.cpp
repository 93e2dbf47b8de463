// Byte-level BPE from GGUF: the Qwen3 vocabulary converted to GGUF form here (tokens in
// byte-level form by id, token types, merges by rank, pre "qwen2", written to a scratch file,
// never committed) must encode exactly as its tokenizer.json does: the reference vectors and a
// few hundred more strings cut from them. Also the GGUF-specific errors.
#include <algorithm>
#include <cstdlib>
#include <random>

#include <nlohmann/json.hpp>

#include "bpe_vectors.h"
#include "check.h"
#include "io/gguf.h"
#include "testdata.h"

using namespace hearth;
namespace fs = std::filesystem;

namespace {

// The GGUF keys llama.cpp's converter writes for a "gpt2" vocabulary, from the raw JSON (not
// through Hearth's loader, so that the two paths are independent).
io::GgufWriter ggufFromTokenizerJson(const nlohmann::json& root) {
    const auto& vocab = root["model"]["vocab"];
    int64_t size = 0;
    for (const auto& [piece, id] : vocab.items()) size = std::max<int64_t>(size, id.get<int64_t>() + 1);
    for (const auto& a : root["added_tokens"]) size = std::max<int64_t>(size, a["id"].get<int64_t>() + 1);
    std::vector<std::string> tokens(static_cast<size_t>(size));
    std::vector<int32_t> types(size_t(size), 5); // unused until filled
    for (const auto& [piece, id] : vocab.items()) {
        tokens[size_t(id.get<int64_t>())] = piece;
        types[size_t(id.get<int64_t>())] = 1;
    }
    for (const auto& a : root["added_tokens"]) {
        tokens[size_t(a["id"].get<int64_t>())] = a["content"].get<std::string>();
        types[size_t(a["id"].get<int64_t>())] = a["special"].get<bool>() ? 3 : 4;
    }
    std::vector<std::string> merges;
    for (const auto& m : root["model"]["merges"])
        merges.push_back(m.is_string() ? m.get<std::string>() : m[0].get<std::string>() + " " + m[1].get<std::string>());
    io::GgufWriter w;
    w.set("general.architecture", io::GgufValue::string("qwen3"));
    w.set("tokenizer.ggml.model", io::GgufValue::string("gpt2"));
    w.set("tokenizer.ggml.pre", io::GgufValue::string("qwen2"));
    w.set("tokenizer.ggml.tokens", io::GgufValue::stringArray(tokens));
    w.set("tokenizer.ggml.token_type", io::GgufValue::i32Array(types));
    w.set("tokenizer.ggml.merges", io::GgufValue::stringArray(merges));
    w.set("tokenizer.ggml.bos_token_id", io::GgufValue::u32(151643));
    w.set("tokenizer.ggml.eos_token_id", io::GgufValue::u32(151645));
    w.set("tokenizer.ggml.add_bos_token", io::GgufValue::boolean(false));
    return w;
}

Result<std::unique_ptr<Tokenizer>> loadGguf(const io::GgufWriter& w, const fs::path& path) {
    HEARTH_TRY(w.write(path.string()));
    HEARTH_ASSIGN(const io::GgufFile file, io::GgufFile::open(path.string()));
    return loadTokenizerFromGguf(file);
}

// Strings cut from the vectors at random character boundaries and joined: new combinations of
// scripts, spaces, digits and special tokens.
std::vector<std::string> moreStrings(const std::vector<test::BpeVector>& records, size_t count) {
    std::mt19937 rng(1234);
    std::vector<std::string> out;
    const auto boundary = [](const std::string& s, size_t pos) {
        while (pos < s.size() && (uint8_t(s[pos]) & 0xC0) == 0x80) ++pos;
        return pos;
    };
    while (out.size() < count) {
        std::string text;
        const int parts = 1 + int(rng() % 4);
        for (int p = 0; p < parts; ++p) {
            const std::string& s = records[rng() % records.size()].text;
            if (s.empty()) continue;
            const size_t a = boundary(s, rng() % s.size());
            const size_t b = boundary(s, a + rng() % (s.size() - a + 1));
            text += s.substr(a, b - a);
        }
        out.push_back(text);
    }
    return out;
}

} // namespace

int main() {
    test::announce("bpe_gguf", "cpu");
    const auto jsonPath = test::requireTestData("models/qwen3-tokenizer/tokenizer.json");
    const auto vectors = test::requireTestData("models/qwen3-tokenizer/vectors_public.jsonl");
    const fs::path dir = test::scratchDir("bpe_gguf");

    const auto root = nlohmann::json::parse(test::readTextFile(jsonPath));
    auto fromJson = loadTokenizer(jsonPath.string());
    auto fromGguf = loadGguf(ggufFromTokenizerJson(root), dir / "qwen3-vocab.gguf");
    CHECK_OK(fromJson);
    CHECK_OK(fromGguf);
    if (!fromJson.isOk() || !fromGguf.isOk()) return test::finish();
    const Tokenizer& j = *fromJson.value();
    const Tokenizer& g = *fromGguf.value();

    CHECK_EQ(g.vocabSize(), j.vocabSize());
    CHECK_EQ(g.eosId(), 151645);
    CHECK(!g.addsBos());
    CHECK_EQ(g.bpePreTokenizerName(), std::string("qwen2"));
    for (int32_t id : {0, 220, 9707, 151643, 151644, 151667}) {
        CHECK_EQ(g.tokenPiece(id), j.tokenPiece(id));
        CHECK_EQ(g.tokenBytes(id), j.tokenBytes(id));
        CHECK(g.tokenKind(id) == j.tokenKind(id));
    }
    // The export accessor gives back the file's merges exactly.
    const std::vector<std::string> merges = j.bpeMerges();
    CHECK_EQ(merges.size(), root["model"]["merges"].size());
    if (!merges.empty()) {
        const auto& m0 = root["model"]["merges"][0];
        CHECK_EQ(merges[0], m0.is_string() ? m0.get<std::string>() : m0[0].get<std::string>() + " " + m0[1].get<std::string>());
    }

    const auto records = test::readBpeVectors(vectors.string(), test::kQwen3VectorCount);
    const size_t matched = test::checkBpeVectors(g, records, /*applyNfc=*/true, "qwen3 via GGUF");
    CHECK_EQ(matched, records.size());
    size_t same = 0;
    const auto extra = moreStrings(records, 400);
    for (const std::string& text : extra) {
        const auto a = j.encode(text, false, true);
        const auto b = g.encode(text, false, true);
        if (a == b) ++same;
        else CHECK_MSG(false, nlohmann::json(text).dump() << ": json " << test::idList(a) << ", gguf " << test::idList(b));
    }
    std::printf("qwen3 tokenizer.json vs GGUF: %zu/%zu more strings identical\n", same, extra.size());

    // GGUF errors name the file and key.
    {
        auto w = ggufFromTokenizerJson(root);
        w.set("tokenizer.ggml.pre", io::GgufValue::string("deepseek-llm"));
        CHECK_ERR(loadGguf(w, dir / "pre.gguf"), StatusCode::Unsupported,
                  "pre.gguf: key tokenizer.ggml.pre: pre-tokenizer \"deepseek-llm\" is not supported");
    }
    {
        io::GgufWriter w;
        w.set("tokenizer.ggml.model", io::GgufValue::string("gpt2"));
        w.set("tokenizer.ggml.pre", io::GgufValue::string("qwen2"));
        w.set("tokenizer.ggml.tokens", io::GgufValue::stringArray({"a", "b", "ab"}));
        CHECK_ERR(loadGguf(w, dir / "nomerges.gguf"), StatusCode::DataLoss,
                  "nomerges.gguf: key tokenizer.ggml.merges is missing");
        w.set("tokenizer.ggml.merges", io::GgufValue::stringArray({"a b", "a c"}));
        CHECK_ERR(loadGguf(w, dir / "badmerge.gguf"), StatusCode::DataLoss,
                  "badmerge.gguf: key tokenizer.ggml.merges[1]: 'a c' names a token that is not in the vocabulary");
        w.set("tokenizer.ggml.merges", io::GgufValue::stringArray({"ab"}));
        CHECK_ERR(loadGguf(w, dir / "badmerge2.gguf"), StatusCode::DataLoss,
                  "key tokenizer.ggml.merges: entry 0 is not two tokens");
        w.set("tokenizer.ggml.merges", io::GgufValue::stringArray({"a b"}));
        w.set("tokenizer.ggml.token_type", io::GgufValue::i32Array({1, 1}));
        CHECK_ERR(loadGguf(w, dir / "types.gguf"), StatusCode::DataLoss, "key tokenizer.ggml.token_type: has 2 entries");
        w.set("tokenizer.ggml.token_type", io::GgufValue::i32Array({1, 1, 1}));
        auto tiny = loadGguf(w, dir / "tiny.gguf");
        CHECK_OK(tiny);
        if (tiny.isOk()) CHECK(tiny.value()->encode("abba", false, true) == (std::vector<int32_t>{2, 1, 0}));
    }

    // Llama 3 through GGUF too, when its tokenizer.json can be had (see test_bpe_llama3).
    const auto llamaVectors = test::optionalTestData("models/llama3-tokenizer/vectors_public.jsonl");
    const auto llama3 = llamaVectors ? test::fetchLlama3Tokenizer() : std::nullopt;
    if (llamaVectors && llama3) {
        const auto llamaRoot = nlohmann::json::parse(test::readTextFile(*llama3));
        auto w = ggufFromTokenizerJson(llamaRoot);
        w.set("tokenizer.ggml.pre", io::GgufValue::string("llama-bpe"));
        w.set("tokenizer.ggml.bos_token_id", io::GgufValue::u32(128000));
        w.set("tokenizer.ggml.eos_token_id", io::GgufValue::u32(128001));
        w.set("tokenizer.ggml.add_bos_token", io::GgufValue::boolean(true));
        auto l = loadGguf(w, dir / "llama3-vocab.gguf");
        CHECK_OK(l);
        if (l.isOk()) {
            CHECK(l.value()->addsBos());
            const auto records3 = test::readBpeVectors(llamaVectors->string(), test::kLlama3VectorCount);
            CHECK_EQ(test::checkBpeVectors(*l.value(), records3, false, "llama3 via GGUF"), records3.size());
        }
    } else {
        std::printf("llama3 via GGUF: not checked (see above)\n");
    }
    return test::finish();
}
