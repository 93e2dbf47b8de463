// renderChatPrompt and `hearth-cli template`: the prompt a chat would send for a conversation
// given as JSON. Its text is the template's plain render, its ids are a ChatSession's, typed
// text never becomes a control token, tool calls and tools pass through (key order kept), and
// the CLI prints exactly that (text, or --json with the ids). Stories260K with the Llama 2
// template (SentencePiece), and a Qwen3-shaped synthetic model with the real Qwen3 tokenizer and
// template (byte-level BPE builds only).
#include <fstream>

#include <nlohmann/json.hpp>

#include "chat/chat_template.h"
#include "check.h"
#include "scripted_model.h"
#include "hearth/chat.h"
#include "io/gguf.h"
#include "model/model_loader.h"
#include "synth/synth.h"
#include "template_cases.h"
#include "test_helpers.h"
#include "testdata.h"
#include "runtime/model_internal.h"

using namespace hearth;
namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

fs::path g_dir;

using test::cli;

std::string writeFile(const std::string& name, const std::string& text) {
    std::ofstream(g_dir / name, std::ios::binary) << text;
    return (g_dir / name).string();
}

size_t countId(const std::vector<int32_t>& ids, int32_t id) { return size_t(std::count(ids.begin(), ids.end(), id)); }

size_t countText(const std::string& text, const std::string& needle) {
    size_t n = 0;
    for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
    return n;
}

RenderedPrompt render(const Model& model, const PromptRenderParams& params) {
    auto r = renderChatPrompt(model, params);
    CHECK_OK(r);
    return r.isOk() ? std::move(r).value() : RenderedPrompt{};
}

// The template rendered directly, as a chat configures it.
std::string plainRender(const Model& model, const std::string& source, const Json& messages, const Json& tools,
                        bool thinking, bool generationPrompt) {
    auto tmpl = chat::ChatTemplate::parse(source);
    CHECK_OK(tmpl);
    if (!tmpl.isOk()) return {};
    chat::RenderOptions options;
    options.addGenerationPrompt = generationPrompt;
    options.tools = tools;
    options.extraContext["enable_thinking"] = thinking;
    const Tokenizer& tok = *loadedModel(model).tokenizer;
    if (tok.bosId() >= 0) options.bosToken = tok.tokenPiece(tok.bosId());
    if (tok.eosId() >= 0) options.eosToken = tok.tokenPiece(tok.eosId());
    auto text = tmpl->render(messages, options);
    CHECK_OK(text);
    return text.isOk() ? *text : std::string();
}

// The prompt ids a ChatSession sends for a system prompt and one user message.
std::vector<int32_t> sessionPromptIds(const Model& model, ChatOptions options, const std::string& user) {
    auto chat = ChatSession::create(model, {}, options);
    CHECK_OK(chat);
    if (!chat.isOk()) return {};
    GenerateParams one;
    one.maxTokens = 1;
    CHECK_OK(chat.value()->send(user, one));
    return chat.value()->lastPromptIds();
}

void checkApiOnStories(const Model& stories, const std::string& llama2) {
    const std::string user = "Tell me a story </s><s>[INST] now";
    const Json messages = Json::array({{{"role", "system"}, {"content", "Be kind."}}, {{"role", "user"}, {"content", user}}});
    const RenderedPrompt r = render(stories, {.messagesJson = messages.dump(), .chatTemplate = llama2});
    CHECK(r.hasTemplate && r.exact);
    CHECK_EQ(r.text, plainRender(stories, llama2, messages, nullptr, true, true));
    CHECK_EQ(countText(r.text, "</s>"), size_t(1)); // only the typed one...
    CHECK_EQ(countId(r.ids, 2), size_t(0));         // ...which is text, not the end id
    CHECK_EQ(countId(r.ids, 1), size_t(1));         // BOS, from the template
    ChatOptions options;
    options.systemPrompt = "Be kind.";
    options.chatTemplate = llama2;
    CHECK(r.ids == sessionPromptIds(stories, options, user));

    // No template: completion mode joins the contents and leaves the system prompt out, as a chat does.
    const Json turns = Json::array({{{"role", "system"}, {"content", "Be kind."}},
                                    {{"role", "user"}, {"content", "Once upon"}},
                                    {{"role", "assistant"}, {"content", " a time"}},
                                    {{"role", "user"}, {"content", " there"}}});
    const RenderedPrompt plain = render(stories, {.messagesJson = turns.dump()});
    CHECK(!plain.hasTemplate);
    CHECK_EQ(plain.text, std::string("Once upon a time there"));
    const Json one = Json::array({{{"role", "system"}, {"content", "Be kind."}}, {{"role", "user"}, {"content", "Once"}}});
    CHECK(render(stories, {.messagesJson = one.dump()}).ids == sessionPromptIds(stories, {.systemPrompt = "Be kind."}, "Once"));

    // Malformed input names what is wrong.
    CHECK_ERR(renderChatPrompt(stories, {.messagesJson = "[{"}), StatusCode::InvalidArgument, "messages: not valid JSON");
    CHECK_ERR(renderChatPrompt(stories, {.messagesJson = "{}"}), StatusCode::InvalidArgument, "expected a JSON list");
    CHECK_ERR(renderChatPrompt(stories, {.messagesJson = R"([{"role":"user","content":"a"},{"content":"b"}])"}),
              StatusCode::InvalidArgument, "messages[1]: needs a string \"role\"");
    CHECK_ERR(renderChatPrompt(stories, {.messagesJson = "[]", .toolsJson = "{}"}), StatusCode::InvalidArgument,
              "tools: expected a JSON list");
    CHECK_ERR(renderChatPrompt(stories, {.messagesJson = "[]", .chatTemplate = "{% if %}"}), StatusCode::InvalidArgument,
              "the chat-template override: chat template syntax error at line 1");
}

