// SentencePiece tokenization: stories260K's reference encodings from the GGUF and from
// tokenizer.model, special tokens, byte fallback, the BOS/EOS policy, and malformed inputs.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "check.h"
#include "io/gguf.h"
#include "io/mapped_file.h"
#include "testdata.h"
#include "tokenizer/sp_model_proto.h"
#include "tokenizer/tokenizer.h"

using namespace hearth;
namespace fs = std::filesystem;

namespace {

std::string str(const std::vector<int32_t>& ids) {
    std::ostringstream os;
    os << '[';
    for (size_t i = 0; i < ids.size(); ++i) os << (i ? ", " : "") << ids[i];
    os << ']';
    return os.str();
}

std::vector<std::string> pieces(const Tokenizer& t, const std::vector<int32_t>& ids) {
    std::vector<std::string> out;
    for (int32_t id : ids) out.push_back(t.tokenPiece(id));
    return out;
}

std::string join(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& s : items) out += (out.empty() ? "" : " ") + s;
    return out;
}

bool contains(const std::vector<int32_t>& ids, int32_t id) {
    return std::find(ids.begin(), ids.end(), id) != ids.end();
}

std::string streamDecode(const Tokenizer& t, const std::vector<int32_t>& ids, int32_t previous) {
    StreamingDetokenizer detok(t, previous);
    std::string text;
    for (int32_t id : ids) text += detok.push(id);
    return text + detok.flush();
}

void writeFile(const fs::path& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary);
    out << bytes;
}

// --- reference records -----------------------------------------------------------------------

void checkReferences(const Tokenizer& t, const std::string& source) {
    std::fprintf(stderr, "references from %s\n", source.c_str());
    CHECK_EQ(t.vocabSize(), 512);
    CHECK_EQ(t.bosId(), 1);
    CHECK_EQ(t.eosId(), 2);
    CHECK(t.addsBos());
    CHECK(!t.addsEos());
    CHECK(t.stripsLeadingSpace());

    const auto path = test::requireTestData("models/stories260K/reference_greedy.jsonl");
    for (const test::GreedyRecord& r : test::readGreedyRecords(path)) { // checks the count
        const std::string& prompt = r.prompt;
        const auto& promptIds = r.promptIds;
        const auto& outputIds = r.outputIds;
        const std::string& outputText = r.outputText;

        const auto ids = t.encode(prompt, /*addBos=*/true, /*parseSpecial=*/false);
        CHECK_MSG(ids == promptIds, source << " '" << prompt << "': " << str(ids) << " vs "
                                          << str(promptIds));
        // The same with special-token parsing: no special text in these prompts.
        CHECK(t.encode(prompt, true, true) == promptIds);

        // The continuation as streamed after the prompt's last token.
        const std::string streamed = streamDecode(t, outputIds, promptIds.back());
        CHECK_MSG(streamed == outputText, source << " '" << prompt << "': got '" << streamed << "'");
        // decode() drops the first piece's leading space (HF/SentencePiece decode).
        std::string expected = outputText;
        if (!expected.empty() && expected[0] == ' ') expected.erase(0, 1);
        CHECK_EQ(t.decode(outputIds), expected);
        // The prompt round-trips (its leading dummy space dropped after BOS).
        CHECK_EQ(t.decode(promptIds), prompt);
    }
}

