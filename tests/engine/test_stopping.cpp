// End of generation. stories260K never emits its EOS, so each end id here is a token its greedy
// reply does produce, at a known position k: the reply must then be exactly its first k tokens
// (the stop token never in the output), for the GGUF's EOS and EOT ids, every id of a
// generation_config.json list, and the caller's stop ids; stop strings; cancellation before and
// during the prompt (the session stays usable); end ids outside the vocabulary refused at load.
#include <atomic>
#include <chrono>
#include <fstream>
#include <map>
#include <thread>

#include <nlohmann/json.hpp>

#include "check.h"
#include "hearth/engine.h"
#include "io/gguf.h"
#include "model_builder.h"
#include "testdata.h"

using namespace hearth;
namespace fs = std::filesystem;

namespace {

fs::path g_dir;
std::vector<int32_t> g_prompt; // "Once upon a time"

std::unique_ptr<Model> load(const fs::path& path) {
    auto model = Model::load({.path = path.string(), .threads = 1});
    CHECK_MSG(model.isOk(), path << ": " << model.status().message());
    return model.isOk() ? std::move(model).value() : nullptr;
}

GenerateResult generate(const Model& model, const std::vector<int32_t>& prompt, GenerateParams p) {
    auto session = Session::create(model, {});
    CHECK_OK(session);
    if (!session.isOk()) return {};
    auto r = session.value()->generate(prompt, p);
    CHECK_OK(r);
    return r.isOk() ? r.value() : GenerateResult{};
}

// The greedy reply with no end ids at all.
std::vector<int32_t> greedyIds(const Model& model, int n) {
    GenerateParams p;
    p.maxTokens = n;
    p.useModelStopIds = false;
    return generate(model, g_prompt, p).outputIds;
}

// The first position >= from whose token does not occur earlier in `ids`.
size_t firstNew(const std::vector<int32_t>& ids, size_t from) {
    for (size_t k = from; k < ids.size(); ++k)
        if (std::find(ids.begin(), ids.begin() + k, ids[k]) == ids.begin() + k) return k;
    CHECK_MSG(false, "no new token after position " << from);
    return ids.size() - 1;
}

// Generation with `p` stops at ids[k]: output ids[0..k), its text, stop Eos, streamed the same.
void expectStopAt(const Model& model, const std::vector<int32_t>& ids, size_t k, GenerateParams p, const char* what) {
    std::string streamed;
    p.maxTokens = int32_t(ids.size());
    p.onText = [&](std::string_view piece, const GenerateStats&) { streamed += piece; };
    const GenerateResult r = generate(model, g_prompt, p);
    GenerateParams prefix;
    prefix.maxTokens = int32_t(k);
    prefix.useModelStopIds = false;
    const GenerateResult cut = generate(model, g_prompt, prefix);
    CHECK_MSG(r.outputIds == std::vector<int32_t>(ids.begin(), ids.begin() + k),
              what << ": " << r.outputIds.size() << " tokens, expected the first " << k);
    CHECK_MSG(r.stop == StopReason::Eos, what << ": stop " << stopReasonName(r.stop));
    CHECK_MSG(std::string(stopReasonName(r.stop)) == "eos", what);
    CHECK_MSG(r.stopTokenId == ids[k], what << ": stop token " << r.stopTokenId << ", expected " << ids[k]);
    CHECK_MSG(r.text == cut.text && streamed == r.text, what << ": text '" << r.text << "' vs '" << cut.text << "'");
}

// stories260K's GGUF with some metadata keys set to other ids.
fs::path ggufWith(const fs::path& stories, const std::string& name, const std::map<std::string, uint32_t>& keys) {
    auto file = io::GgufFile::open((stories / "stories260K-f32.gguf").string());
    CHECK_OK(file);
    io::GgufWriter w;
    if (file.isOk()) {
        for (const auto& [key, value] : file.value().metadata()) w.set(key, value);
        for (const auto& [key, id] : keys) w.set(key, io::GgufValue::u32(id));
        for (const auto& t : file.value().tensors()) w.addTensorView(t.name, t.type, t.ne, t.data, t.bytes);
    }
    CHECK_OK(w.write((g_dir / name).string()));
    return g_dir / name;
}

// stories260K's HF folder with generation_config.json's eos_token_id replaced.
fs::path hfWith(const fs::path& stories, const std::string& name, const nlohmann::json& eos) {
    const fs::path dir = g_dir / name;
    fs::create_directories(dir);
    for (const auto& entry : fs::directory_iterator(stories / "hf"))
        if (entry.path().filename() != "generation_config.json") fs::copy_file(entry.path(), dir / entry.path().filename());
    std::ofstream(dir / "generation_config.json") << nlohmann::json{{"bos_token_id", 1}, {"eos_token_id", eos}}.dump();
    return dir;
}

void checkModelEndIds(const fs::path& stories, const std::vector<int32_t>& ids) {
    const size_t k1 = firstNew(ids, 6), k2 = firstNew(ids, k1 + 1), k3 = firstNew(ids, k2 + 1);
    auto eos = load(ggufWith(stories, "eos.gguf", {{"tokenizer.ggml.eos_token_id", uint32_t(ids[k1])}}));
    if (eos) {
        expectStopAt(*eos, ids, k1, {}, "GGUF eos_token_id");
        GenerateParams off; // the model's ids are what stopped it
        off.maxTokens = int32_t(ids.size());
        off.useModelStopIds = false;
        CHECK(generate(*eos, g_prompt, off).outputIds == ids);
    }
    auto eot = load(ggufWith(stories, "eot.gguf", {{"tokenizer.ggml.eot_token_id", uint32_t(ids[k2])}}));
    if (eot) {
        CHECK(eot->endOfGenerationIds() == std::vector<int32_t>({ids[k2], 2})); // EOT, then the EOS
        expectStopAt(*eot, ids, k2, {}, "GGUF eot_token_id");
    }

    // Every id of the list stops: the first reached stops the reply, and a prompt that ends just
    // before a later one stops at once.
    auto hf = load(hfWith(stories, "hf-list", nlohmann::json::array({2, ids[k2], ids[k3]})));
    if (hf) {
        CHECK_MSG(greedyIds(*hf, 40) == ids, "the HF folder's greedy reply differs from the GGUF's");
        CHECK(hf->endOfGenerationIds() == std::vector<int32_t>({2, ids[k2], ids[k3]}));
        expectStopAt(*hf, ids, k2, {}, "generation_config.json list");
        for (size_t k : {k2, k3}) {
            std::vector<int32_t> prompt = g_prompt;
            prompt.insert(prompt.end(), ids.begin(), ids.begin() + k);
            GenerateParams p;
            p.maxTokens = 4;
            const GenerateResult r = generate(*hf, prompt, p);
            CHECK(r.outputIds.empty() && r.stop == StopReason::Eos && r.stopTokenId == ids[k]);
        }
    }
}

void checkCallerStops(const Model& model, const std::vector<int32_t>& ids) {
    const size_t k = firstNew(ids, 4), later = firstNew(ids, k + 1);
    GenerateParams p;
    p.stopIds = {ids[later], ids[k]}; // the first reached counts, whatever the order
    expectStopAt(model, ids, k, p, "stopIds");

    // A stop string across a token boundary: the text ends right before it.
    GenerateParams all;
    all.maxTokens = int32_t(ids.size());
    all.useModelStopIds = false;
    const std::string full = generate(model, g_prompt, all).text;
    GenerateParams upTo = all;
    upTo.maxTokens = int32_t(k);
    const std::string before = generate(model, g_prompt, upTo).text;
    upTo.maxTokens = int32_t(k + 1);
    const std::string through = generate(model, g_prompt, upTo).text;
    GenerateParams s = all; // token k's text and the first byte of the next token's
    s.stopStrings = {full.substr(before.size(), through.size() - before.size() + 1)};
    CHECK_EQ(full.find(s.stopStrings[0]), before.size()); // its first occurrence
    const GenerateResult r = generate(model, g_prompt, s);
    CHECK_EQ(std::string(stopReasonName(r.stop)), std::string("stop_string"));
    CHECK_EQ(r.text, before);
}

void checkCancelBeforePrompt(const Model& model) {
    auto session = Session::create(model, {});
    CHECK_OK(session);
    if (!session.isOk()) return;
    std::atomic<bool> cancel{true};
    GenerateParams p;
    p.cancel = &cancel;
    auto r = session.value()->generate(g_prompt, p);
    CHECK_OK(r);
    CHECK_EQ(std::string(stopReasonName(r.value().stop)), std::string("cancel"));
    CHECK(r.value().outputIds.empty());
    CHECK(session.value()->cachedTokens().empty()); // not one prompt token was run
}

// Cancelled from another thread while a long prompt is processed: no token is generated, the
// state of the tokens already processed is kept, and the next request resumes from it.
void checkCancelDuringPrompt() {
    test::TinyModelSpec spec; // ~1 ms a token: the prompt takes far longer than the cancel
    spec.hidden = 256, spec.heads = 4, spec.kvHeads = 2, spec.headDim = 64, spec.ffn = 768, spec.layers = 4;
    spec.context = 1024;
    test::writeTinyGguf(spec, g_dir / "slow.gguf");
    auto model = load(g_dir / "slow.gguf");
    if (!model) return;
    std::vector<int32_t> prompt(900);
    for (size_t i = 0; i < prompt.size(); ++i) prompt[i] = int32_t(3 + (i * 37) % 300);
    auto session = Session::create(*model, {});
    CHECK_OK(session);
    if (!session.isOk()) return;
    std::atomic<bool> cancel{false}, started{false};
    std::thread canceller([&] {
        while (!started) std::this_thread::yield();
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        cancel = true;
    });
    GenerateParams p;
    p.maxTokens = 8;
    p.cancel = &cancel;
    started = true;
    auto r = session.value()->generate(prompt, p);
    canceller.join();
    CHECK_OK(r);
    if (!r.isOk()) return;
    const size_t processed = session.value()->cachedTokens().size();
    CHECK_EQ(int(r.value().stop), int(StopReason::Cancel));
    CHECK(r.value().outputIds.empty() && r.value().text.empty());
    CHECK_MSG(processed < prompt.size(), "the whole prompt (" << processed << " tokens) ran before the cancel");

    p.cancel = nullptr;
    auto resumed = session.value()->generate(prompt, p);
    CHECK_OK(resumed);
    auto fresh = Session::create(*model, {});
    auto reference = fresh.value()->generate(prompt, p);
    if (!resumed.isOk() || !reference.isOk()) return;
    CHECK_EQ(resumed.value().reusedTokens, int32_t(processed));
    CHECK_EQ(int(resumed.value().stop), int(StopReason::Length));
    CHECK(resumed.value().outputIds == reference.value().outputIds);
}

void checkEndIdsOutsideVocabulary(const fs::path& stories) {
    const fs::path gguf = ggufWith(stories, "eot-512.gguf", {{"tokenizer.ggml.eot_token_id", 512}});
    CHECK_ERR(Model::load({.path = gguf.string()}), StatusCode::DataLoss, "end-of-generation id 512 is outside");
    const fs::path hf = hfWith(stories, "hf-600", nlohmann::json::array({2, 600}));
    CHECK_ERR(Model::load({.path = hf.string()}), StatusCode::DataLoss, "end-of-generation id 600 is outside");
}

} // namespace

int main() {
    test::announce("stopping", "cpu");
    const fs::path stories = test::requireTestData("models/stories260K");
    g_dir = test::scratchDir("stopping");
    auto model = load(stories / "stories260K-f32.gguf");
    if (!model) return test::finish();
    g_prompt = model->encode("Once upon a time", true);
    const std::vector<int32_t> ids = greedyIds(*model, 40);
    CHECK_EQ(ids.size(), 40u);
    if (ids.size() != 40u) return test::finish();
    checkModelEndIds(stories, ids);
    checkCallerStops(*model, ids);
    checkCancelBeforePrompt(*model);
    checkCancelDuringPrompt();
    checkEndIdsOutsideVocabulary(stories);
    return test::finish();
}
