// The qwen35 pre-tokenizer (GGUF tokenizer.ggml.pre "qwen35", Qwen3.5's tokenizer.json): the
// Qwen2 split except that a letter run keeps its combining marks (\p{M}). Checked on text where
// the two differ and where they agree, piece by piece, with the pieces written out here.
#include <string>
#include <vector>

#include "check.h"
#include "tokenizer/bpe/bpe_loader.h"
#include "tokenizer/bpe/regex_split.h"

using namespace hearth;

namespace {

std::vector<std::string> pieces(const std::string& pre, const std::string& text) {
    const bpe::KnownPreTokenizer* known = bpe::findKnownPreTokenizer(pre);
    CHECK_MSG(known, pre << " is not a known pre-tokenizer");
    if (!known) return {};
    auto splitter = bpe::RegexSplitter::create(std::string(known->pattern), false, pre);
    CHECK_OK(splitter);
    std::vector<std::string> out;
    if (splitter.isOk()) splitter.value()->split(text, [&](std::string_view p) { out.emplace_back(p); });
    return out;
}

std::string joined(const std::vector<std::string>& v) {
    std::string out;
    for (const std::string& p : v) out += "[" + p + "]";
    return out;
}

} // namespace

int main() {
    test::announce("bpe_qwen35", "cpu");
    const bpe::KnownPreTokenizer* q35 = bpe::findKnownPreTokenizer("qwen35");
    CHECK(q35 && q35->nfc && !q35->ignoreMerges);
    CHECK_EQ(bpe::knownPreTokenizerName(q35 ? q35->pattern : ""), std::string("qwen35"));

    // "cafe" + COMBINING ACUTE ACCENT (U+0301), Devanagari with a vowel sign (a spacing mark), Thai
    // with a non-spacing vowel: one letter run each for qwen35, split at the marks for qwen2.
    const std::string text = "cafe\xCC\x81 \xE0\xA4\xB9\xE0\xA4\xBF\xE0\xA4\x82\xE0\xA4\xA6\xE0\xA5\x80 \xE0\xB8\x81\xE0\xB8\xB5\xE0\xB9\x88";
    const std::vector<std::string> mine = pieces("qwen35", text), older = pieces("qwen2", text);
    std::printf("qwen35: %s\nqwen2:  %s\n", joined(mine).c_str(), joined(older).c_str());
    CHECK(mine == (std::vector<std::string>{"cafe\xCC\x81", " \xE0\xA4\xB9\xE0\xA4\xBF\xE0\xA4\x82\xE0\xA4\xA6\xE0\xA5\x80",
                                            " \xE0\xB8\x81\xE0\xB8\xB5\xE0\xB9\x88"}));
    CHECK(older.size() > mine.size() && older.front() == "cafe");

    // Without marks the two agree (contractions, digits one by one, punctuation, newlines).
    const std::string plain = "I'll pay 1234 dollars, OK?\n\n  Done.";
    const std::vector<std::string> a = pieces("qwen35", plain), b = pieces("qwen2", plain);
    CHECK(a == b);
    CHECK_EQ(joined(a), std::string("[I]['ll][ pay][ ][1][2][3][4][ dollars][,][ OK][?\n\n][ ][ Done][.]"));
    return test::finish();
}
