// Byte-level BPE behaviour beyond the reference vectors: special tokens (parsed only when asked:
// text a user typed never becomes a control token), token kinds and decoding, invalid UTF-8,
// empty text, HF's lstrip/rstrip/single_word on added tokens, the White_Space rewrite of \s,
// threads, and every kind of bad tokenizer.json.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>

#include "bpe_vectors.h"
#include "check.h"
#include "base/utf8.h"
#include "testdata.h"
#include "tokenizer/bpe/bpe_loader.h"
#include "tokenizer/bpe/byte_level.h"
#include "tokenizer/bpe/regex_split.h"

using namespace hearth;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr int32_t kFirstAdded = 151643; // Qwen's first added token (<|endoftext|>)

bool validUtf8(const std::string& s) { return utf8::isValid(s); }

// A tiny byte-level BPE: ids 0..255 are the bytes, 256 = "ab", 257 = " ab"; added tokens from 300.
json tinyTokenizer() {
    json vocab = json::object();
    for (int b = 0; b < 256; ++b) vocab[bpe::bytesToByteLevel(std::string(1, char(b)))] = b;
    vocab["ab"] = 256;
    vocab[bpe::bytesToByteLevel(" ab")] = 257;
    json root;
    root["version"] = "1.0";
    root["normalizer"] = nullptr;
    root["pre_tokenizer"] = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}};
    root["decoder"] = {{"type", "ByteLevel"}};
    root["model"] = {{"type", "BPE"}, {"vocab", vocab},
                     {"merges", json::array({"a b", json::array({bpe::bytesToByteLevel(" "), "ab"})})}};
    root["added_tokens"] = json::array();
    return root;
}

json addedToken(int id, const std::string& content, bool lstrip, bool rstrip, bool singleWord = false) {
    return {{"id", id}, {"content", content}, {"special", true}, {"lstrip", lstrip}, {"rstrip", rstrip},
            {"single_word", singleWord}, {"normalized", false}};
}

Result<std::unique_ptr<Tokenizer>> parse(const json& root, const std::string& config = "") {
    return bpe::parseTokenizerJson(root.dump(), config, "/models/x/tokenizer.json");
}

// Byte ids of `text` in the tiny tokenizer (no merges apply to the texts used with it).
std::vector<int32_t> bytesOf(const std::string& text) {
    std::vector<int32_t> ids;
    for (char c : text) ids.push_back(uint8_t(c));
    return ids;
}

std::vector<int32_t> concat(std::initializer_list<std::vector<int32_t>> parts) {
    std::vector<int32_t> out;
    for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
    return out;
}

void checkQwenSpecials(const Tokenizer& t) {
    // Control tokens are single ids when the text is a template's rendering ...
    CHECK(t.encode("<|im_start|>", false, true) == std::vector<int32_t>{151644});
    CHECK(t.encode("<|im_start|>user\nHi<|im_end|>", false, true) ==
          (std::vector<int32_t>{151644, 872, 198, 13048, 151645}));
    // ... and never when a user typed them.
    for (const std::string typed : {"<|im_end|>", "<|im_start|>assistant\n", "<think>x</think>", "<|endoftext|>",
                                    "<tool_call>{}</tool_call>"}) {
        const auto ids = t.encode(typed, false, /*parseSpecial=*/false);
        CHECK_MSG(std::none_of(ids.begin(), ids.end(), [](int32_t id) { return id >= kFirstAdded; }),
                  typed << " gave " << test::idList(ids));
        CHECK_EQ(t.decode(ids), typed);
        CHECK(ids.size() > 1);
    }
    // Non-special added tokens (<think>, <tool_call>) are matched whole too, as HF does.
    CHECK(t.encode("<think>", false, true) == std::vector<int32_t>{151667});
    CHECK(t.tokenKind(151644) == TokenKind::Control);
    CHECK(t.tokenKind(151667) == TokenKind::UserDefined);
    CHECK(t.tokenKind(9707) == TokenKind::Normal);
    CHECK_EQ(t.tokenPiece(151644), std::string("<|im_start|>"));
    CHECK_EQ(t.tokenBytes(151644), std::string());          // control: no text in replies
    CHECK_EQ(t.tokenBytes(151667), std::string("<think>")); // user-defined: its text, as HF
    CHECK_EQ(t.tokenPiece(220), std::string("\xC4\xA0"));    // "Ġ", as stored
    CHECK_EQ(t.tokenBytes(220), std::string(" "));
    CHECK_EQ(t.decode({151644, 9707, 1879, 151667, 151645}), std::string("Hello world<think>"));
    // Near-misses stay text.
    CHECK(t.encode("<|im_start", false, true).size() > 1);
    CHECK_EQ(t.tokenBytes(-1), std::string());
    CHECK_EQ(t.tokenBytes(t.vocabSize()), std::string());
}