void checkBehaviour(const Tokenizer& t) {
    // Empty prompt: BOS only, or nothing.
    CHECK(t.encode("", true, false) == std::vector<int32_t>{1});
    CHECK(t.encode("", false, false).empty());
    CHECK(t.encode("", false, true).empty());

    // Runs of spaces are kept (run.c, llama.cpp, HF fast), not collapsed.
    const auto max = t.encode("Max  went", false, false);
    CHECK_EQ(join(pieces(t, max)), std::string("▁M a x ▁ ▁w ent"));
    CHECK_EQ(t.decode(max), std::string("Max  went"));
    const auto trailing = t.encode("  a   b  ", false, false);
    CHECK_EQ(t.decode(trailing), std::string("  a   b  "));
    CHECK(t.encode("a b", false, false) != t.encode("a  b", false, false));

    // Byte fallback: "ë" is not a piece, its UTF-8 bytes are (<0xC3> = 198, <0xAB> = 174).
    const auto zoe = t.encode("Zoë", true, false);
    CHECK_MSG(zoe == (std::vector<int32_t>{1, 410, 469, 414, 198, 174}), str(zoe));
    CHECK_EQ(t.decode(zoe), std::string("Zoë"));
    const auto emoji = t.encode("🙂", false, false); // F0 9F 99 82
    CHECK_MSG(emoji == (std::vector<int32_t>{410, 0xF0 + 3, 0x9F + 3, 0x99 + 3, 0x82 + 3}), str(emoji));
    CHECK_EQ(t.decode(emoji), std::string("🙂"));

    // Invalid UTF-8 keeps its bytes through byte fallback; decoding shows U+FFFD for them.
    const auto invalid = t.encode("a\xFF" "b\xE2\x82", false, false);
    CHECK(contains(invalid, 0xFF + 3));
    CHECK(contains(invalid, 0xE2 + 3));
    CHECK(contains(invalid, 0x82 + 3));
    CHECK_EQ(t.decode(invalid), std::string("a\xEF\xBF\xBD" "b\xEF\xBF\xBD"));

    // parseSpecial: "<s>" is BOS only when asked for.
    CHECK(t.encode("<s>", false, true) == std::vector<int32_t>{1});
    const auto literal = t.encode("<s>", false, false);
    CHECK(!contains(literal, 1));
    CHECK_EQ(t.decode(literal), std::string("<s>"));
    const auto mixed = t.encode("Hi</s><s>there", true, true);
    CHECK_MSG(mixed.size() >= 6 && mixed[0] == 1, str(mixed));
    // Each stretch of text gets its dummy prefix, as llama.cpp and HF do.
    CHECK_EQ(join(pieces(t, mixed)), join(pieces(t, t.encode("Hi", true, false))) + " </s> <s> " +
                                         join(pieces(t, t.encode("there", false, false))));
    CHECK_EQ(t.decode(mixed), std::string("Hi there")); // BOS mid-text strips nothing
    // Unknown and byte tokens are never matched by their text.
    CHECK(!contains(t.encode("<unk>", false, true), 0));
    CHECK(!contains(t.encode("<0x41>", false, true), 0x41 + 3));
    // Longest match: "<s><s>" is two BOS, "</s>" is EOS (not "<" + "/s>").
    CHECK(t.encode("<s><s>", false, true) == (std::vector<int32_t>{1, 1}));
    CHECK(t.encode("</s>", false, true) == std::vector<int32_t>{2});

    // Token bytes.
    CHECK_EQ(t.tokenBytes(410), std::string(" "));
    CHECK_EQ(t.tokenPiece(410), std::string("▁"));
    CHECK_EQ(t.tokenBytes(0x41 + 3), std::string("A"));
    CHECK_EQ(t.tokenPiece(0x41 + 3), std::string("<0x41>"));
    CHECK_EQ(t.tokenBytes(198), std::string("\xC3"));
    CHECK_EQ(t.tokenBytes(1), std::string());
    CHECK_EQ(t.tokenBytes(2), std::string());
    CHECK_EQ(t.tokenBytes(0), std::string(" \xE2\x81\x87 ")); // SentencePiece's " ⁇ "
    CHECK_EQ(t.tokenBytes(403), std::string(" Once"));
    CHECK_EQ(t.tokenBytes(-1), std::string());
    CHECK_EQ(t.tokenBytes(512), std::string());
    CHECK(t.tokenKind(0) == TokenKind::Unknown);
    CHECK(t.tokenKind(1) == TokenKind::Control);
    CHECK(t.tokenKind(3) == TokenKind::Byte);
    CHECK(t.tokenKind(410) == TokenKind::Normal);

    // decode: controls contribute nothing; the first text piece loses its leading space.
    CHECK_EQ(t.decode({1, 403, 407, 2}), std::string("Once upon"));
    CHECK_EQ(t.decode({}), std::string());
}

// --- malformed GGUF vocabularies -------------------------------------------------------------

struct MiniVocab {
    std::vector<std::string> tokens = {"<unk>", "<s>", "</s>", "▁", "a", "b", "▁a", "ab", "▁ab"};
    std::vector<float> scores = {0, 0, 0, -1, -2, -3, -4, -5, -6};
    std::vector<int32_t> types = {2, 3, 3, 1, 1, 1, 1, 1, 1};
};

io::GgufWriter miniWriter(const MiniVocab& v, const std::string& model = "llama") {
    io::GgufWriter w;
    w.set("general.architecture", io::GgufValue::string("llama"));
    w.set("tokenizer.ggml.model", io::GgufValue::string(model));
    w.set("tokenizer.ggml.tokens", io::GgufValue::stringArray(v.tokens));
    w.set("tokenizer.ggml.scores", io::GgufValue::f32Array(v.scores));
    w.set("tokenizer.ggml.token_type", io::GgufValue::i32Array(v.types));
    w.set("tokenizer.ggml.bos_token_id", io::GgufValue::u32(1));
    w.set("tokenizer.ggml.eos_token_id", io::GgufValue::u32(2));
    return w;
}

