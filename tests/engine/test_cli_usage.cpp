// hearth-cli as a newcomer meets it: --help for every command (and every option it lists is one
// the command takes), --version, usage errors (exit 2, one line naming the option and what it
// accepts, no internal names), --ctx against the trained context and RoPE scaling, "stop:
// context", undefined rates, the warnings, tokenize's stdin, synth's tokenizer size, the CUDA
// reason and output paths in missing folders.
#include <dlfcn.h>

#include <fstream>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "check.h"
#include "model_builder.h"
#include "test_helpers.h"
#include "testdata.h"

using namespace hearth;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

fs::path g_dir;
std::string g_stories; // stories260K-f32.gguf: trained for 512 tokens, no chat template

using test::cli;

size_t lineCount(const std::string& text) { return size_t(std::count(text.begin(), text.end(), '\n')); }

const char* const kCommands[] = {"run", "chat", "serve", "template", "inspect", "bench", "quantize", "synth", "tokenize", "devices"};

// Every option a help text lists (at the start of its lines: "  -m, --model MODEL  ...").
std::set<std::string> listedOptions(const std::string& help) {
    std::set<std::string> options;
    const std::regex option(R"((?:^  |, )(--?[a-zA-Z][a-z-]*))");
    std::istringstream lines(help);
    for (std::string line; std::getline(lines, line);)
        for (std::sregex_iterator it(line.begin(), line.end(), option), end; it != end; ++it) options.insert((*it)[1]);
    return options;
}

void checkHelpAndVersion() {
    const test::CliOutcome top = cli("--help");
    CHECK_EQ(top.exitCode, 0);
    for (const char* command : kCommands)
        CHECK_MSG(top.out.find(std::string("  ") + command + " ") != std::string::npos, command << " not in --help");
    const test::CliOutcome bare = cli("");
    CHECK_EQ(bare.exitCode, 2);
    CHECK(bare.out.empty() && bare.err.rfind("usage: hearth-cli", 0) == 0);

    for (const char* command : kCommands) {
        const test::CliOutcome help = cli(std::string(command) + " --help");
        CHECK_MSG(help.exitCode == 0 && help.err.empty(), command << " --help: " << help.exitCode << " " << help.err);
        CHECK_MSG(help.out.rfind(std::string("usage: hearth-cli ") + command, 0) == 0, help.out);
        CHECK_EQ(cli(std::string("help ") + command).out, help.out);
        const std::set<std::string> options = listedOptions(help.out);
        CHECK_MSG(options.size() >= 2 || std::string(command) == "devices", command << ": " << options.size() << " options");
        for (const std::string& option : options) { // each one the command knows
            const test::CliOutcome o = cli(std::string(command) + " " + option);
            CHECK_MSG(o.err.find("unknown option") == std::string::npos, command << " " << option << ": " << o.err);
        }
    }
    const std::set<std::string> run = listedOptions(cli("run --help").out);
    for (const char* option : {"-m", "-p", "--prompt-ids", "-n", "--temp", "--top-k", "--top-p", "--min-p",
                               "--repeat-penalty", "--seed", "--ctx", "--allow-long-context", "--json"})
        CHECK_MSG(run.count(option), "run --help lacks " << option);
    const std::set<std::string> tmpl = listedOptions(cli("template --help").out);
    for (const char* option : {"-m", "--messages", "--tools", "--no-think", "--no-generation-prompt", "--json"})
        CHECK_MSG(tmpl.count(option), "template --help lacks " << option);

    // --version: the project's version from CMakeLists.txt.
    const std::string cmake = test::readTextFile(fs::path(HEARTH_SOURCE_DIR) / "CMakeLists.txt");
    std::smatch m;
    CHECK(std::regex_search(cmake, m, std::regex(R"(project\(Hearth VERSION ([0-9.]+))")));
    const test::CliOutcome version = cli("--version");
    CHECK_EQ(version.exitCode, 0);
    CHECK_EQ(version.out, "hearth-cli " + m[1].str() + "\n");
}

// A usage error: exit 2, nothing on stdout, one line on stderr with every needle, no internal
// names, pointing to the command's help.
void expectUsage(const std::string& args, const std::vector<std::string>& needles) {
    const test::CliOutcome o = cli(args);
    CHECK_MSG(o.exitCode == 2, "`" << args << "` exited with " << o.exitCode << ": " << o.err);
    CHECK_MSG(o.out.empty(), "`" << args << "` printed " << o.out);
    CHECK_MSG(lineCount(o.err) == 1, "`" << args << "`: " << o.err);
    for (const std::string& needle : needles)
        CHECK_MSG(o.err.find(needle) != std::string::npos, "`" << args << "`: '" << o.err << "' lacks '" << needle << "'");
    for (const char* internal : {"SamplerParams", "GenerateParams", "Params.", "::"})
        CHECK_MSG(o.err.find(internal) == std::string::npos, "`" << args << "`: " << o.err);
    const std::string command = args.substr(0, args.find(' '));
    CHECK_MSG(o.err.find("(see hearth-cli " + command + " --help)") != std::string::npos || command == "frobnicate",
              o.err);
}