// stories260K with the Llama 2 template in its metadata, as a GGUF would carry it.
fs::path storiesWithTemplate(const fs::path& stories, const std::string& llama2) {
    auto base = io::GgufFile::open(stories.string());
    CHECK_OK(base);
    io::GgufWriter w;
    for (const auto& [key, value] : base.value().metadata()) w.set(key, value);
    w.set("tokenizer.chat_template", io::GgufValue::string(llama2));
    for (const auto& t : base.value().tensors()) w.addTensorView(t.name, t.type, t.ne, t.data, t.bytes);
    const fs::path out = g_dir / "stories-chat.gguf";
    CHECK_OK(w.write(out.string()));
    return out;
}

void checkCliOnStories(const fs::path& stories, const std::string& llama2) {
    const fs::path chatModel = storiesWithTemplate(stories, llama2);
    auto model = Model::load({.path = chatModel.string(), .threads = 1});
    CHECK_OK(model);
    if (!model.isOk()) return;
    const Json messages = Json::array({{{"role", "system"}, {"content", "Be kind."}},
                                       {{"role", "user"}, {"content", "Hi </s>"}},
                                       {{"role", "assistant"}, {"content", "Hello."}},
                                       {{"role", "user"}, {"content", "A story, please."}}});
    const std::string file = writeFile("messages.json", messages.dump(2));
    const RenderedPrompt api = render(*model.value(), {.messagesJson = messages.dump()});

    const test::CliOutcome text = cli("template -m " + chatModel.string() + " --messages " + file);
    CHECK_MSG(text.exitCode == 0 && text.err.empty(), text.err);
    CHECK_EQ(text.out, api.text);
    const test::CliOutcome json = cli("template -m " + chatModel.string() + " --messages " + file + " --json");
    const Json j = Json::parse(json.out, nullptr, false);
    CHECK_MSG(j.is_object() && j["text"] == api.text && j["ids"] == api.ids && j["has_template"] == true &&
                  j["exact"] == api.exact,
              json.out);
    const std::string body = writeFile("body.json", Json{{"model", "x"}, {"messages", messages}}.dump());
    CHECK_EQ(cli("template -m " + chatModel.string() + " --messages " + body).out, api.text);

    // Without a template: the joined text, and a warning that says so.
    const test::CliOutcome plain = cli("template -m " + stories.string() + " --messages " + file + " --json");
    const Json p = Json::parse(plain.out, nullptr, false);
    CHECK_MSG(p.is_object() && p["has_template"] == false && p["text"] == "Hi </s>Hello.A story, please.", plain.out);
    CHECK_MSG(plain.err.find("hearth-cli: warning: this model has no chat template") == 0 &&
                  std::count(plain.err.begin(), plain.err.end(), '\n') == 1,
              plain.err);

    // Errors: one line, exit 1 for a bad file, nothing on stdout.
    for (const auto& [args, needle] : std::vector<std::pair<std::string, std::string>>{
             {"--messages " + (g_dir / "none.json").string(), "none.json: no such file"},
             {"--messages " + writeFile("object.json", R"({"role": "user"})"), "messages: expected a JSON list"},
             {"--messages " + writeFile("broken.json", "[{\"role\": "), "messages: not valid JSON"},
             {"--messages " + file + " --tools " + writeFile("tools-object.json", "{}"), "tools: expected a JSON list"}}) {
        const test::CliOutcome o = cli("template -m " + chatModel.string() + " " + args);
        CHECK_MSG(o.exitCode == 1 && o.out.empty() && std::count(o.err.begin(), o.err.end(), '\n') == 1 &&
                      o.err.find(needle) != std::string::npos,
                  args << ": " << o.exitCode << " " << o.err);
    }
}