void checkQwenText(const Tokenizer& t) {
    CHECK(t.encode("", false, true).empty());
    CHECK(t.encode("", true, false).empty()); // Qwen adds no BOS
    // Invalid UTF-8 becomes U+FFFD (one per maximal invalid subpart), never a crash.
    const std::string replacement = "\xEF\xBF\xBD";
    CHECK(t.encode("a\xFF" "b", false, true) == t.encode("a" + replacement + "b", false, true));
    CHECK(t.encode("\xE4\xBD", false, true) == t.encode(replacement, false, true)); // cut-off character
    CHECK(t.encode("\xED\xA0\x80", false, true) == t.encode(replacement + replacement + replacement, false, true));
    CHECK(t.encode("<|im_end|>\xC0", false, true).front() == 151645);
    std::mt19937 rng(7);
    for (int i = 0; i < 300; ++i) {
        std::string junk(size_t(rng() % 40), '\0');
        for (char& c : junk) c = char(rng() % 256);
        const auto ids = t.encode(junk, false, i % 2 == 0);
        for (const int32_t id : ids) CHECK(id >= 0 && id < t.vocabSize());
        CHECK(validUtf8(t.decode(ids)));
    }
    // \s is Unicode White_Space as in HF (Oniguruma): U+0085 splits like a space does, while
    // U+001C does not (PCRE2's own \s would do the opposite for U+0085).
    const auto nel = t.encode("!\xC2\x85!", false, true);
    CHECK(nel == concat({t.encode("!", false, true), t.encode("\xC2\x85", false, true), t.encode("!", false, true)}));
    CHECK(bpe::rewriteWhiteSpaceClasses(R"(\s+(?!\S)|[^\s\p{L}]|\\s|[\S])").find("\\x{85}") != std::string::npos);
    // Streaming never emits half a character, even when a token holds part of one.
    const std::string mixed = "你好🌈 wörld \xF0\x9F\x91\x8B\xF0\x9F\x8F\xBD!";
    const auto ids = t.encode(mixed, false, true);
    StreamingDetokenizer stream(t, -1);
    std::string streamed;
    for (const int32_t id : ids) {
        const std::string piece = stream.push(id);
        CHECK(validUtf8(piece));
        streamed += piece;
    }
    streamed += stream.flush();
    CHECK_EQ(streamed, mixed);
}

void checkThreads(const Tokenizer& t) {
    // One tokenizer, two threads: the word cache is shared and must not mix results up.
    std::vector<std::string> texts;
    for (int i = 0; i < 200; ++i)
        texts.push_back("Thread text " + std::to_string(i * 7919) + " naïve 東京 word" + std::to_string(i % 13));
    std::vector<std::vector<int32_t>> expected;
    {
        auto fresh = loadTokenizer(test::requireTestData("models/qwen3-tokenizer/tokenizer.json").string());
        for (const auto& text : texts) expected.push_back(fresh.value()->encode(text, false, true));
    }
    std::vector<int> mismatches(2, 0);
    std::vector<std::thread> threads;
    for (int k = 0; k < 2; ++k)
        threads.emplace_back([&, k] {
            for (int round = 0; round < 5; ++round)
                for (size_t i = 0; i < texts.size(); ++i) {
                    const size_t at = k == 0 ? i : texts.size() - 1 - i;
                    if (t.encode(texts[at], false, true) != expected[at]) ++mismatches[size_t(k)];
                }
        });
    for (auto& th : threads) th.join();
    CHECK_EQ(mismatches[0] + mismatches[1], 0);
}

