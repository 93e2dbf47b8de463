// Qwen3.5's recurrent state in a CPU session: a Gated DeltaNet layer cannot cut its past at a
// position the way a KV cache can, so the session keeps snapshots (the end of each prompt, each
// turn boundary, ChatSession's history before the reply's opening) and goes back to the latest
// one at or before where a new prompt diverges. Regenerate, edit and the next turn after a
// template that rewrites the previous reply must restore such a snapshot, re-run only the gap,
// and give what a fresh session gives. The memory report and the estimate show the state.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "check.h"
#include "hearth/engine.h"
#include "qwen35_builder.h"
#include "recurrent_guard.h"
#include "runtime/session_testing.h"
#include "test_helpers.h"
#include "testdata.h"

using namespace hearth;
namespace fs = std::filesystem;

namespace {

std::vector<int32_t> concat(std::vector<int32_t> a, const std::vector<int32_t>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

GenerateParams greedy(int32_t tokens) {
    GenerateParams p;
    p.maxTokens = tokens;
    p.useModelStopIds = false;
    return p;
}

struct Run {
    GenerateResult result;
    std::vector<float> logits; // every forward pass it ran
};

Run generate(Session& session, const std::vector<int32_t>& prompt, const GenerateParams& params) {
    Run run;
    auto r = SessionTesting::generateWithLogits(session, prompt, params, run.logits);
    CHECK_OK(r);
    if (r.isOk()) run.result = r.value();
    return run;
}

// The last forward pass's logits of `run` against a fresh session's on the same prompt.
void checkLikeFresh(const Model& model, const char* what, const std::vector<int32_t>& prompt, const Run& run,
                    int32_t expectedReuse) {
    auto fresh = Session::create(model, {.contextLength = 128, .kvType = KvType::F32});
    CHECK_OK(fresh);
    if (!fresh.isOk()) return;
    const Run reference = generate(*fresh.value(), prompt, greedy(int32_t(run.result.outputIds.size())));
    const size_t vocab = size_t(model.info().vocabSize);
    // The first reply token's logits: the last prompt token's pass.
    const size_t firstOurs = (prompt.size() - 1 - size_t(run.result.reusedTokens)) * vocab;
    const size_t firstFresh = (prompt.size() - 1) * vocab;
    CHECK(run.logits.size() >= firstOurs + vocab && reference.logits.size() >= firstFresh + vocab);
    if (run.logits.size() < firstOurs + vocab || reference.logits.size() < firstFresh + vocab) return;
    const std::vector<float> ours(run.logits.begin() + long(firstOurs), run.logits.end());
    const std::vector<float> want(reference.logits.begin() + long(firstFresh), reference.logits.end());
    const double error = test::relativeError(ours, want);
    std::printf("%-10s reused %3d of %3zu prompt tokens (expected %3d); reply %s a fresh session's, logits differ by %.1e\n",
                what, run.result.reusedTokens, prompt.size(), expectedReuse,
                run.result.outputIds == reference.result.outputIds ? "equals" : "DIFFERS from", error);
    CHECK_EQ(run.result.reusedTokens, expectedReuse);
    CHECK(run.result.outputIds == reference.result.outputIds);
    CHECK_MSG(error == 0.0, what << ": logits differ from a fresh session's by " << error);
}

void checkSessionRewinds(const Model& model) {
    auto made = Session::create(model, {.contextLength = 128, .kvType = KvType::F32});
    CHECK_OK(made);
    if (!made.isOk()) return;
    Session& s = *made.value();
    const std::vector<int32_t> p1 = {1, 40, 77, 123, 260, 18, 99, 301, 45, 67, 8, 150, 222, 31, 5, 290, 110, 64, 20, 33};
    const Run first = generate(s, p1, greedy(6));
    s.markTurnBoundary(); // after the reply: p1 + 5 of its 6 tokens ran
    const int32_t boundary = int32_t(p1.size()) + 5;

    const Run again = generate(s, p1, greedy(6)); // regenerate: back to the end of the prompt
    checkLikeFresh(model, "regenerate", p1, again, int32_t(p1.size()) - 1);
    CHECK(again.result.outputIds == first.result.outputIds);
    s.markTurnBoundary();

    const std::vector<int32_t> user = {12, 300, 41, 77, 190, 14, 250, 6};
    const std::vector<int32_t> p2 = concat(concat(p1, first.result.outputIds), user);
    const Run second = generate(s, p2, greedy(5)); // the next turn continues the live state
    checkLikeFresh(model, "next turn", p2, second, boundary);
    s.markTurnBoundary();

    std::vector<int32_t> edited = user;
    edited[2] = 199;
    const std::vector<int32_t> p2e = concat(concat(p1, first.result.outputIds), edited);
    const Run edit = generate(s, p2e, greedy(5)); // back to the turn boundary before the edit
    checkLikeFresh(model, "edit", p2e, edit, boundary);

    // A prompt that keeps the state inside its prefill (checkpointAt), then one that diverges
    // just after that point.
    std::vector<int32_t> p3 = p2e;
    p3[size_t(boundary) + 1] = 9;
    GenerateParams marked = greedy(3);
    marked.checkpointAt = int32_t(p3.size()) - 4;
    checkLikeFresh(model, "marked", p3, generate(s, p3, marked), boundary);
    std::vector<int32_t> p4 = p3;
    p4[p4.size() - 2] = 7;
    checkLikeFresh(model, "resumed", p4, generate(s, p4, greedy(3)), marked.checkpointAt);

    auto all = s.evaluate(p1); // from the start: every snapshot beyond it is gone
    CHECK_OK(all);
    // a fresh session on the same (fast) kernels as `s`
    const std::vector<float> teacher = test::teacherForcedLogits(model.info().path, p1, 2, "", CpuKernels::Fast);
    CHECK_MSG(all.isOk() && test::relativeError(all.value(), teacher) == 0.0, "evaluate after rewinds differs");
}

// A chat whose template drops the reply's thinking from the history: the next turn diverges at
// the reply's opening, before the end of the previous prompt.
void checkChatTurns(const Model& model) {
    const SessionParams sp{.contextLength = 256, .kvType = KvType::F32};
    auto chat = ChatSession::create(model, sp, {});
    CHECK_OK(chat);
    if (!chat.isOk()) return;
    ChatSession& c = *chat.value();
    auto one = c.send("hello there", greedy(6));
    auto two = c.send("and then", greedy(6));
    CHECK_OK(one);
    CHECK_OK(two);
    if (!one.isOk() || !two.isOk()) return;
    std::printf("chat turn 2 reused %d of %d prompt tokens\n", two->result.reusedTokens, two->result.promptTokens);
    // "U:hello there|" was kept before "A:<think>"; the history renders "A:" + content instead.
    CHECK(two->result.reusedTokens > 0 && two->result.reusedTokens < one->result.promptTokens);

    auto fresh = ChatSession::restore(model, sp, {},
                                      {{{"user", "hello there", ""}, {}}, {one->message, one->result.outputIds}});
    CHECK_OK(fresh);
    if (!fresh.isOk()) return;
    auto twoFresh = fresh.value()->send("and then", greedy(6));
    CHECK_OK(twoFresh);
    CHECK(twoFresh.isOk() && twoFresh->result.outputIds == two->result.outputIds);

    auto regenerated = c.regenerate(greedy(6));
    CHECK_OK(regenerated);
    CHECK(regenerated.isOk() && regenerated->result.outputIds == two->result.outputIds &&
          regenerated->result.reusedTokens == two->result.promptTokens - 1);
    auto edited = c.editLastUserMessage("or else", greedy(6));
    auto editedFresh = fresh.value()->editLastUserMessage("or else", greedy(6));
    CHECK_OK(edited);
    CHECK_OK(editedFresh);
    CHECK(edited.isOk() && editedFresh.isOk() && edited->result.outputIds == editedFresh->result.outputIds);
    if (edited.isOk()) std::printf("chat edit reused %d of %d\n", edited->result.reusedTokens, edited->result.promptTokens);
    // The edit diverges inside the last user message: back to the first turn's history.
    CHECK(edited.isOk() && edited->result.reusedTokens == two->result.reusedTokens);
}

void checkMemory(const Model& model, const test::Qwen35Spec& spec) {
    auto made = Session::create(model, {.contextLength = 128, .kvType = KvType::F32});
    CHECK_OK(made);
    if (!made.isOk()) return;
    const MemoryReport report = made.value()->memoryReport();
    // 3 Gated DeltaNet layers: 4 heads of 16 x 16 fp32 and 3 conv inputs of 2*32+64 channels.
    const uint64_t live = 3ull * (4 * 16 * 16 + 3 * (2 * 32 + 64)) * 4;
    CHECK_EQ(spec.layers, 4);
    std::printf("memory: recurrent %llu bytes (live %llu), KV %llu bytes\n", (unsigned long long)report.recurrentStateBytes,
                (unsigned long long)live, (unsigned long long)report.kvCacheBytes);
    CHECK(report.recurrentStateBytes >= live && report.recurrentStateBytes % live == 0);
    CHECK_EQ(report.kvCacheBytes, uint64_t(2 * 1 * 128 * 32 * 4)); // the one attention layer only
    auto estimate = estimateMemory(model.info().path, 128, KvType::F32, DeviceKind::Cpu);
    CHECK_OK(estimate);
    if (!estimate.isOk()) return;
    CHECK_EQ(estimate->recurrentStateBytes, report.recurrentStateBytes);
    CHECK_EQ(estimate->kvCacheBytes, report.kvCacheBytes);
    CHECK_EQ(estimate->workspaceBytes, report.workspaceBytes);
    CHECK_EQ(estimate->decode.recurrentState, live);
}

} // namespace

int main() {
    test::announce("qwen35_state", "cpu");
    const fs::path dir = test::scratchDir("qwen35_state");
    test::Qwen35Spec spec;
    test::writeQwen35HfFolder(spec, dir / "hf");
    std::ofstream(dir / "hf" / "chat_template.jinja")
        << "{%- for m in messages -%}{%- if m.role == 'assistant' -%}A:{{ m.content }}|{%- else -%}U:{{ m.content }}|"
           "{%- endif -%}{%- endfor -%}{%- if add_generation_prompt -%}A:<think>{%- endif -%}";
    auto model = Model::load({.path = (dir / "hf").string(), .device = DeviceKind::Cpu, .threads = 2});
    CHECK_OK(model);
    if (!model.isOk()) return test::finish();
    checkSessionRewinds(*model.value());
    checkChatTurns(*model.value());
    checkMemory(*model.value(), spec);
    test::checkRecurrentPositionGuard((dir / "hf").string(), DeviceKind::Cpu);
    return test::finish();
}
