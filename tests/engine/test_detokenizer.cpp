// Streaming detokenization: characters split across byte tokens are held until complete,
// invalid bytes become U+FFFD, nothing emitted is ever broken UTF-8, and the stream
// concatenates to decode().
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "check.h"
#include "io/gguf.h"
#include "io/mapped_file.h"
#include "testdata.h"
#include "tokenizer/tokenizer.h"

using namespace hearth;

namespace {

const std::string kFffd = "\xEF\xBF\xBD";

// A vocabulary with every byte: <unk> <s> </s>, <0x00>..<0xFF> (byte b is id b + 3), then a few
// pieces.
constexpr int32_t kSpace = 259, kOnce = 260, kEAcute = 261, kA = 262, kUpon = 263;
int32_t byteId(int b) { return b + 3; }

std::unique_ptr<Tokenizer> makeTokenizer(bool spacePrefix) {
    std::vector<std::string> tokens = {"<unk>", "<s>", "</s>"};
    std::vector<int32_t> types = {2, 3, 3};
    for (int b = 0; b < 256; ++b) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", b);
        tokens.push_back(name);
        types.push_back(6);
    }
    for (const char* piece : {"▁", "▁Once", "é", "a", "▁upon"}) {
        tokens.push_back(piece);
        types.push_back(1);
    }
    std::vector<float> scores(tokens.size());
    for (size_t i = 0; i < scores.size(); ++i) scores[i] = -float(i);

    io::GgufWriter w;
    w.set("tokenizer.ggml.model", io::GgufValue::string("llama"));
    w.set("tokenizer.ggml.tokens", io::GgufValue::stringArray(tokens));
    w.set("tokenizer.ggml.scores", io::GgufValue::f32Array(scores));
    w.set("tokenizer.ggml.token_type", io::GgufValue::i32Array(types));
    w.set("tokenizer.ggml.add_space_prefix", io::GgufValue::boolean(spacePrefix));
    auto bytes = w.serialize();
    CHECK_OK(bytes);
    if (!bytes.isOk()) return nullptr;
    auto file = io::GgufFile::parse(io::MappedFile::fromBuffer("bytes.gguf", *bytes));
    CHECK_OK(file);
    if (!file.isOk()) return nullptr;
    auto t = loadTokenizerFromGguf(*file);
    CHECK_OK(t);
    if (!t.isOk()) return nullptr;
    return std::move(t).value();
}

// An independent strict UTF-8 check (Unicode Table 3-7).
bool isValidUtf8(const std::string& s) {
    size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        int n = 0;
        unsigned lo = 0x80, hi = 0xBF;
        if (c < 0x80) { ++i; continue; }
        if (c >= 0xC2 && c <= 0xDF) n = 1;
        else if (c == 0xE0) { n = 2; lo = 0xA0; }
        else if (c >= 0xE1 && c <= 0xEC) n = 2;
        else if (c == 0xED) { n = 2; hi = 0x9F; }
        else if (c >= 0xEE && c <= 0xEF) n = 2;
        else if (c == 0xF0) { n = 3; lo = 0x90; }
        else if (c >= 0xF1 && c <= 0xF3) n = 3;
        else if (c == 0xF4) { n = 3; hi = 0x8F; }
        else return false;
        if (i + n >= s.size()) return false;
        for (int k = 1; k <= n; ++k) {
            const auto d = static_cast<unsigned char>(s[i + k]);
            const unsigned l = k == 1 ? lo : 0x80, h = k == 1 ? hi : 0xBF;
            if (d < l || d > h) return false;
        }
        i += n + 1;
    }
    return true;
}

std::string stream(const Tokenizer& t, const std::vector<int32_t>& ids, int32_t previous,
                   bool* allValid = nullptr) {
    StreamingDetokenizer detok(t, previous);
    std::string text;
    bool valid = true;
    for (int32_t id : ids) {
        const std::string piece = detok.push(id);
        valid = valid && isValidUtf8(piece);
        text += piece;
    }
    const std::string rest = detok.flush();
    valid = valid && isValidUtf8(rest);
    if (allValid) *allValid = valid;
    return text + rest;
}

void checkSplitCharacters(const Tokenizer& t) {
    {   // "ë" as <0xC3><0xAB>: nothing until the second byte.
        StreamingDetokenizer d(t, kA);
        CHECK_EQ(d.push(byteId(0xC3)), std::string());
        CHECK_EQ(d.push(byteId(0xAB)), std::string("ë"));
        CHECK_EQ(d.flush(), std::string());
    }
    {   // A 4-byte emoji over four byte tokens.
        StreamingDetokenizer d(t, kA);
        CHECK_EQ(d.push(byteId(0xF0)), std::string());
        CHECK_EQ(d.push(byteId(0x9F)), std::string());
        CHECK_EQ(d.push(byteId(0x99)), std::string());
        CHECK_EQ(d.push(byteId(0x82)), std::string("🙂"));
    }
    {   // Complete text before a split character comes out at once; the rest waits.
        StreamingDetokenizer d(t, kA);
        CHECK_EQ(d.push(kA), std::string("a"));
        CHECK_EQ(d.push(byteId(0xE2)), std::string());
        CHECK_EQ(d.push(byteId(0x82)), std::string());
        CHECK_EQ(d.push(byteId(0xAC)), std::string("€"));
        CHECK_EQ(d.push(kEAcute), std::string("é"));
    }
    {   // A control token in the middle of a character does not break it.
        StreamingDetokenizer d(t, kA);
        CHECK_EQ(d.push(byteId(0xC3)), std::string());
        CHECK_EQ(d.push(2), std::string());
        CHECK_EQ(d.push(byteId(0xA9)), std::string("é"));
    }
}

