// Qwen3's byte-level BPE (tokenizer.json) against reference encodings made by an independent
// implementation (../shared/models/qwen3-tokenizer/vectors_public.jsonl): every record must
// give exactly the recorded ids, and decode back to the NFC form of its text.
#include "bpe_vectors.h"
#include "check.h"
#include "testdata.h"

using namespace hearth;

int main() {
    test::announce("bpe_reference", "cpu");
    const auto json = test::requireTestData("models/qwen3-tokenizer/tokenizer.json");
    const auto vectors = test::requireTestData("models/qwen3-tokenizer/vectors_public.jsonl");

    auto loaded = loadTokenizer(json.string());
    CHECK_OK(loaded);
    if (!loaded.isOk()) return test::finish();
    const Tokenizer& t = *loaded.value();
    CHECK_EQ(t.vocabSize(), 151669);
    CHECK_EQ(t.bosId(), -1);        // Qwen has no BOS ...
    CHECK(!t.addsBos());            // ... and adds none
    CHECK_EQ(t.eosId(), 151645);    // <|im_end|>, from tokenizer_config.json
    CHECK(!t.stripsLeadingSpace());
    CHECK_EQ(t.bpePreTokenizerName(), std::string("qwen2"));

    const auto records = test::readBpeVectors(vectors.string(), test::kQwen3VectorCount);
    const size_t matched = test::checkBpeVectors(t, records, /*applyNfc=*/true, "qwen3");
    CHECK_EQ(matched, records.size());

    // The same text through the folder (tokenizer.json is preferred there).
    auto fromFolder = loadTokenizer(json.parent_path().string());
    CHECK_OK(fromFolder);
    if (fromFolder.isOk())
        CHECK(fromFolder.value()->encode("Hello world", false, true) == (std::vector<int32_t>{9707, 1879}));
    return test::finish();
}