Result<std::unique_ptr<Tokenizer>> loadMini(const io::GgufWriter& w, const std::string& name) {
    auto bytes = w.serialize();
    if (!bytes.isOk()) return bytes.status();
    auto file = io::GgufFile::parse(io::MappedFile::fromBuffer(name, *bytes));
    if (!file.isOk()) return file.status();
    return loadTokenizerFromGguf(*file);
}

void checkMiniGguf() {
    const MiniVocab v;
    {
        auto t = loadMini(miniWriter(v), "mini.gguf");
        CHECK_OK(t);
        if (t.isOk()) {
            const Tokenizer& tok = **t;
            CHECK_EQ(tok.vocabSize(), 9);
            // "ab ab" -> ▁ab ▁ab (merges by score: ▁a(-4) beats ab(-5), then ▁ab).
            CHECK_MSG(tok.encode("ab ab", true, false) == (std::vector<int32_t>{1, 8, 8}),
                      str(tok.encode("ab ab", true, false)));
            // No byte tokens: an unknown character becomes <unk>.
            CHECK_MSG(tok.encode("ac", false, false) == (std::vector<int32_t>{6, 0}),
                      str(tok.encode("ac", false, false)));
            CHECK(tok.addsBos());
        }
    }
    {   // Flags: no BOS, no space prefix, EOS appended.
        auto w = miniWriter(v);
        w.set("tokenizer.ggml.add_bos_token", io::GgufValue::boolean(false));
        w.set("tokenizer.ggml.add_eos_token", io::GgufValue::boolean(true));
        w.set("tokenizer.ggml.add_space_prefix", io::GgufValue::boolean(false));
        auto t = loadMini(w, "flags.gguf");
        CHECK_OK(t);
        if (t.isOk()) {
            CHECK(!(*t)->addsBos());
            CHECK((*t)->addsEos());
            CHECK(!(*t)->stripsLeadingSpace());
            CHECK_MSG((*t)->encode("ab", true, false) == (std::vector<int32_t>{7, 2}),
                      str((*t)->encode("ab", true, false)));
            CHECK((*t)->encode("ab", false, false) == std::vector<int32_t>{7});
            CHECK_EQ((*t)->decode({6}), std::string(" a")); // nothing stripped
        }
    }
    {   // Without scores and token types (old converters): types inferred, scores 0.
        io::GgufWriter w;
        w.set("tokenizer.ggml.model", io::GgufValue::string("llama"));
        w.set("tokenizer.ggml.tokens", io::GgufValue::stringArray(v.tokens));
        auto t = loadMini(w, "bare.gguf");
        CHECK_OK(t);
        if (t.isOk()) {
            CHECK((*t)->tokenKind(0) == TokenKind::Unknown);
            CHECK((*t)->tokenKind(1) == TokenKind::Control);
            CHECK_EQ((*t)->bosId(), 1);
        }
    }

    {   // Arrays of different lengths.
        MiniVocab bad = v;
        bad.scores.pop_back();
        CHECK_ERR(loadMini(miniWriter(bad), "scores.gguf"), StatusCode::DataLoss,
                  "scores.gguf: key tokenizer.ggml.scores: has 8 entries");
    }
    {
        MiniVocab bad = v;
        bad.types.push_back(1);
        CHECK_ERR(loadMini(miniWriter(bad), "types.gguf"), StatusCode::DataLoss,
                  "types.gguf: key tokenizer.ggml.token_type: has 10 entries");
    }
    {
        MiniVocab bad = v;
        bad.types[4] = 9;
        CHECK_ERR(loadMini(miniWriter(bad), "type9.gguf"), StatusCode::DataLoss,
                  "tokenizer.ggml.token_type: entry 4");
    }
    {   // BOS/EOS ids outside the vocabulary.
        auto w = miniWriter(v);
        w.set("tokenizer.ggml.bos_token_id", io::GgufValue::u32(99));
        CHECK_ERR(loadMini(w, "bos.gguf"), StatusCode::DataLoss,
                  "bos.gguf: key tokenizer.ggml.bos_token_id: token id 99 is outside");
    }
    {
        auto w = miniWriter(v);
        w.set("tokenizer.ggml.eos_token_id", io::GgufValue::u32(9));
        CHECK_ERR(loadMini(w, "eos.gguf"), StatusCode::DataLoss, "tokenizer.ggml.eos_token_id");
    }
    {   // Tokens that are not strings.
        auto w = miniWriter(v);
        std::vector<io::GgufValue> numbers;
        for (size_t i = 0; i < v.tokens.size(); ++i) numbers.push_back(io::GgufValue::u32(uint32_t(i)));
        w.set("tokenizer.ggml.tokens", io::GgufValue::array(io::GgufValueType::U32, numbers));
        CHECK_ERR(loadMini(w, "numbers.gguf"), StatusCode::DataLoss,
                  "numbers.gguf: key tokenizer.ggml.tokens: entry 0");
    }
    {   // Not an array at all.
        auto w = miniWriter(v);
        w.set("tokenizer.ggml.scores", io::GgufValue::f32(1.0f));
        CHECK_ERR(loadMini(w, "scalar.gguf"), StatusCode::DataLoss,
                  "key tokenizer.ggml.scores: expected an array");
    }
    {   // A vocabulary SentencePiece refuses (the same piece twice).
        MiniVocab bad = v;
        bad.tokens[5] = "a";
        CHECK_ERR(loadMini(miniWriter(bad), "dup.gguf"), StatusCode::DataLoss, "dup.gguf");
    }
    {   // A tokenizer family Hearth does not implement (BERT's WordPiece).
        CHECK_ERR(loadMini(miniWriter(v, "bert"), "bert.gguf"), StatusCode::Unsupported,
                  "bert.gguf: key tokenizer.ggml.model: tokenizer type \"bert\"");
    }
    {   // No tokenizer at all.
        io::GgufWriter w;
        w.set("general.architecture", io::GgufValue::string("llama"));
        CHECK_ERR(loadMini(w, "none.gguf"), StatusCode::NotFound, "none.gguf");
    }
    {   // Missing tokens.
        io::GgufWriter w;
        w.set("tokenizer.ggml.model", io::GgufValue::string("llama"));
        CHECK_ERR(loadMini(w, "notokens.gguf"), StatusCode::DataLoss, "tokenizer.ggml.tokens");
    }
}

