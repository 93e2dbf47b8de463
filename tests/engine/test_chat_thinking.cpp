// Thinking across turns with Qwen3's real tokenizer and chat template (on a scripted model whose
// greedy reply thinks, then answers): the reply is split into reasoning and answer, each turn's
// prompt is what Qwen3's template makes of the history, the reasoning goes back to the template
// as reasoning_content; thinking off; regenerate() before any reply.
#include "check.h"
#include "hearth/chat.h"
#include "model/model_loader.h"
#include "scripted_model.h"
#include "testdata.h"
#include "runtime/model_internal.h"

using namespace hearth;

namespace {

const test::ThinkingReply kReply;

// The prompt as text, control tokens spelled out (decode() leaves them out).
std::string promptText(const Model& model, const std::vector<int32_t>& ids) {
    const Tokenizer& tok = *loadedModel(model).tokenizer;
    std::string text;
    for (int32_t id : ids) text += tok.tokenKind(id) == TokenKind::Control ? tok.tokenPiece(id) : tok.tokenBytes(id);
    return text;
}

GenerateParams greedy() {
    GenerateParams p;
    p.maxTokens = 32;
    return p;
}

std::string turn(const std::string& role, const std::string& content) {
    return "<|im_start|>" + role + "\n" + content + "<|im_end|>\n";
}

void checkThinkingTurns(const Model& model) {
    const int32_t imEnd = loadedModel(model).tokenizer->encode("<|im_end|>", false, true).front();
    auto created = ChatSession::create(model, {}, {});
    CHECK_OK(created);
    if (!created.isOk()) return;
    ChatSession& chat = *created.value();
    CHECK(chat.hasTemplate());

    std::string streamedReasoning, streamedContent;
    ChatStream stream;
    stream.onReasoning = [&](std::string_view p, const GenerateStats&) { streamedReasoning += p; };
    stream.onContent = [&](std::string_view p, const GenerateStats&) { streamedContent += p; };
    auto first = chat.send("What is 2+2?", greedy(), stream);
    CHECK_OK(first);
    if (!first.isOk()) return;
    CHECK_EQ(promptText(model, chat.lastPromptIds()), turn("user", "What is 2+2?") + "<|im_start|>assistant\n");
    const ChatReply& r1 = first.value();
    CHECK_EQ(r1.message.reasoning, kReply.reasoning);
    CHECK_EQ(r1.message.content, kReply.answer);
    CHECK_EQ(streamedReasoning, kReply.reasoning);
    CHECK_EQ(streamedContent, kReply.answer);
    CHECK_EQ(int(r1.result.stop), int(StopReason::Eos));
    CHECK_EQ(r1.result.stopTokenId, imEnd);
    CHECK_EQ(chat.history().back().reasoning, kReply.reasoning);

    // Qwen3's template renders the thinking of replies after the last real user query only, so a
    // follow-up question drops it. A typed <tool_response> would make the template treat the
    // message as a tool result and keep it; typed text never steers the template, so it gets the
    // structure of a plain question too.
    const std::string toolResult = "<tool_response>\n4\n</tool_response>";
    CHECK_OK(chat.send(toolResult, greedy()));
    CHECK_EQ(promptText(model, chat.lastPromptIds()), turn("user", "What is 2+2?") + turn("assistant", kReply.answer) +
                                                          turn("user", toolResult) + "<|im_start|>assistant\n");
    CHECK_OK(chat.send("And 3+3?", greedy()));
    CHECK_EQ(promptText(model, chat.lastPromptIds()),
             turn("user", "What is 2+2?") + turn("assistant", kReply.answer) + turn("user", toolResult) +
                 turn("assistant", kReply.answer) + turn("user", "And 3+3?") + "<|im_start|>assistant\n");
    CHECK_EQ(chat.history().size(), 6u);
}

// The history's reasoning goes back to the template as reasoning_content (the reply's content
// holds no <think> it could be recovered from): a ChatML template that renders it for every reply.
void checkReasoningPassedBack(const Model& model) {
    ChatOptions options;
    options.chatTemplate =
        "{%- for m in messages -%}{{ '<|im_start|>' + m.role + '\\n' }}{%- if m.reasoning_content -%}"
        "{{ '<think>\\n' + m.reasoning_content + '\\n</think>\\n\\n' }}{%- endif -%}{{ m.content + '<|im_end|>\\n' }}"
        "{%- endfor -%}{%- if add_generation_prompt -%}{{ '<|im_start|>assistant\\n' }}{%- endif -%}";
    auto created = ChatSession::create(model, {}, options);
    CHECK_OK(created);
    if (!created.isOk()) return;
    CHECK_OK(created.value()->send("What is 2+2?", greedy()));
    CHECK_OK(created.value()->send("And 3+3?", greedy()));
    CHECK_EQ(promptText(model, created.value()->lastPromptIds()),
             turn("user", "What is 2+2?") + "<|im_start|>assistant\n<think>\n" + kReply.reasoning + "\n</think>\n\n" +
                 kReply.answer + "<|im_end|>\n" + turn("user", "And 3+3?") + "<|im_start|>assistant\n");
}

void checkThinkingOff(const Model& model) {
    ChatOptions options;
    options.enableThinking = false;
    auto created = ChatSession::create(model, {}, options);
    CHECK_OK(created);
    if (!created.isOk()) return;
    auto reply = created.value()->send("What is 2+2?", greedy());
    CHECK_OK(reply);
    if (!reply.isOk()) return;
    CHECK_EQ(promptText(model, created.value()->lastPromptIds()),
             turn("user", "What is 2+2?") + "<|im_start|>assistant\n<think>\n\n</think>\n\n");
    CHECK(reply.value().message.reasoning.empty());
    CHECK_EQ(reply.value().message.content, kReply.answer);
}

void checkRegenerateWithoutReply(const Model& model) {
    ChatOptions options;
    options.systemPrompt = "Be brief.";
    auto created = ChatSession::create(model, {}, options);
    CHECK_OK(created);
    if (!created.isOk()) return;
    ChatSession& chat = *created.value();
    CHECK_ERR(chat.regenerate(greedy()), StatusCode::FailedPrecondition, "no reply to regenerate");
    CHECK_EQ(chat.history().size(), 1u); // the system prompt, untouched
    CHECK(chat.lastPromptIds().empty());  // nothing was rendered or run
    CHECK(chat.session().cachedTokens().empty());
    // After a reply and a reset there is again nothing to regenerate.
    CHECK_OK(chat.send("Hi", greedy()));
    chat.reset();
    CHECK_ERR(chat.regenerate(greedy()), StatusCode::FailedPrecondition, "no reply to regenerate");
    CHECK_EQ(chat.history().size(), 1u);
    CHECK_EQ(chat.history().front().role, std::string("system"));
}

} // namespace

int main() {
    test::announce("chat_thinking", "cpu");
#if !HEARTH_HAS_BPE
    test::skipTest("needs a byte-level BPE build (HEARTH_BPE) for the Qwen3 tokenizer");
#endif
    const auto tokenizer = test::requireTestData("models/qwen3-tokenizer/tokenizer.json");
    const auto path = test::writeThinkingQwen3(test::scratchDir("chat_thinking"), tokenizer, kReply);
    if (path.empty()) return test::finish();
    auto model = Model::load({.path = path.string(), .threads = 1});
    CHECK_OK(model);
    if (!model.isOk()) return test::finish();
    checkThinkingTurns(*model.value());
    checkReasoningPassedBack(*model.value());
    checkThinkingOff(*model.value());
    checkRegenerateWithoutReply(*model.value());
    return test::finish();
}