void checkUsageErrors() {
    const std::string run = "run -m " + g_stories + " -p Once -n 2 ";
    expectUsage(run + "--temp -1", {"option --temp: '-1' is out of range", "a number >= 0 (0 = greedy)"});
    expectUsage(run + "--temp warm", {"option --temp: 'warm' is not a number"});
    expectUsage(run + "--top-p 0", {"option --top-p", "(0, 1] (1 = off)"});
    expectUsage(run + "--top-p 1.5", {"option --top-p", "(0, 1]"});
    expectUsage(run + "--min-p 2", {"option --min-p", "[0, 1] (0 = off)"});
    expectUsage(run + "--repeat-penalty 0", {"option --repeat-penalty", "> 0 (1 = off)"});
    expectUsage(run + "--top-k -1", {"option --top-k", ">= 0 (0 = off)"});
    expectUsage(run + "--seed -1", {"option --seed", "from 0 to"});
    expectUsage(run + "-n -3", {"option -n", "an integer >= 0"});
    expectUsage(run + "--threads 5000", {"option --threads", "from 0 to 1024"});
    expectUsage(run + "--ctx -1", {"option --ctx", "from 0 to"});
    expectUsage(run + "--device tpu", {"option --device", "cpu or cuda"});
    expectUsage(run + "--quant Q3_X", {"option --quant", "'Q3_X'", "Q4_K_M"});
    expectUsage(run + "--frobnicate", {"unknown option '--frobnicate'"});
    expectUsage(run + "upon", {"unexpected argument 'upon'"});
    expectUsage(run + "--temp", {"option --temp needs a value"});
    expectUsage(run + "--json=yes", {"option --json takes no value"});
    expectUsage(run + "--stop-ids 1,x", {"option --stop-ids", "'x'"});
    expectUsage("run -m " + g_stories + " --prompt-ids 1,9999", {"option --prompt-ids", "9999", "0 to 511"});
    expectUsage("run -m " + g_stories + " -p 'Once upon a time there was' --ctx 4",
                {"option --ctx", "more than the context of 4"});
    expectUsage("run -m " + g_stories, {"exactly one of -p"});
    expectUsage("chat -m " + g_stories + " --temp -1", {"option --temp", ">= 0"});
    expectUsage("chat -m " + g_stories + " -n 0", {"option -n", "from 1 to"});
    expectUsage("chat -m " + g_stories + " --quant Q3_X", {"option --quant", "Q4_K_M"});
    expectUsage("inspect -m " + g_stories + " --kv-type f8", {"option --kv-type", "f16, bf16 or f32"});
    expectUsage("inspect -m " + g_stories + " --device tpu", {"option --device", "cpu or cuda"});
    expectUsage("inspect -m " + g_stories + " --quant Q3_X", {"option --quant", "Q4_K_M"});
    expectUsage("quantize " + g_stories + " " + (g_dir / "q.gguf").string() + " --quant Q3_X", {"option --quant", "Q4_K_M"});
    expectUsage("quantize " + g_stories + " " + (g_dir / "q.gguf").string() + " --quant Q8_0 --threads -1",
                {"option --threads", "from 0 to 1024"});
    expectUsage("synth --shape tiny-llama --quant F32 --seed 1 --layers 0 " + (g_dir / "s.gguf").string(),
                {"option --layers", "from 1 to 4096"});
    expectUsage("tokenize -m " + g_stories + " --frobnicate", {"unknown option '--frobnicate'"});
    expectUsage("template -m " + g_stories, {"template needs --messages"});
    expectUsage("devices --all", {"unknown option '--all'"});
    expectUsage("frobnicate", {"unknown command 'frobnicate'", "run, chat, serve, template"});
    CHECK(!fs::exists(g_dir / "q.gguf") && !fs::exists(g_dir / "s.gguf"));

    // The edges of each range are accepted.
    const test::CliOutcome edges = cli(run + "--temp 0 --top-k 0 --top-p 1 --min-p 0 --repeat-penalty 1 --seed 0 --json");
    CHECK_MSG(edges.exitCode == 0, edges.err);
    const test::CliOutcome inner = cli(run + "--temp 0.5 --top-p 0.001 --min-p 1 --repeat-penalty 0.01 --json");
    CHECK_MSG(inner.exitCode == 0, inner.err);
}