// --- tokenizer.model files -------------------------------------------------------------------

void checkModelFiles(const fs::path& modelPath) {
    const fs::path dir = test::scratchDir("tokenizer_spm");
    const std::string model = test::readTextFile(modelPath);

    const fs::path truncated = dir / "truncated.model";
    writeFile(truncated, model.substr(0, model.size() / 2));
    CHECK_ERR(loadSentencePieceFile(truncated.string()), StatusCode::DataLoss, truncated.string());
    CHECK_ERR(loadTokenizer(truncated.string()), StatusCode::DataLoss, "truncated.model");

    const fs::path garbage = dir / "garbage.model";
    writeFile(garbage, "this is not a SentencePiece model at all\n");
    CHECK_ERR(loadSentencePieceFile(garbage.string()), StatusCode::DataLoss, garbage.string());

    const fs::path empty = dir / "empty.model";
    writeFile(empty, "");
    CHECK_ERR(loadSentencePieceFile(empty.string()), StatusCode::DataLoss, "empty.model");

    CHECK_ERR(loadSentencePieceFile((dir / "missing.model").string()), StatusCode::NotFound,
              "missing.model");
    CHECK_ERR(loadTokenizer((dir / "nothing").string()), StatusCode::NotFound, "nothing");
    CHECK_ERR(loadTokenizer(dir.string()), StatusCode::NotFound, "tokenizer.model");

    // A tokenizer_config.json beside the model decides add-BOS/add-EOS.
    const fs::path hf = dir / "hf";
    fs::create_directories(hf);
    writeFile(hf / "tokenizer.model", model);
    writeFile(hf / "tokenizer_config.json", R"({"add_bos_token": false, "add_eos_token": true})");
    {
        auto t = loadTokenizer(hf.string());
        CHECK_OK(t);
        if (t.isOk()) {
            CHECK(!(*t)->addsBos());
            CHECK((*t)->addsEos());
            const auto ids = (*t)->encode("Once", true, false);
            CHECK_MSG(ids == (std::vector<int32_t>{403, 2}), str(ids));
        }
    }
    writeFile(hf / "tokenizer_config.json", R"({"add_bos_token": "yes")");
    CHECK_ERR(loadTokenizer(hf.string()), StatusCode::DataLoss, "tokenizer_config.json");
    writeFile(hf / "tokenizer_config.json", R"({"add_bos_token": "yes"})");
    CHECK_ERR(loadTokenizer(hf.string()), StatusCode::DataLoss, "add_bos_token");
}

