// `hearth-cli chat` driven through stdin as a user types: replies, /stats, /regen, /reset, an
// unknown command and --drop-old (stories260K, plain completion mode), --system and --no-think
// (a scripted Qwen3 model whose reply thinks first). The expected replies and numbers come from
// the same conversation run through ChatSession.
#include <fstream>
#include <regex>

#include "check.h"
#include "hearth/chat.h"
#include "scripted_model.h"
#include "test_helpers.h"
#include "testdata.h"

using namespace hearth;
namespace fs = std::filesystem;

namespace {

fs::path g_dir;

struct Chat {
    std::vector<std::string> outputs; // what follows each "> " prompt, one per input line + the last
    std::string err;
};

// `prompts`: how many "> " prompts to expect (-1: one per line, and one more at the end of input).
Chat chat(const std::string& args, const std::vector<std::string>& lines, int prompts = -1) {
    std::string input;
    for (const std::string& line : lines) input += line + "\n";
    const test::CliOutcome o = test::cli("chat --temp 0 --threads 1 " + args, input);
    CHECK_MSG(o.exitCode == 0, "chat " << args << ": exit " << o.exitCode << ": " << o.err);
    CHECK_MSG(o.out.find('\x1b') == std::string::npos, "escape codes written to a pipe");
    Chat c{{}, o.err};
    size_t start = std::string::npos;
    for (size_t i = 0; i + 1 < o.out.size(); ++i) {
        if (o.out.compare(i, 2, "> ") != 0 || (i > 0 && o.out[i - 1] != '\n')) continue;
        if (start != std::string::npos) c.outputs.push_back(o.out.substr(start, i - start));
        start = i + 2;
    }
    if (start != std::string::npos) c.outputs.push_back(o.out.substr(start));
    const size_t expected = prompts < 0 ? lines.size() + 1 : size_t(prompts);
    CHECK_MSG(c.outputs.size() == expected, "chat " << args << ": " << c.outputs.size() << " prompts in: " << o.out);
    c.outputs.resize(expected);
    return c;
}

// What /stats prints after `r` (the rates and time vary).
std::regex statsLine(const ChatReply& r, int32_t context) {
    return std::regex("prompt " + std::to_string(r.result.promptTokens) + " tokens \\(" +
                      std::to_string(r.result.reusedTokens) + " reused\\), prefill [0-9.]+ tok/s, decode [0-9.]+ tok/s, " +
                      "time to first token [0-9]+ ms, " + std::to_string(r.result.outputIds.size()) + " tokens generated \\(" +
                      stopReasonName(r.result.stop) + "\\), context " + std::to_string(r.contextUsed) + " / " +
                      std::to_string(context) + "\n");
}

GenerateParams greedy(int n) {
    GenerateParams p;
    p.maxTokens = n;
    return p;
}

ChatReply expectOk(Result<ChatReply> r) {
    CHECK_OK(r);
    return r.isOk() ? std::move(r).value() : ChatReply{};
}

void checkCommands(const Model& model, const std::string& path) {
    auto api = ChatSession::create(model, {}, {});
    const ChatReply a = expectOk(api.value()->send("Once upon a time", greedy(12)));
    const ChatReply b = expectOk(api.value()->regenerate(greedy(12)));
    api.value()->reset();
    const ChatReply c = expectOk(api.value()->send("Once upon a time", greedy(12)));
    const int32_t ctx = api.value()->session().contextLength();

    const Chat o = chat("-m " + path + " -n 12", {"/stats", "Once upon a time", "/stats", "/regen", "/stats", "/reset",
                                                  "/regen", "/help", "Once upon a time", "/stats", "/exit", "ignored"},
                          11);
    const auto& out = o.outputs;
    CHECK_EQ(out[0], std::string("(no reply yet)\n"));
    CHECK_EQ(out[1], a.message.content + "\n");
    CHECK_MSG(std::regex_match(out[2], statsLine(a, ctx)), out[2]);
    CHECK_EQ(out[3], b.message.content + "\n");
    CHECK_MSG(std::regex_match(out[4], statsLine(b, ctx)), out[4]); // the prompt but its last token reused
    CHECK_EQ(out[5], std::string("(conversation cleared)\n"));
    CHECK_EQ(out[6], std::string("\n"));
    CHECK(o.err.find("error: there is no reply to regenerate") != std::string::npos);
    CHECK_EQ(out[7], std::string("commands: /reset, /regen, /stats, /exit\n"));
    CHECK_EQ(out[8], c.message.content + "\n");
    CHECK_MSG(std::regex_match(out[9], statsLine(c, ctx)), out[9]); // nothing reused after /reset
    CHECK_EQ(out[10], std::string("")); // /exit: no prompt for the line after it
    CHECK(o.err.find("note: This model has no chat template") != std::string::npos);
}

// The system prompt (a chat template's; plain completion mode has none) is in every prompt, also
// after /reset.
void checkSystemPrompt(const Model& qwen, const test::ThinkingReply& reply) {
    ChatOptions options;
    options.systemPrompt = "Be brief.";
    auto api = ChatSession::create(qwen, {}, options);
    const ChatReply a = expectOk(api.value()->send("What is 2+2?", greedy(32)));
    auto plain = ChatSession::create(qwen, {}, {});
    CHECK(expectOk(plain.value()->send("What is 2+2?", greedy(32))).result.promptTokens < a.result.promptTokens);
    const int32_t ctx = api.value()->session().contextLength();

    const Chat o = chat("-m " + qwen.info().path + " --system 'Be brief.'",
                        {"What is 2+2?", "/stats", "/reset", "What is 2+2?", "/stats"});
    CHECK_EQ(o.outputs[0], reply.reasoning + "\n\n" + reply.answer + "\n");
    CHECK_MSG(std::regex_match(o.outputs[1], statsLine(a, ctx)), o.outputs[1]);
    CHECK_EQ(o.outputs[3], o.outputs[0]);
    CHECK_MSG(std::regex_match(o.outputs[4], statsLine(a, ctx)), o.outputs[4]); // /reset kept it
}

void checkOverflow(const Model& model, const std::string& path) {
    const std::string text = "The girl saw a red ball.";
    ChatOptions drop;
    drop.overflow = OverflowPolicy::DropOldest;
    auto api = ChatSession::create(model, {.contextLength = 64}, drop);
    std::vector<ChatReply> replies;
    for (int i = 0; i < 3; ++i) replies.push_back(expectOk(api.value()->send(text, greedy(8))));
    CHECK(replies[2].droppedMessages > 0 && replies[1].droppedMessages == 0);

    const std::string args = "-m " + path + " -n 8 --ctx 64";
    const Chat refused = chat(args, {text, text, text});
    CHECK_EQ(refused.outputs[1], replies[1].message.content + "\n");
    CHECK_EQ(refused.outputs[2], std::string("\n"));
    CHECK(refused.err.find("more than the context of 64 tokens; start a new chat or let old turns be dropped") !=
          std::string::npos);
    const Chat dropped = chat(args + " --drop-old", {text, text, text});
    CHECK_EQ(dropped.outputs[1], replies[1].message.content + "\n");
    CHECK_EQ(dropped.outputs[2], replies[2].message.content + "\n");
    const std::string note = "(dropped " + std::to_string(replies[2].droppedMessages) + " old messages to fit the context)";
    CHECK_MSG(dropped.err.find(note) != std::string::npos, dropped.err);
}

// Thinking is printed before the answer (dimmed on a terminal), a blank line between them.
void checkThinking(const Model& qwen, const test::ThinkingReply& reply) {
    const Chat thinking = chat("-m " + qwen.info().path, {"What is 2+2?"});
    CHECK_EQ(thinking.outputs[0], reply.reasoning + "\n\n" + reply.answer + "\n");
    const Chat direct = chat("-m " + qwen.info().path + " --no-think", {"What is 2+2?"});
    CHECK_EQ(direct.outputs[0], reply.answer + "\n");
}

} // namespace

