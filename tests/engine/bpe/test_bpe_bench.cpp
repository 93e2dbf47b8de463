// Encoding speed of byte-level BPE (Qwen3), printed for the log, never asserted: loading
// tokenizer.json, and encoding documents of about 100k tokens, once with a cold word cache and
// once warm. Three documents: text built from the reference strings (many repeats), English
// prose (Debian's licence texts, when present), and random vocabulary tokens glued together
// (few repeats: the worst case for the cache). The test only checks that results are consistent.
#include <chrono>
#include <filesystem>
#include <random>

#include "bpe_vectors.h"
#include "check.h"
#include "base/utf8.h"
#include "testdata.h"

using namespace hearth;
using Clock = std::chrono::steady_clock;

namespace {

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

void timeEncode(const std::string& jsonPath, const std::string& label, const std::string& document) {
    auto loaded = loadTokenizer(jsonPath); // fresh: an empty word cache
    if (!loaded.isOk()) return;
    const Tokenizer& t = *loaded.value();
    auto start = Clock::now();
    const auto cold = t.encode(document, false, true);
    const double coldSeconds = secondsSince(start);
    start = Clock::now();
    const auto warm = t.encode(document, false, true);
    const double warmSeconds = secondsSince(start);
    CHECK(cold == warm);
    CHECK_EQ(t.decode(cold), test::nfc(document));
    std::printf("%s: %zu bytes -> %zu tokens: cold %.3f s (%.0f tokens/s, %.1f MB/s), warm %.3f s (%.0f tokens/s)\n",
                label.c_str(), document.size(), cold.size(), coldSeconds, double(cold.size()) / coldSeconds,
                double(document.size()) / coldSeconds / 1e6, warmSeconds, double(warm.size()) / warmSeconds);
}

} // namespace

int main() {
    test::announce("bpe_bench", "cpu");
    const std::string jsonPath = test::requireTestData("models/qwen3-tokenizer/tokenizer.json").string();
    const auto records = test::readBpeVectors(
        test::requireTestData("models/qwen3-tokenizer/vectors_public.jsonl").string(), test::kQwen3VectorCount);
    if (records.empty()) return test::finish(); // already a failed check

    auto start = Clock::now();
    auto loaded = loadTokenizer(jsonPath);
    std::printf("load tokenizer.json (151,643 tokens, 151,387 merges): %.3f s\n", secondsSince(start));
    CHECK_OK(loaded);
    if (!loaded.isOk()) return test::finish();
    const Tokenizer& t = *loaded.value();

    // Prose-like: the reference strings (without special tokens) with numbered sentences between.
    std::string prose;
    std::mt19937 rng(42);
    size_t tokens = 0;
    while (tokens < 100000) {
        const auto& r = records[rng() % records.size()];
        if (r.text.find("<|") != std::string::npos) continue;
        const std::string chunk = r.text + "\nSentence " + std::to_string(rng() % 100000) + " of the story.\n";
        tokens += t.encode(chunk, false, false).size();
        prose += chunk;
    }
    timeEncode(jsonPath, "prose-like", prose);

    // Real English prose, where the machine has it: the licence texts Debian ships.
    std::string licences;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator("/usr/share/common-licenses", ec))
        if (entry.is_regular_file(ec)) licences += test::readTextFile(entry.path());
    if (!licences.empty()) timeEncode(jsonPath, "licence texts", utf8::sanitize(licences));

    // Random vocabulary tokens glued together: mostly new words.
    std::string random;
    for (size_t i = 0; i < 100000; ++i) random += t.tokenBytes(int32_t(rng() % 151643));
    random = utf8::sanitize(random); // glued byte pieces can split characters
    timeEncode(jsonPath, "random tokens", random);
    return test::finish();
}