// The hand-written ModelProto reader/writer: what it rewrites reads back the same, fields it
// does not know survive, negative int32 values round-trip.
void checkProtoRoundTrip(const fs::path& modelPath) {
    const std::string bytes = test::readTextFile(modelPath);
    auto model = spm::parseModelProto(bytes, "tok512.model");
    CHECK_OK(model);
    if (!model.isOk()) return;
    CHECK_EQ(model->pieces.size(), size_t(512));
    CHECK(model->modelType() == spm::ModelType::Bpe);
    CHECK(model->byteFallback());
    CHECK_EQ(model->bosId(), 1);
    CHECK_EQ(model->eosId(), 2);
    CHECK_EQ(model->padId(), -1);
    CHECK(model->addDummyPrefix());
    CHECK(model->removeExtraWhitespaces()); // the file says so; the loader turns it off
    CHECK(model->pieces[410].piece == "▁" && model->pieces[410].kind == TokenKind::Normal);
    CHECK(model->pieces[3].piece == "<0x00>" && model->pieces[3].kind == TokenKind::Byte);

    spm::ModelProto changed = *model;
    changed.trainerSpec.setInt(spm::field::kPadId, -1);
    changed.trainerSpec.setInt(spm::field::kBosId, -1);
    changed.normalizerSpec.setBool(spm::field::kRemoveExtraWhitespaces, false);
    auto back = spm::parseModelProto(spm::serializeModelProto(changed), "rewritten");
    CHECK_OK(back);
    if (!back.isOk()) return;
    CHECK_EQ(back->bosId(), -1);
    CHECK_EQ(back->padId(), -1);
    CHECK(!back->removeExtraWhitespaces());
    CHECK_EQ(back->pieces.size(), model->pieces.size());
    for (size_t i = 0; i < back->pieces.size() && i < model->pieces.size(); ++i)
        CHECK(back->pieces[i].piece == model->pieces[i].piece &&
              back->pieces[i].score == model->pieces[i].score &&
              back->pieces[i].kind == model->pieces[i].kind);
    // split_digits (25) and unk_surface (44) are not read by Hearth but must survive.
    CHECK(back->trainerSpec.getBool(25, false));
    CHECK(back->trainerSpec.getBytes(44) == model->trainerSpec.getBytes(44));
    CHECK(back->normalizerSpec.getBytes(spm::field::kName) == std::optional<std::string>("identity"));
    // A piece type outside the enum is refused.
    CHECK_ERR(spm::parseModelProto(std::string("\x0a\x02\x18\x09", 4), "bad.model"),
              StatusCode::DataLoss, "bad.model");
}

} // namespace

int main() {
    test::announce("tokenizer_spm", "cpu");
    checkMiniGguf();

    const fs::path gguf = test::requireTestData("models/stories260K/stories260K-f32.gguf");
    const fs::path hfModel = test::requireTestData("models/stories260K/hf/tokenizer.model");
    const fs::path tok512 = test::requireTestData("models/stories260K/tok512.model");

    auto ggufFile = io::GgufFile::open(gguf.string());
    CHECK_OK(ggufFile);
    if (ggufFile.isOk()) {
        auto t = loadTokenizerFromGguf(*ggufFile);
        CHECK_OK(t);
        if (t.isOk()) {
            checkReferences(**t, "stories260K-f32.gguf");
            checkBehaviour(**t);
        }
    }
    for (const auto& [path, label] : {std::pair{hfModel, "hf/tokenizer.model"},
                                      std::pair{tok512, "tok512.model"}}) {
        auto t = loadSentencePieceFile(path.string());
        CHECK_OK(t);
        if (t.isOk()) {
            checkReferences(**t, label);
            checkBehaviour(**t);
        }
    }
    // loadTokenizer picks by content: a GGUF, a tokenizer.model, a folder holding one.
    for (const fs::path& path : {gguf, tok512, hfModel.parent_path()}) {
        auto t = loadTokenizer(path.string());
        CHECK_OK(t);
        if (t.isOk())
            CHECK((*t)->encode("Once upon a time", true, false) ==
                  (std::vector<int32_t>{1, 403, 407, 261, 378}));
    }
    checkModelFiles(tok512);
    checkProtoRoundTrip(tok512);
    return test::finish();
}
