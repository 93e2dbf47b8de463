// Chat sessions through the public headers: a conversation restored from its stored history (with
// the reply ids) continues exactly as the live one does, one restored from text alone still works,
// bad histories and templates are refused as documented, streamed pieces carry statistics, and a
// history set whole keeps the session's state.
#include "check.h"
#include "hearth/chat.h"
#include "hearth/model.h"
#include "testdata.h"

using namespace hearth;

namespace {

const char* kTemplate =
    "{% for m in messages %}[{{ m.role }}] {{ m.content }}\n{% endfor %}"
    "{% if add_generation_prompt %}[assistant]{% endif %}";

ChatOptions options() {
    ChatOptions o;
    o.chatTemplate = kTemplate;
    o.systemPrompt = "Tell a story.";
    return o;
}

GenerateParams params() {
    GenerateParams p;
    p.maxTokens = 12;
    p.useModelStopIds = false;
    return p;
}

std::vector<StoredMessage> stored(const std::vector<ChatMessage>& history, const std::vector<int32_t>& firstReplyIds) {
    std::vector<StoredMessage> out;
    for (const ChatMessage& m : history) out.push_back({m, {}});
    if (!firstReplyIds.empty()) out.at(2).replyIds = firstReplyIds; // system, user, assistant
    return out;
}

void checkRestore(const Model& model) {
    auto live = ChatSession::create(model, {.contextLength = 256}, options());
    CHECK_OK(live);
    if (!live.isOk()) return;
    ChatSession& a = *live.value();
    int pieces = 0, lastTokens = 0;
    ChatStream stream;
    stream.onContent = [&](std::string_view, const GenerateStats& s) {
        ++pieces;
        CHECK(s.tokens >= lastTokens);
        lastTokens = s.tokens;
    };
    auto first = a.send("Once upon a time", params(), stream);
    CHECK_OK(first);
    if (!first.isOk()) return;
    CHECK(pieces > 0);
    CHECK_EQ(lastTokens, int32_t(first.value().result.outputIds.size()));
    const std::vector<ChatMessage> afterFirst = a.history();
    CHECK_EQ(afterFirst.size(), size_t(3));
    auto second = a.send("The dog", params());
    CHECK_OK(second);
    if (!second.isOk()) return;

    // With the reply ids: the same prompt, token for token, and so the same greedy reply.
    auto restored = ChatSession::restore(model, {.contextLength = 256}, options(),
                                         stored(afterFirst, first.value().result.outputIds));
    CHECK_OK(restored);
    if (!restored.isOk()) return;
    ChatSession& b = *restored.value();
    CHECK_EQ(b.history().size(), afterFirst.size());
    CHECK_EQ(b.history().front().content, "Tell a story."); // the stored system message, once
    auto again = b.send("The dog", params());
    CHECK_OK(again);
    if (!again.isOk()) return;
    CHECK(b.lastPromptIds() == a.lastPromptIds());
    CHECK(again.value().result.outputIds == second.value().result.outputIds);
    CHECK_EQ(again.value().result.reusedTokens, 0); // a fresh session prefills it all once

    // From the text alone it still continues the conversation.
    auto fromText = ChatSession::restore(model, {.contextLength = 256}, options(), stored(afterFirst, {}));
    CHECK_OK(fromText);
    if (fromText.isOk()) {
        CHECK_OK(fromText.value()->send("The dog", params()));
        CHECK_EQ(fromText.value()->history().size(), size_t(5));
    }
}

// setHistory: a conversation handed over whole (as a server is) replaces the history but keeps
// the session's state, so what it shares with the last request is not computed again; the reply
// is the one a fresh session gives; a bad history leaves everything as it was.
void checkSetHistory(const Model& model) {
    auto chat = ChatSession::create(model, {.contextLength = 256}, options());
    CHECK_OK(chat);
    if (!chat.isOk()) return;
    ChatSession& c = *chat.value();
    CHECK_OK(c.send("Once upon a time", params()));
    const std::vector<ChatMessage> before = c.history();
    // The client sends the reply back as text (no reply ids) and a new question.
    CHECK_OK(c.setHistory(stored(before, {})));
    CHECK_EQ(c.history().size(), before.size());
    auto next = c.send("The dog", params());
    CHECK_OK(next);
    auto fresh = ChatSession::restore(model, {.contextLength = 256}, options(), stored(before, {}));
    CHECK_OK(fresh);
    if (!next.isOk() || !fresh.isOk()) return;
    auto expected = fresh.value()->send("The dog", params());
    CHECK_OK(expected);
    if (!expected.isOk()) return;
    CHECK(c.lastPromptIds() == fresh.value()->lastPromptIds());
    CHECK(next.value().result.outputIds == expected.value().result.outputIds);
    CHECK_MSG(next.value().result.reusedTokens > 0, "nothing of the earlier prompt was reused");

    // Another conversation without a system message: the options' system prompt stays first.
    CHECK_OK(c.setHistory({{{"user", "A cat", ""}, {}}, {{"assistant", "sat.", ""}, {}}}));
    CHECK_EQ(c.history().size(), size_t(3));
    CHECK_EQ(c.history().front().content, "Tell a story.");
    // A refused history changes nothing.
    const std::vector<ChatMessage> kept = c.history();
    CHECK_ERR(c.setHistory({{{"user", "hi", ""}, {}}, {{"system", "late", ""}, {}}}), StatusCode::InvalidArgument,
              "system");
    CHECK_EQ(c.history().size(), kept.size());
    CHECK_EQ(c.history().back().content, "sat.");
}

void checkErrors(const Model& model) {
    const int32_t vocab = model.info().vocabSize;
    const SessionParams sp{.contextLength = 64};
    CHECK_ERR(ChatSession::restore(model, sp, options(), {{{"wizard", "hi", ""}, {}}}), StatusCode::InvalidArgument,
              "wizard");
    CHECK_ERR(ChatSession::restore(model, sp, options(), {{{"user", "hi", ""}, {}}, {{"system", "late", ""}, {}}}),
              StatusCode::InvalidArgument, "system");
    CHECK_ERR(ChatSession::restore(model, sp, options(), {{{"user", "hi", ""}, {1}}}), StatusCode::InvalidArgument,
              "reply ids");
    CHECK_ERR(ChatSession::restore(model, sp, options(), {{{"user", "hi", ""}, {}}, {{"assistant", "x", ""}, {vocab}}}),
              StatusCode::InvalidArgument, std::to_string(vocab));
    ChatOptions broken = options();
    broken.chatTemplate = "{% for m in messages %}";
    CHECK_ERR(ChatSession::create(model, sp, broken), StatusCode::InvalidArgument, "template");
}

} // namespace

int main() {
    test::announce("chat", "cpu");
    const auto path = test::requireTestData("models/stories260K/stories260K-f32.gguf");
    auto model = Model::load({.path = path.string(), .threads = 1});
    CHECK_OK(model);
    if (!model.isOk()) return test::finish();
    checkRestore(*model.value());
    checkSetHistory(*model.value());
    checkErrors(*model.value());
    return test::finish();
}