// The summary line `run` prints on stderr in plain mode.
std::string summary(const std::string& args) {
    const test::CliOutcome o = cli("run -m " + g_stories + " -p 'Once upon a time' " + args);
    CHECK_MSG(o.exitCode == 0, args << ": " << o.err);
    return o.err;
}

void checkContextAndRates() {
    // --ctx past the 512 trained tokens: refused by run and chat, run anyway with a warning.
    expectUsage("run -m " + g_stories + " -p Once -n 2 --ctx 1024",
                {"option --ctx: 1024 is more than the 512 tokens the model was trained for", "at most 512",
                 "--allow-long-context"});
    expectUsage("chat -m " + g_stories + " --ctx 513", {"option --ctx: 513", "at most 512"});
    const std::string allowed = summary("-n 2 --ctx 1024 --allow-long-context");
    CHECK_MSG(lineCount(allowed) == 2 && allowed.find("hearth-cli: warning: --ctx 1024 is more than the 512 tokens") == 0,
              allowed);
    CHECK_MSG(lineCount(summary("-n 2 --ctx 512")) == 1, "a warning at the trained context");
    const test::CliOutcome inspect = cli("inspect -m " + g_stories + " --ctx 2048 --json");
    CHECK_MSG(inspect.exitCode == 0 && inspect.err.find("warning: --ctx 2048") != std::string::npos, inspect.err);

    // YaRN x4 over 256 trained tokens reaches 1024.
    test::TinyModelSpec spec;
    spec.context = 256;
    spec.extraStringKeys["llama.rope.scaling.type"] = "yarn";
    spec.extraFloatKeys["llama.rope.scaling.factor"] = 4.0f;
    spec.extraUIntKeys["llama.rope.scaling.original_context_length"] = 256;
    const fs::path yarn = g_dir / "yarn.gguf";
    test::writeTinyGguf(spec, yarn);
    const test::CliOutcome reach = cli("run -m " + yarn.string() + " -p hi -n 2 --ctx 1024");
    CHECK_MSG(reach.exitCode == 0 && lineCount(reach.err) == 1, reach.err);
    expectUsage("run -m " + yarn.string() + " -p hi -n 2 --ctx 1025",
                {"1025 is more than the 1024 tokens the model's RoPE scaling (yarn) reaches"});

    // A full context says so; undefined rates are "n/a" (null in JSON), never -1.
    const std::regex full(R"(\[cpu: .+\] prompt 5 tokens, [0-9.]+ tok/s; generated 4 tokens, [0-9.]+ tok/s; stop: context\n)");
    const std::string fullLine = summary("-n 100 --ctx 8");
    CHECK_MSG(std::regex_match(fullLine, full), fullLine);
    const std::regex none(R"(\[cpu: .+\] prompt 5 tokens, [0-9.]+ tok/s; generated 0 tokens, rate n/a; stop: length\n)");
    const std::string noneLine = summary("-n 0");
    CHECK_MSG(std::regex_match(noneLine, none), noneLine);
    CHECK_MSG(summary("-n 1").find("generated 1 tokens, rate n/a") != std::string::npos, "-n 1");
    const test::CliOutcome j = cli("run -m " + g_stories + " -p 'Once upon a time' -n 0 --json");
    const json out = json::parse(j.out, nullptr, false);
    CHECK_MSG(out.is_object() && out["decode_tok_s"].is_null() && out["prefill_tok_s"].is_number(), j.out);

    // chat: /stats after a one-token reply; --system without a template is ignored, with a warning.
    const test::CliOutcome chat = cli("chat -m " + g_stories + " --temp 0 -n 1 --system 'Be brief.'", "Once\n/stats\n");
    CHECK_MSG(chat.exitCode == 0, chat.err);
    CHECK_MSG(chat.out.find("decode rate n/a, ") != std::string::npos && chat.out.find("-1") == std::string::npos, chat.out);
    CHECK_MSG(chat.err.find("hearth-cli: warning: --system is ignored: this model has no chat template") == 0, chat.err);
}