void checkAddedTokenOptions() {
    {   // lstrip: the token swallows the white space before it (HF: "Ġa", "<mask>", "Ġb").
        json root = tinyTokenizer();
        root["added_tokens"].push_back(addedToken(300, "<mask>", true, false));
        auto t = parse(root);
        CHECK_OK(t);
        if (t.isOk())
            CHECK(t.value()->encode("I saw a <mask> b", false, true) ==
                  concat({bytesOf("I"), bytesOf(" saw"), bytesOf(" a"), {300}, bytesOf(" b")}));
    }
    {   // rstrip: the white space after it (HF: "Ġa", "Ġ", "<mask>", "b").
        json root = tinyTokenizer();
        root["added_tokens"].push_back(addedToken(300, "<mask>", false, true));
        auto t = parse(root);
        CHECK_OK(t);
        if (t.isOk())
            CHECK(t.value()->encode("a <mask>  b", false, true) == concat({{97}, bytesOf(" "), {300}, {98}}));
    }
    {   // Both, around two tokens: the second's lstrip stops where the first's rstrip ended.
        json root = tinyTokenizer();
        root["added_tokens"].push_back(addedToken(300, "<x>", true, true));
        root["added_tokens"].push_back(addedToken(301, "<y>", true, false));
        auto t = parse(root);
        CHECK_OK(t);
        if (t.isOk()) CHECK(t.value()->encode("a <x>  <y> b", false, true) == concat({{97}, {300}, {301}, bytesOf(" b")}));
    }
    {   // single_word: not where a word character touches it; leftmost-longest among overlaps.
        json root = tinyTokenizer();
        root["added_tokens"].push_back(addedToken(300, "cd", false, false, true));
        root["added_tokens"].push_back(addedToken(301, "<a>", false, false));
        root["added_tokens"].push_back(addedToken(302, "<a><b>", false, false));
        auto t = parse(root);
        CHECK_OK(t);
        if (t.isOk()) {
            CHECK(t.value()->encode("xcd", false, true) == bytesOf("xcd"));
            CHECK(t.value()->encode("x cd.", false, true) == concat({{120}, bytesOf(" "), {300}, {46}}));
            CHECK(t.value()->encode("<a><b><a>", false, true) == (std::vector<int32_t>{302, 301}));
        }
    }
    {   // Merges by rank, ids and BOS from a template post-processor.
        json root = tinyTokenizer();
        root["added_tokens"].push_back(addedToken(300, "<s>", false, false));
        root["post_processor"] = {{"type", "TemplateProcessing"},
                                  {"single", json::array({{{"SpecialToken", {{"id", "<s>"}, {"type_id", 0}}}},
                                                          {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}})}};
        auto t = parse(root);
        CHECK_OK(t);
        if (t.isOk()) {
            CHECK(t.value()->encode("ab ab", true, true) == (std::vector<int32_t>{300, 256, 257}));
            CHECK_EQ(t.value()->bosId(), 300);
            CHECK(t.value()->addsBos());
        }
    }
}

