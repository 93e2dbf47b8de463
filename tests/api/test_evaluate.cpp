// Session::evaluate through the public headers alone: teacher-forced logits whose argmax chain is
// llama2.c's greedy reply for every stories260K reference prompt, the same rows whatever follows
// a token (causal) and whatever the session ran before, the state it leaves for generate(), and
// its refusals.
#include <algorithm>
#include <cmath>

#include "check.h"
#include "hearth/model.h"
#include "hearth/session.h"
#include "testdata.h"

using namespace hearth;

namespace {

int32_t argmaxRow(const std::vector<float>& logits, size_t row, int32_t vocab) {
    const auto first = logits.begin() + int64_t(row) * vocab;
    return int32_t(std::max_element(first, first + vocab) - first);
}

// Largest |a - b| over the first `count` values of both.
double maxDifference(const std::vector<float>& a, const std::vector<float>& b, size_t count) {
    double worst = 0;
    for (size_t i = 0; i < count; ++i) worst = std::max(worst, std::fabs(double(a[i]) - double(b[i])));
    return worst;
}

// run.c's greedy replies: row i of the reply's teacher-forced logits picks reply token i + 1.
void checkReferenceReplies(Session& session, int32_t vocab) {
    const auto records = test::readGreedyRecords(test::requireTestData("models/stories260K/reference_greedy.jsonl"));
    for (const test::GreedyRecord& r : records) {
        std::vector<int32_t> ids = r.promptIds;
        ids.insert(ids.end(), r.outputIds.begin(), r.outputIds.end());
        auto logits = session.evaluate(ids);
        CHECK_OK(logits);
        if (!logits.isOk()) continue;
        CHECK_EQ(logits.value().size(), ids.size() * size_t(vocab));
        size_t agree = 0;
        for (size_t k = 0; k < r.outputIds.size(); ++k)
            agree += argmaxRow(logits.value(), r.promptIds.size() - 1 + k, vocab) == r.outputIds[k];
        CHECK_MSG(agree == r.outputIds.size(), "'" << r.prompt << "': " << agree << " of " << r.outputIds.size()
                                                   << " reply tokens are the argmax of their row");
        CHECK(session.cachedTokens() == ids);
    }
}

void checkRows(const Model& model, Session& session) {
    const int32_t vocab = model.info().vocabSize;
    const std::vector<int32_t> prefix = model.encode("Once upon a time", true);
    std::vector<int32_t> longer = prefix;
    for (int32_t id : model.encode(" there was a dog", false)) longer.push_back(id);
    auto shortRows = session.evaluate(prefix);
    auto longRows = session.evaluate(longer);
    auto shortAgain = session.evaluate(prefix); // after another sequence: nothing of it is reused
    CHECK_OK(shortRows);
    CHECK_OK(longRows);
    CHECK_OK(shortAgain);
    if (!shortRows.isOk() || !longRows.isOk() || !shortAgain.isOk()) return;
    const size_t n = prefix.size() * size_t(vocab);
    CHECK(shortRows.value() == shortAgain.value());
    CHECK_MSG(maxDifference(shortRows.value(), longRows.value(), n) <= 1e-5,
              "a token's logits changed with the tokens after it");

    // The session now holds `prefix`: generate() on it reuses all but the last token, and its
    // greedy first token is the argmax of the last row.
    auto r = session.generate(prefix, {.maxTokens = 1, .useModelStopIds = false});
    CHECK_OK(r);
    if (!r.isOk()) return;
    CHECK_EQ(r.value().reusedTokens, int32_t(prefix.size() - 1));
    CHECK_EQ(r.value().outputIds.size(), size_t(1));
    if (!r.value().outputIds.empty())
        CHECK_EQ(r.value().outputIds[0], argmaxRow(shortRows.value(), prefix.size() - 1, vocab));
}

void checkRefusals(const Model& model) {
    auto created = Session::create(model, {.contextLength = 8});
    CHECK_OK(created);
    if (!created.isOk()) return;
    Session& s = *created.value();
    CHECK_OK(s.evaluate({1, 403}));
    CHECK_ERR(s.evaluate({}), StatusCode::InvalidArgument, "empty");
    CHECK(s.cachedTokens().empty()); // an error resets the session
    CHECK_ERR(s.evaluate({1, model.info().vocabSize}), StatusCode::InvalidArgument, "outside the vocabulary");
    CHECK_ERR(s.evaluate({1, -1}), StatusCode::InvalidArgument, "outside the vocabulary");
    CHECK_ERR(s.evaluate(std::vector<int32_t>(9, 1)), StatusCode::InvalidArgument, "more than the context of 8");
    auto full = s.evaluate(std::vector<int32_t>(8, 1));
    CHECK_OK(full);
    if (full.isOk()) CHECK_EQ(full.value().size(), size_t(8) * size_t(model.info().vocabSize));
}

} // namespace

int main() {
    test::announce("evaluate", "cpu");
    const auto path = test::requireTestData("models/stories260K/stories260K-f32.gguf");
    const auto model = Model::load({.path = path.string(), .threads = 1});
    auto session = model.isOk() ? Session::create(*model.value(), {.kvType = KvType::F32}) : Result<std::unique_ptr<Session>>(model.status());
    CHECK_OK(session);
    if (session.isOk()) {
        checkReferenceReplies(*session.value(), model.value()->info().vocabSize);
        checkRows(*model.value(), *session.value());
        checkRefusals(*model.value());
    }
    return test::finish();
}