void checkTokenizeAndSynth() {
    const std::string help = cli("tokenize --help").out;
    for (const char* words : {"stdin verbatim", "no BOS", "trailing newline"})
        CHECK_MSG(help.find(words) != std::string::npos, "tokenize --help lacks '" << words << "'");
    const fs::path tok = fs::path(g_stories).parent_path() / "tok512.model";
    const json bare = json::parse(cli("tokenize -m " + tok.string() + " --json", "Once upon a time").out, nullptr, false);
    const json newline = json::parse(cli("tokenize -m " + tok.string() + " --json", "Once upon a time\n").out, nullptr, false);
    CHECK(bare.is_object() && newline.is_object());
    if (bare.is_object() && newline.is_object()) {
        const auto a = bare["ids"].get<std::vector<int32_t>>(), b = newline["ids"].get<std::vector<int32_t>>();
        CHECK(!a.empty() && a.front() != 1); // no BOS
        CHECK(b.size() > a.size() && std::equal(a.begin(), a.end(), b.begin()));
    }

    // synth --tokenizer too big for the shape: the tokenizer's own size, counted here.
    const auto qwen = test::optionalTestData("models/qwen3-tokenizer/tokenizer.json");
    if (!qwen) return;
    std::ifstream in(*qwen);
    const json j = json::parse(in);
    int64_t rows = 0;
    for (const auto& [text, id] : j["model"]["vocab"].items()) rows = std::max<int64_t>(rows, id.get<int64_t>() + 1);
    for (const json& t : j["added_tokens"]) rows = std::max<int64_t>(rows, t["id"].get<int64_t>() + 1);
    CHECK(rows > 150000);
    const test::CliOutcome o = cli("synth --shape tiny-qwen3 --quant F32 --seed 1 --tokenizer " + qwen->string() + " " +
                                   (g_dir / "t.gguf").string());
    CHECK_MSG(o.exitCode == 1 && lineCount(o.err) == 1, o.exitCode << " " << o.err);
    CHECK_MSG(o.err.find("the tokenizer has " + std::to_string(rows) + " tokens, more than the shape's vocabulary of 4096") !=
                  std::string::npos,
              o.err);
}

void checkDevicesAndPaths() {
    const test::CliOutcome d = cli("devices --json");
    CHECK_EQ(d.exitCode, 0);
    const json report = json::parse(d.out, nullptr, false);
    CHECK(report.is_object());
    if (report.is_object()) {
        const std::string reason = report["cuda_unavailable_reason"];
        CHECK_MSG(reason.find("insufficient") == std::string::npos && reason.find("runtime version") == std::string::npos,
                  reason);
        void* libcuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
        if (!report["cuda_built"].get<bool>()) CHECK_EQ(reason, std::string("this build of Hearth has no CUDA backend"));
        else if (!libcuda) CHECK_EQ(reason, std::string("no NVIDIA driver is installed (libcuda.so.1 was not found)"));
        if (libcuda) dlclose(libcuda);
        // Without a GPU, inspect's CUDA estimate says why; auto estimates for the CPU.
        if (!reason.empty()) {
            const test::CliOutcome cuda = cli("inspect -m " + g_stories + " --device cuda --json");
            CHECK_MSG(cuda.exitCode == 1 && cuda.out.empty() && cuda.err.find(reason) != std::string::npos, cuda.err);
            const json autoEstimate = json::parse(cli("inspect -m " + g_stories + " --json").out, nullptr, false);
            CHECK_MSG(autoEstimate.is_object() && autoEstimate["memory"]["device"]["kind"] == "cpu", autoEstimate);
        }
    }

    // Output paths in a missing folder name that folder, not the .part file beside the path.
    const fs::path missing = g_dir / "no-such-folder";
    const std::string folder = "the folder " + missing.string() + " does not exist";
    for (const std::string& args : {"run -m " + g_stories + " -p Once -n 2 --logits-out " + (missing / "l.npy").string(),
                                    "quantize " + g_stories + " " + (missing / "q.gguf").string() + " --quant Q8_0",
                                    "synth --shape tiny-llama --quant F32 --seed 1 " + (missing / "s.gguf").string()}) {
        const test::CliOutcome o = cli(args);
        CHECK_MSG(o.exitCode == 1 && o.out.empty() && lineCount(o.err) == 1, args << ": " << o.out << o.err);
        CHECK_MSG(o.err.find(folder) != std::string::npos && o.err.find(".part") == std::string::npos, o.err);
    }
    CHECK(!fs::exists(missing));
}

} // namespace

int main() {
    test::announce("cli_usage", "cpu");
    g_dir = test::startCliTest("cli_usage");
    g_stories = test::requireTestData("models/stories260K/stories260K-f32.gguf").string();
    checkHelpAndVersion();
    checkUsageErrors();
    checkContextAndRates();
    checkTokenizeAndSynth();
    checkDevicesAndPaths();
    return test::finish();
}
