// Chat sessions without a template (plain completion mode, stories260K), the thinking splitter,
// overflow policies, regenerate/edit, and bad input.
#include "check.h"
#include "hearth/chat.h"
#include "chat/thinking_splitter.h"
#include "testdata.h"

using namespace hearth;

namespace {

GenerateParams greedy(int n) {
    GenerateParams p;
    p.maxTokens = n;
    p.stopIds = {1}; // stories260K ends a story with BOS
    return p;
}

void checkThinkingSplitter() {
    // Streamed in awkward pieces: tags split across pushes, layout newlines dropped.
    ThinkingSplitter s;
    std::string reasoning, content;
    for (std::string_view piece : {"<thi", "nk>\nLet me", " think.\n", "</th", "ink>\n\nThe answer", " is 4."}) {
        auto p = s.push(piece);
        reasoning += p.reasoning;
        content += p.content;
    }
    auto tail = s.flush();
    reasoning += tail.reasoning;
    content += tail.content;
    CHECK_EQ(reasoning, std::string("Let me think."));
    CHECK_EQ(content, std::string("The answer is 4."));
    CHECK_EQ(s.reasoning(), reasoning);
    CHECK_EQ(s.content(), content);

    ThinkingSplitter noThink;
    auto a = noThink.push("Hello <think> is just text");
    auto b = noThink.flush();
    CHECK_EQ(a.content + b.content, std::string("Hello <think> is just text"));
    CHECK(noThink.reasoning().empty());

    ThinkingSplitter opened(true); // the prompt ended with "<think>\n"
    auto c = opened.push("step one\n</think>\n\nDone");
    CHECK_EQ(c.reasoning, std::string("step one"));
    CHECK_EQ(c.content, std::string("Done"));

    ThinkingSplitter unfinished; // cut off while thinking: everything stays reasoning
    unfinished.push("<think>\nstill going");
    auto d = unfinished.flush();
    CHECK_EQ(unfinished.reasoning(), std::string("still going"));
    CHECK(unfinished.content().empty());
    (void)d;
}

void checkCompletionMode(const Model& model) {
    auto created = ChatSession::create(model, {}, {});
    CHECK_OK(created);
    ChatSession& chat = *created.value();
    CHECK(!chat.hasTemplate());
    CHECK(chat.modeNote().find("completion mode") != std::string::npos);

    std::string streamed;
    ChatStream stream;
    stream.onContent = [&](std::string_view p, const GenerateStats&) { streamed += p; };
    auto first = chat.send("Once upon a time", greedy(20), stream);
    CHECK_OK(first);
    if (!first.isOk()) return;
    CHECK_EQ(streamed, first.value().message.content);
    CHECK(first.value().message.content.rfind(", there was a little girl", 0) == 0);
    CHECK_EQ(chat.history().size(), 2u);

    // The next message continues the same text; everything before it is reused.
    auto second = chat.send(" The dog", greedy(10));
    CHECK_OK(second);
    const int32_t expectReused = int32_t(first.value().result.promptTokens + first.value().result.outputIds.size() - 1);
    CHECK_EQ(second.value().result.reusedTokens, expectReused);
    // Identical to a fresh session given the same prompt tokens.
    auto fresh = Session::create(model, {});
    auto again = fresh.value()->generate(chat.lastPromptIds(), greedy(10));
    CHECK(again.value().outputIds == second.value().result.outputIds);

    // Regenerate replaces the reply; edit replaces the last user message and its reply.
    auto regen = chat.regenerate(greedy(10));
    CHECK_OK(regen);
    CHECK_EQ(chat.history().size(), 4u);
    CHECK(regen.value().result.outputIds == second.value().result.outputIds);
    auto edited = chat.editLastUserMessage(" The cat", greedy(10));
    CHECK_OK(edited);
    CHECK_EQ(chat.history().size(), 4u);
    CHECK_EQ(chat.history()[2].content, std::string(" The cat"));

    // Bad input: empty message; invalid UTF-8 is replaced, never a crash.
    CHECK_ERR(chat.send("", greedy(5)), StatusCode::InvalidArgument, "empty");
    auto bad = chat.send(std::string("caf\xC3 \xFF"), greedy(3));
    CHECK_OK(bad);
    CHECK(chat.history()[4].content.find("\xEF\xBF\xBD") != std::string::npos);

    chat.reset();
    CHECK(chat.history().empty());
    CHECK(chat.session().cachedTokens().empty());
}

void checkOverflow(const Model& model) {
    const std::string longText = " The little girl went to the park and saw a big red ball and a small blue bird.";
    ChatOptions refuse;
    refuse.systemPrompt = "Once upon a time";
    refuse.replyReserveTokens = 16;
    auto a = ChatSession::create(model, {.contextLength = 96}, refuse);
    CHECK_OK(a);
    int sent = 0;
    Status last;
    for (int i = 0; i < 10 && last.isOk(); ++i) {
        auto r = a.value()->send(longText, greedy(8));
        last = r.status();
        sent += r.isOk();
    }
    CHECK_ERR(Result<int>(last), StatusCode::FailedPrecondition, "more than the context of 96");
    CHECK_EQ(a.value()->history().size(), size_t(1 + 2 * sent)); // the refused request left no trace

    ChatOptions drop = refuse;
    drop.overflow = OverflowPolicy::DropOldest;
    auto b = ChatSession::create(model, {.contextLength = 96}, drop);
    int dropped = 0;
    for (int i = 0; i < 10; ++i) {
        auto r = b.value()->send(longText, greedy(8));
        CHECK_OK(r);
        if (r.isOk()) dropped += r.value().droppedMessages;
    }
    CHECK(dropped > 0);
    CHECK_EQ(b.value()->history().front().role, std::string("system"));
    CHECK(b.value()->history().size() < 21u);
}

} // namespace

int main() {
    test::announce("chat_session", "cpu");
    checkThinkingSplitter();
    const auto path = test::requireTestData("models/stories260K/stories260K-f32.gguf");
    auto model = Model::load({.path = path.string(), .threads = 1});
    CHECK_OK(model);
    if (!model.isOk()) return test::finish();
    checkCompletionMode(*model.value());
    checkOverflow(*model.value());
    return test::finish();
}
