// Sessions: the next turn reuses the cached prefix and gives exactly what a fresh session gives;
// edits rewind to the common prefix; stop strings, limits and cancellation (counted in tokens).
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "check.h"
#include "hearth/engine.h"
#include "chat/stop_strings.h"
#include "testdata.h"
#include "runtime/session_testing.h"

using namespace hearth;

namespace {

GenerateResult run(Session& s, const std::vector<int32_t>& ids, GenerateParams p = {}) {
    if (p.maxTokens == 256) p.maxTokens = 24;
    p.stopIds = {1};
    auto r = s.generate(ids, p);
    CHECK_OK(r);
    return r.isOk() ? r.value() : GenerateResult{};
}

std::vector<int32_t> concat(std::vector<int32_t> a, const std::vector<int32_t>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

void checkPrefixReuse(const Model& model) {
    auto session = Session::create(model, {});
    CHECK_OK(session);
    Session& s = *session.value();
    const std::vector<int32_t> turn1 = model.encode("Once upon a time", true);
    const GenerateResult a = run(s, turn1);
    CHECK_EQ(a.reusedTokens, 0);
    // The cache holds the prompt and every generated token but the last (never fed back).
    CHECK_EQ(s.cachedTokens().size(), turn1.size() + a.outputIds.size() - 1);

    // Next turn: the whole conversation so far plus new text. Only the new tokens are processed.
    const std::vector<int32_t> more = model.encode(" The dog", false);
    const std::vector<int32_t> turn2 = concat(concat(turn1, a.outputIds), std::vector<int32_t>(more.begin() + 1, more.end()));
    const GenerateResult b = run(s, turn2);
    CHECK_EQ(b.reusedTokens, int32_t(turn1.size() + a.outputIds.size() - 1));
    auto fresh = Session::create(model, {});
    const GenerateResult c = run(*fresh.value(), turn2);
    CHECK_EQ(c.reusedTokens, 0);
    CHECK_MSG(b.outputIds == c.outputIds, "reused-prefix output differs from a fresh session's");

    // Edit: a prompt that shares only its first 3 tokens rewinds to them.
    std::vector<int32_t> edited(turn1.begin(), turn1.begin() + 3);
    const std::vector<int32_t> tail = model.encode(" little cat", false);
    edited.insert(edited.end(), tail.begin() + 1, tail.end());
    const GenerateResult d = run(s, edited);
    CHECK_EQ(d.reusedTokens, 3);
    auto fresh2 = Session::create(model, {});
    CHECK(run(*fresh2.value(), edited).outputIds == d.outputIds);

    // Regenerate: the same prompt again reuses all but its last token and repeats the answer.
    const GenerateResult e = run(s, edited);
    CHECK_EQ(e.reusedTokens, int32_t(edited.size() - 1));
    CHECK(e.outputIds == d.outputIds);
}

void checkStopStrings(const Model& model) {
    auto session = Session::create(model, {.kvType = KvType::F32}); // run.c's greedy story
    const auto prompt = model.encode("Once upon a time", true);
    const GenerateResult plain = run(*session.value(), prompt);
    CHECK(plain.text.find(" named Lily") != std::string::npos);

    GenerateParams p;
    p.stopStrings = {"med Li", "never appears"};
    std::string streamed;
    p.onText = [&](std::string_view piece, const GenerateStats&) { streamed += piece; };
    const GenerateResult r = run(*session.value(), prompt, p);
    CHECK_EQ(int(r.stop), int(StopReason::StopString));
    CHECK_EQ(r.text, plain.text.substr(0, plain.text.find("med Li")));
    CHECK_EQ(streamed, r.text);

    StopStringFilter f({"<|end|>"});
    std::string out = f.push("Hello <|");
    CHECK_EQ(out, std::string("Hello "));  // "<|" might start the stop string: held
    out += f.push("en");
    CHECK_EQ(out, std::string("Hello "));
    out += f.push("x and more");
    CHECK_EQ(out, std::string("Hello <|enx and more")); // it did not: released
    out += f.push(" <|end|> tail");
    CHECK(f.stopped());
    CHECK_EQ(out, std::string("Hello <|enx and more "));
    CHECK_EQ(f.text(), out);
}

void checkLimitsAndCancel(const Model& model) {
    auto session = Session::create(model, {.contextLength = 12});
    const auto prompt = model.encode("Once upon a time", true); // 5 tokens
    GenerateParams p;
    p.maxTokens = 0;
    CHECK_EQ(run(*session.value(), prompt, p).outputIds.size(), 0u);
    p.maxTokens = 100;
    const GenerateResult full = run(*session.value(), prompt, p);
    CHECK_EQ(int(full.stop), int(StopReason::Context)); // the context filled before maxTokens
    CHECK_EQ(std::string(stopReasonName(full.stop)), std::string("context"));
    CHECK_EQ(full.outputIds.size(), 12u - 5u + 1u); // the context fills; the last token needs no slot
    p.maxTokens = int32_t(full.outputIds.size()); // both limits at once: maxTokens is what stopped it
    CHECK_EQ(int(run(*session.value(), prompt, p).stop), int(StopReason::Length));

    // Cancel from the callback after 5 tokens: takes effect before the 6th.
    auto s2 = Session::create(model, {});
    std::atomic<bool> cancel{false};
    int pieces = 0;
    GenerateParams c;
    c.maxTokens = 50;
    c.cancel = &cancel;
    c.onText = [&](std::string_view, const GenerateStats&) {
        if (++pieces == 5) cancel = true;
    };
    const GenerateResult r = run(*s2.value(), prompt, c);
    CHECK_EQ(int(r.stop), int(StopReason::Cancel));
    CHECK_EQ(r.outputIds.size(), 5u);

    // Cancel from another thread while decoding is slowed by the test hook: it stops within one
    // token of the count the other thread saw. The wait ends when the generation does (a failed
    // or short one makes the test fail instead of waiting forever), and after 60 s at most.
    auto s3 = Session::create(model, {});
    CHECK_OK(s3);
    if (!s3.isOk()) return;
    std::atomic<int> seen{0};
    std::atomic<bool> cancel2{false}, finished{false};
    GenerateParams t;
    t.maxTokens = 200;
    t.cancel = &cancel2;
    t.onText = [&](std::string_view, const GenerateStats&) { ++seen; };
    int seenAtCancel = -1;
    std::thread canceller([&] {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (seen.load() < 4 && !finished && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        seenAtCancel = seen.load();
        cancel2 = true;
    });
    const GenerateResult r2 = run(*s3.value(), prompt, t);
    finished = true;
    canceller.join();
    CHECK_MSG(seenAtCancel >= 4, "the generation ended before the other thread saw 4 pieces: " << seenAtCancel);
    CHECK_EQ(int(r2.stop), int(StopReason::Cancel));
    CHECK_MSG(int(r2.outputIds.size()) <= seenAtCancel + 1, r2.outputIds.size() << " tokens after cancel at " << seenAtCancel);
}

} // namespace

int main() {
    test::announce("session", "cpu");
    SessionTesting::setDecodeDelayMs(20); // time to cancel from another thread mid-reply
    const auto path = test::requireTestData("models/stories260K/stories260K-f32.gguf");
    auto model = Model::load({.path = path.string(), .threads = 1});
    CHECK_OK(model);
    if (!model.isOk()) return test::finish();
    checkPrefixReuse(*model.value());
    checkStopStrings(*model.value());
    checkLimitsAndCancel(*model.value());
    return test::finish();
}