void checkInvalid(const Tokenizer& t) {
    {   // Bytes that can never be UTF-8, and a lone continuation byte.
        StreamingDetokenizer d(t, kA);
        CHECK_EQ(d.push(byteId(0xFF)), kFffd);
        CHECK_EQ(d.push(byteId(0x80)), kFffd);
        CHECK_EQ(d.push(byteId(0xC0)), kFffd); // overlong lead
        CHECK_EQ(d.push(kA), std::string("a"));
    }
    {   // A started character cut short by ASCII: one U+FFFD, then the ASCII.
        StreamingDetokenizer d(t, kA);
        CHECK_EQ(d.push(byteId(0xE2)), std::string());
        CHECK_EQ(d.push(byteId(0x82)), std::string());
        CHECK_EQ(d.push(byteId('A')), kFffd + "A");
    }
    {   // Surrogates and out-of-range are invalid at the second byte.
        StreamingDetokenizer d(t, kA);
        CHECK_EQ(d.push(byteId(0xED)), std::string());
        CHECK_EQ(d.push(byteId(0xA0)), kFffd + kFffd); // ED, then A0 (continuation alone)
        CHECK_EQ(d.push(byteId(0xF4)), std::string());
        CHECK_EQ(d.push(byteId(0x90)), kFffd + kFffd);
    }
    {   // flush() turns a held partial character into U+FFFD, once.
        StreamingDetokenizer d(t, kA);
        CHECK_EQ(d.push(byteId(0xF0)), std::string());
        CHECK_EQ(d.push(byteId(0x9F)), std::string());
        CHECK_EQ(d.flush(), kFffd);
        CHECK_EQ(d.flush(), std::string());
    }
    CHECK_EQ(t.decode({byteId(0xC3)}), kFffd);
    CHECK_EQ(t.decode({kA, byteId(0xC3), kA}), "a" + kFffd + "a");
}

void checkLeadingSpace(const Tokenizer& t, const Tokenizer& noPrefix) {
    CHECK_EQ(stream(t, {kOnce, kUpon}, -1), std::string("Once upon"));
    CHECK_EQ(stream(t, {kOnce, kUpon}, 1), std::string("Once upon"));     // after BOS
    CHECK_EQ(stream(t, {kOnce, kUpon}, kA), std::string(" Once upon"));   // after text
    CHECK_EQ(stream(t, {kSpace, kOnce}, -1), std::string(" Once"));       // only the first
    CHECK_EQ(stream(t, {1, 2, kOnce}, -1), std::string("Once"));          // controls add nothing
    CHECK_EQ(stream(t, {byteId(' '), kA}, -1), std::string(" a"));        // a byte space stays
    CHECK_EQ(stream(noPrefix, {kOnce}, -1), std::string(" Once"));        // model without prefix
    CHECK_EQ(t.decode({1, kOnce, kUpon, 2}), std::string("Once upon"));
}

void checkRandomStreams(const Tokenizer& t) {
    std::mt19937 rng(1234);
    std::uniform_int_distribution<int32_t> anyId(-2, t.vocabSize() + 2); // out of range too
    std::uniform_int_distribution<int> length(0, 40);
    for (int round = 0; round < 500; ++round) {
        std::vector<int32_t> ids(size_t(length(rng)));
        for (auto& id : ids) id = anyId(rng);
        bool valid = false;
        const std::string streamed = stream(t, ids, -1, &valid);
        CHECK_MSG(valid, "round " << round << " emitted broken UTF-8");
        CHECK_MSG(streamed == t.decode(ids), "round " << round);
        CHECK(isValidUtf8(t.decode(ids)));
    }
}

// The stories260K reference continuations, streamed token by token (the test's only part that
// needs shared data).
void checkReferenceStreams() {
    const auto references = test::optionalTestData("models/stories260K/reference_greedy.jsonl");
    const auto model = test::optionalTestData("models/stories260K/tok512.model");
    if (!references || !model) return;
    auto t = loadSentencePieceFile(model->string());
    CHECK_OK(t);
    if (!t.isOk()) return;
    for (const test::GreedyRecord& r : test::readGreedyRecords(*references)) {
        bool valid = false;
        CHECK_EQ(stream(**t, r.outputIds, r.promptIds.back(), &valid), r.outputText);
        CHECK(valid);
    }
}

} // namespace

int main() {
    test::announce("detokenizer", "cpu");
    const auto t = makeTokenizer(true);
    const auto noPrefix = makeTokenizer(false);
    if (t && noPrefix) {
        checkSplitCharacters(*t);
        checkInvalid(*t);
        checkLeadingSpace(*t, *noPrefix);
        checkRandomStreams(*t);
    }
    checkReferenceStreams();
    return test::finish();
}
