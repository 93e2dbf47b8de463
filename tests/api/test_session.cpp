// Generation through the public headers alone: one SamplingParams (greedy by default, the chat
// defaults sampling for real, the seed reproducing), validation naming the field, and a session's
// state seen from outside (cached tokens, reset, memory report).
#include <set>

#include "check.h"
#include "hearth/model.h"
#include "hearth/sampling.h"
#include "hearth/session.h"
#include "testdata.h"

using namespace hearth;

namespace {

GenerateResult generate(const Model& model, const std::vector<int32_t>& prompt, const GenerateParams& params) {
    auto session = Session::create(model, {.contextLength = 128});
    CHECK_OK(session);
    if (!session.isOk()) return {};
    auto r = session.value()->generate(prompt, params);
    CHECK_OK(r);
    return r.isOk() ? r.value() : GenerateResult{};
}

void checkSampling(const Model& model) {
    const std::vector<int32_t> prompt = model.encode("Once upon a time", true);
    GenerateParams params;
    params.maxTokens = 24;
    params.useModelStopIds = false;

    // The default is greedy: the seed changes nothing.
    const GenerateResult greedy = generate(model, prompt, params);
    CHECK_EQ(greedy.outputIds.size(), size_t(24));
    params.sampling.seed = 12345;
    CHECK(generate(model, prompt, params).outputIds == greedy.outputIds);

    // The chat defaults really sample: a seed reproduces its reply, and different seeds differ.
    params.sampling = SamplingParams::chatDefaults();
    CHECK(params.sampling.temperature > 0);
    std::set<std::vector<int32_t>> replies;
    for (uint64_t seed = 1; seed <= 4; ++seed) {
        params.sampling.seed = seed;
        const GenerateResult a = generate(model, prompt, params);
        CHECK(generate(model, prompt, params).outputIds == a.outputIds);
        replies.insert(a.outputIds);
    }
    CHECK_MSG(replies.size() > 1, "four seeds gave the same reply");

    // Bad settings are refused before any work, naming the field.
    params.sampling.topP = 1.5f;
    auto session = Session::create(model, {});
    CHECK_OK(session);
    if (!session.isOk()) return;
    CHECK_ERR(session.value()->generate(prompt, params), StatusCode::InvalidArgument, "topP");
    params.sampling = {};
    params.sampling.repetitionPenalty = 0.0f;
    CHECK_ERR(session.value()->generate(prompt, params), StatusCode::InvalidArgument, "repetitionPenalty");
}

// Every streamed piece carries the statistics so far: a count that grows to the reply's length, the
// time to the first token, and rates once they are measurable.
void checkLiveStats(const Model& model) {
    auto created = Session::create(model, {.contextLength = 128});
    CHECK_OK(created);
    if (!created.isOk()) return;
    GenerateParams params;
    params.maxTokens = 16;
    params.useModelStopIds = false;
    std::vector<GenerateStats> seen;
    params.onText = [&](std::string_view, const GenerateStats& stats) { seen.push_back(stats); };
    auto r = created.value()->generate(model.encode("Once upon a time", true), params);
    CHECK_OK(r);
    CHECK(!seen.empty());
    if (!r.isOk() || seen.empty()) return;
    for (size_t i = 0; i < seen.size(); ++i) {
        CHECK(seen[i].tokens >= 1 && seen[i].tokens <= 16);
        if (i > 0) CHECK(seen[i].tokens >= seen[i - 1].tokens);
        CHECK_EQ(seen[i].ttftMs, r.value().ttftMs);
        CHECK_EQ(seen[i].prefillTokPerS, r.value().prefillTokPerS);
    }
    CHECK_EQ(seen.back().tokens, int32_t(r.value().outputIds.size()));
    CHECK(r.value().ttftMs > 0 && r.value().ttftMs >= r.value().prefillMs);
    CHECK(r.value().prefillTokPerS > 0);
    CHECK(seen.back().decodeTokPerS > 0); // 15 forward passes after the first token
    if (seen.front().tokens == 1) CHECK(seen.front().decodeTokPerS < 0); // no decode step yet
}

void checkSessionState(const Model& model) {
    auto created = Session::create(model, {.contextLength = 64});
    CHECK_OK(created);
    if (!created.isOk()) return;
    Session& s = *created.value();
    CHECK_EQ(s.contextLength(), 64);
    CHECK(s.cachedTokens().empty());
    const std::vector<int32_t> prompt = model.encode("The dog", true);
    GenerateParams params;
    params.maxTokens = 5;
    params.useModelStopIds = false;
    auto r = s.generate(prompt, params);
    CHECK_OK(r);
    if (!r.isOk()) return;
    CHECK(r.value().stop == StopReason::Length);
    CHECK_EQ(std::string(stopReasonName(r.value().stop)), "length");
    // The prompt and every reply token but the last (never fed back).
    CHECK_EQ(s.cachedTokens().size(), prompt.size() + 4);
    const MemoryReport memory = s.memoryReport();
    CHECK(memory.weightsBytes > 0 && memory.kvCacheBytes > 0);
    CHECK_EQ(memory.totalBytes(), memory.weightsBytes + memory.kvCacheBytes + memory.recurrentStateBytes +
                                      memory.workspaceBytes + memory.deviceContextBytes);
    s.reset();
    CHECK(s.cachedTokens().empty());
    auto again = s.generate(prompt, params);
    CHECK_OK(again);
    if (again.isOk()) CHECK_EQ(again.value().reusedTokens, 0);
}

} // namespace

int main() {
    test::announce("session", "cpu");
    const auto path = test::requireTestData("models/stories260K/stories260K-f32.gguf");
    auto model = Model::load({.path = path.string(), .threads = 1});
    CHECK_OK(model);
    if (!model.isOk()) return test::finish();
    checkSampling(*model.value());
    checkSessionState(*model.value());
    checkLiveStats(*model.value());
    return test::finish();
}