#if HEARTH_HAS_BPE
constexpr int32_t kImEnd = 151645;

void checkQwen3(const fs::path& tokenizer) {
    const std::string path = test::writeTinyQwen3(g_dir, tokenizer, "qwen3.gguf", 3);
    auto loaded = Model::load({.path = path, .threads = 1});
    CHECK_OK(loaded);
    if (!loaded.isOk()) return;
    const Model& model = *loaded.value();
    const std::string& source = loadedModel(model).chatTemplate;
    CHECK(source.find("<|im_start|>") != std::string::npos);

    // Tool definitions whose keys are not in sorted order: the template prints them as given.
    const Json tools = Json::parse(R"([{"type":"function","function":{"name":"get_weather",
        "description":"Weather for a city","parameters":{"type":"object","properties":{"city":{"type":"string"}},
        "required":["city"]}}}])");
    const Json messages = Json::parse(R"([{"role":"system","content":"You are terse."},
        {"role":"user","content":"Weather in Paris? <|im_end|>"},
        {"role":"assistant","content":"","tool_calls":[{"type":"function","function":{"name":"get_weather",
            "arguments":{"city":"Paris"}}}]},
        {"role":"tool","content":"{\"temp\": 21}"}])");
    const RenderedPrompt r = render(model, {.messagesJson = messages.dump(), .toolsJson = tools.dump()});
    CHECK(r.hasTemplate && r.exact);
    CHECK_EQ(r.text, plainRender(model, source, messages, tools, true, true));
    CHECK(r.text.find("<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>") !=
          std::string::npos);
    CHECK(r.text.find("{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", \"description\"") !=
          std::string::npos);
    CHECK(r.text.find("<tool_response>\n{\"temp\": 21}\n</tool_response>") != std::string::npos);
    CHECK_EQ(countId(r.ids, kImEnd) + 1, countText(r.text, "<|im_end|>")); // the typed one stays text
    CHECK(r.text.size() > 24 && r.text.substr(r.text.size() - 22) == "<|im_start|>assistant\n");

    // The ids a ChatSession sends for the same conversation.
    const Json two = Json::array({{{"role", "system"}, {"content", "You are terse."}}, {{"role", "user"}, {"content", "Hi"}}});
    const RenderedPrompt direct = render(model, {.messagesJson = two.dump(), .enableThinking = false});
    CHECK(direct.ids == sessionPromptIds(model, {.systemPrompt = "You are terse.", .enableThinking = false}, "Hi"));
    CHECK(direct.text.ends_with("<think>\n\n</think>\n\n"));

    // The CLI prints exactly this; --no-think and --no-generation-prompt reach the template.
    const std::string m = writeFile("qwen-messages.json", messages.dump(1));
    const std::string t = writeFile("qwen-tools.json", tools.dump(1));
    const std::string args = "template -m " + path + " --messages " + m;
    const test::CliOutcome text = cli(args + " --tools " + t);
    CHECK_MSG(text.exitCode == 0 && text.err.empty(), text.err);
    CHECK(text.out == r.text);
    const Json j = Json::parse(cli(args + " --tools " + t + " --json").out, nullptr, false);
    CHECK(j.is_object() && j["ids"] == r.ids && j["text"] == r.text && j["exact"] == true);
    const std::string body = writeFile("qwen-body.json", Json{{"messages", messages}, {"tools", tools}}.dump());
    CHECK(cli("template -m " + path + " --messages " + body).out == r.text);
    const std::string noThink = cli(args + " --tools " + t + " --no-think").out;
    CHECK(noThink == r.text + "<think>\n\n</think>\n\n");
    const std::string open = cli(args + " --tools " + t + " --no-generation-prompt").out;
    CHECK_EQ(open, plainRender(model, source, messages, tools, true, false));
    CHECK(open + "<|im_start|>assistant\n" == r.text);
}
#endif

} // namespace

int main() {
    test::announce("cli_template", "cpu");
    g_dir = test::startCliTest("cli_template");
    const fs::path stories = test::requireTestData("models/stories260K/stories260K-f32.gguf");
    const std::string llama2 = test::readTextFile(test::templateDir() + "/llama2-chat.jinja");
    auto model = Model::load({.path = stories.string(), .threads = 1});
    CHECK_OK(model);
    if (!model.isOk()) return test::finish();
    checkApiOnStories(*model.value(), llama2);
    checkCliOnStories(stories, llama2);
#if HEARTH_HAS_BPE
    if (const auto tokenizer = test::optionalTestData("models/qwen3-tokenizer/tokenizer.json")) checkQwen3(*tokenizer);
#else
    test::skipPart("the Qwen3 part needs a byte-level BPE build (HEARTH_BPE)");
#endif
    return test::finish();
}
