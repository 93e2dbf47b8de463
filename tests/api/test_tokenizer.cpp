// A tokenizer loaded alone, through the public headers only: it encodes and decodes exactly as
// the model it came from, from the GGUF and from the HF folder's tokenizer.model, and a bad path
// is a clear error.
#include "check.h"
#include "hearth/model.h"
#include "hearth/tokenizer.h"
#include "testdata.h"

using namespace hearth;

int main() {
    test::announce("api.tokenizer", "cpu");
    const auto gguf = test::requireTestData("models/stories260K/stories260K-f32.gguf");
    const auto hf = test::requireTestData("models/stories260K/hf");
    auto model = Model::load({.path = gguf.string(), .threads = 1});
    CHECK_OK(model);
    if (!model.isOk()) return test::finish();
    const std::string text = "Once upon a time, there was a little girl named Lily.";
    const std::vector<int32_t> expected = (*model)->encode(text, true);
    for (const auto& path : {gguf, hf}) {
        auto tok = TextTokenizer::load(path.string());
        CHECK_OK(tok);
        if (!tok.isOk()) continue;
        CHECK_EQ((*tok)->vocabSize(), (*model)->info().vocabSize);
        const std::vector<int32_t> ids = (*tok)->encode(text, true, false);
        CHECK_MSG(ids == expected, path << ": encodes differently from the model");
        CHECK_EQ((*tok)->decode(ids), (*model)->decode(expected));
        CHECK_EQ((*tok)->decode(ids), text);
        CHECK((*tok)->encode("<s>", false, true) != (*tok)->encode("<s>", false, false)); // special text
    }
    CHECK_ERR(TextTokenizer::load("/no/such/tokenizer.json"), StatusCode::NotFound, "/no/such");
    return test::finish();
}