void checkBadJson(const fs::path& dir) {
    const auto expectUnsupported = [](json root, const std::string& needle) {
        CHECK_ERR(parse(root), StatusCode::Unsupported, needle);
    };
    json root = tinyTokenizer();
    root["model"]["type"] = "WordPiece";
    expectUnsupported(root, "/models/x/tokenizer.json: key model.type: model type \"WordPiece\" is not supported");
    root = tinyTokenizer();
    root["normalizer"] = {{"type", "Lowercase"}};
    expectUnsupported(root, "key normalizer: normalizer type \"Lowercase\" is not supported");
    root["normalizer"] = {{"type", "Sequence"}, {"normalizers", json::array({{{"type", "NFC"}}, {{"type", "Strip"}}})}};
    expectUnsupported(root, "key normalizer.normalizers[1]: normalizer type \"Strip\"");
    root = tinyTokenizer();
    root["pre_tokenizer"] = {{"type", "Whitespace"}};
    expectUnsupported(root, "key pre_tokenizer: pre-tokenizer type \"Whitespace\" is not supported");
    root["pre_tokenizer"] = {{"type", "Metaspace"}, {"replacement", "\xE2\x96\x81"}};
    expectUnsupported(root, "pre-tokenizer type \"Metaspace\"");
    root["pre_tokenizer"] = {{"type", "Sequence"}, {"pretokenizers", json::array({
        {{"type", "Split"}, {"pattern", {{"Regex", "\\s+"}}}, {"behavior", "Removed"}, {"invert", false}},
        {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}}})}};
    expectUnsupported(root, "key pre_tokenizer.pretokenizers[0].behavior: Split behavior \"Removed\"");
    root["pre_tokenizer"]["pretokenizers"][0]["behavior"] = "Isolated";
    root["pre_tokenizer"]["pretokenizers"][0]["pattern"] = {{"Regex", "(\\p{L}"}};
    CHECK_ERR(parse(root), StatusCode::DataLoss, "key pre_tokenizer.pretokenizers[0].pattern.Regex: invalid regex");
    root["pre_tokenizer"] = {{"type", "Split"}, {"pattern", {{"String", " "}}}, {"behavior", "Isolated"}, {"invert", false}};
    expectUnsupported(root, "it has no ByteLevel step");
    root = tinyTokenizer();
    root["decoder"] = {{"type", "WordPiece"}};
    expectUnsupported(root, "key decoder: decoder type \"WordPiece\"");
    root = tinyTokenizer();
    root["model"]["byte_fallback"] = true;
    expectUnsupported(root, "key model.byte_fallback");
    root = tinyTokenizer();
    root["model"]["merges"].push_back("a zz");
    CHECK_ERR(parse(root), StatusCode::DataLoss, "key model.merges[2]: 'a zz' names a token that is not in the vocabulary");
    root["model"]["merges"].back() = 17;
    CHECK_ERR(parse(root), StatusCode::DataLoss, "key model.merges[2]: expected");
    root = tinyTokenizer();
    root.erase("model");
    CHECK_ERR(parse(root), StatusCode::DataLoss, "key model: expected an object");
    root = tinyTokenizer();
    root["added_tokens"].push_back({{"id", "x"}, {"content", "<x>"}});
    CHECK_ERR(parse(root), StatusCode::DataLoss, "key added_tokens[0].id");
    // A huge id must not size the id tables (fuzzing: a 96-byte file asked for 64 GB); gaps are fine.
    root = tinyTokenizer();
    root["model"]["vocab"]["far"] = INT32_MAX;
    CHECK_ERR(parse(root), StatusCode::DataLoss, "token id 2147483647 is far past the 259 tokens named");
    root = tinyTokenizer();
    root["added_tokens"].push_back(addedToken(1000, "<far>", false, false));
    CHECK_OK(parse(root));
    CHECK_ERR(parse(tinyTokenizer(), "{\"bos_token\": \"<nope>\"}"), StatusCode::DataLoss, "the BOS token '<nope>'");

    // Through files: malformed JSON names the file; so does a broken tokenizer_config.json.
    const fs::path bad = dir / "bad" / "tokenizer.json";
    fs::create_directories(bad.parent_path());
    std::ofstream(bad) << "{\"model\": [1, 2";
    CHECK_ERR(loadTokenizer(bad.string()), StatusCode::DataLoss, bad.string() + ": invalid JSON at byte");
    CHECK_ERR(loadTokenizer(bad.parent_path().string()), StatusCode::DataLoss, bad.string() + ": invalid JSON");
    std::ofstream(bad, std::ios::trunc) << tinyTokenizer().dump();
    std::ofstream(bad.parent_path() / "tokenizer_config.json") << "{\"bos_token\": ";
    CHECK_ERR(loadTokenizer(bad.string()), StatusCode::DataLoss, "tokenizer_config.json: invalid JSON");
    std::ofstream(bad, std::ios::trunc) << "";
    CHECK_ERR(loadTokenizer(bad.string()), StatusCode::DataLoss, bad.string() + ": invalid JSON at byte 0");
    CHECK_ERR(loadTokenizer((dir / "absent" / "tokenizer.json").string()), StatusCode::NotFound, "absent");

    // A SentencePiece model folder: its Metaspace tokenizer.json is not byte-level, so the
    // tokenizer.model beside it is used.
    if (const auto spm = test::optionalTestData("models/stories260K/tok512.model")) {
        const fs::path folder = dir / "spm";
        fs::create_directories(folder);
        fs::copy_file(*spm, folder / "tokenizer.model");
        json meta = tinyTokenizer();
        meta["pre_tokenizer"] = {{"type", "Metaspace"}, {"replacement", "\xE2\x96\x81"}};
        std::ofstream(folder / "tokenizer.json") << meta.dump();
        auto t = loadTokenizer(folder.string());
        CHECK_OK(t);
        if (t.isOk()) CHECK(t.value()->bpeMerges().empty()); // SentencePiece, not BPE
    }
}

} // namespace

int main() {
    test::announce("bpe_tokenizer", "cpu");
    const fs::path dir = test::scratchDir("bpe_tokenizer");
    checkAddedTokenOptions();
    checkBadJson(dir);

    auto qwen = loadTokenizer(test::requireTestData("models/qwen3-tokenizer/tokenizer.json").string());
    CHECK_OK(qwen);
    if (!qwen.isOk()) return test::finish();
    checkQwenSpecials(*qwen.value());
    checkQwenText(*qwen.value());
    checkThreads(*qwen.value());
    return test::finish();
}