// A model whose generation_config.json says do_sample: false is greedy in chat without --temp,
// and says so; an explicit option still wins.
void checkModelSampling(const fs::path& storiesHf) {
    const fs::path dir = g_dir / "stories-greedy";
    fs::create_directories(dir);
    for (const auto& entry : fs::directory_iterator(storiesHf))
        fs::copy_file(entry.path(), dir / entry.path().filename(), fs::copy_options::overwrite_existing);
    {
        std::ofstream config(dir / "generation_config.json");
        config << R"({"bos_token_id": 1, "eos_token_id": 2, "do_sample": false, "top_k": 5})";
    }
    const std::string input = "Once upon a time\n";
    const test::CliOutcome model = test::cli("chat --threads 1 -n 24 -m " + dir.string(), input);
    const test::CliOutcome greedy = test::cli("chat --threads 1 -n 24 --temp 0 --top-k 5 -m " + dir.string(), input);
    CHECK_MSG(model.exitCode == 0 && greedy.exitCode == 0, model.err << greedy.err);
    CHECK_MSG(model.err.find("sampling: temperature 0, top-k 5,") != std::string::npos, model.err);
    CHECK_MSG(model.out == greedy.out, "the model's greedy recommendation was not followed: " << model.out);
    const test::CliOutcome flag = test::cli("chat --threads 1 -n 24 --temp 0.8 --seed 3 -m " + dir.string(), input);
    CHECK_MSG(flag.err.find("sampling: temperature 0.8, top-k 5,") != std::string::npos, flag.err);
}

int main() {
    test::announce("cli_chat", "cpu");
    g_dir = test::startCliTest("cli_chat");
    const fs::path stories = test::requireTestData("models/stories260K/stories260K-f32.gguf");
    const fs::path tokenizer = test::requireTestData("models/qwen3-tokenizer/tokenizer.json");
    auto model = Model::load({.path = stories.string(), .threads = 1});
    CHECK_OK(model);
    if (!model.isOk()) return test::finish();
    checkCommands(*model.value(), stories.string());
    checkOverflow(*model.value(), stories.string());
    checkModelSampling(test::requireTestData("models/stories260K/hf"));
#if !HEARTH_HAS_BPE
    test::skipPart("the Qwen3 part needs a byte-level BPE build (HEARTH_BPE)");
    return test::finish();
#endif
    const test::ThinkingReply reply;
    const fs::path qwenPath = test::writeThinkingQwen3(g_dir, tokenizer, reply);
    if (qwenPath.empty()) return test::finish();
    auto qwen = Model::load({.path = qwenPath.string(), .threads = 1});
    CHECK_OK(qwen);
    if (!qwen.isOk()) return test::finish();
    checkSystemPrompt(*qwen.value(), reply);
    checkThinking(*qwen.value(), reply);
    return test::finish();
}
