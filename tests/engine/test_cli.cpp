// hearth-cli as a user meets it: JSON output of run/inspect/tokenize, --logits-out, and every
// kind of bad input answered by one line on stderr and a non-zero exit (never a crash or hang).

#include <fstream>

#include <nlohmann/json.hpp>

#include "check.h"
#include "test_helpers.h"
#include "io/gguf.h"
#include "model_builder.h"
#include "testdata.h"

using namespace hearth;
namespace fs = std::filesystem;

namespace {


fs::path g_dir;

using Outcome = test::CliOutcome;
using test::cli;

// A user error: non-zero exit (not a signal, not the timeout), nothing on stdout, one line on
// stderr that contains `needle`.
void expectError(const std::string& args, const std::string& needle) {
    const Outcome o = cli(args);
    CHECK_MSG(o.exitCode > 0 && o.exitCode != 124, "`" << args << "` exited with " << o.exitCode);
    CHECK_MSG(o.out.empty(), "`" << args << "` printed on stdout: " << o.out);
    const size_t lines = std::count(o.err.begin(), o.err.end(), '\n');
    CHECK_MSG(lines == 1, "`" << args << "` printed " << lines << " lines on stderr: " << o.err);
    CHECK_MSG(o.err.find(needle) != std::string::npos, "`" << args << "`: '" << o.err << "' lacks '" << needle << "'");
}

void checkRun(const fs::path& stories) {
    const std::string model = (stories / "stories260K-f32.gguf").string();
    const Outcome o = cli("run -m " + model + " -p 'Once upon a time' -n 8 --kv-type f32 --json --logits-out " +
                          (g_dir / "logits.npy").string());
    CHECK_EQ(o.exitCode, 0);
    auto j = nlohmann::json::parse(o.out, nullptr, false);
    CHECK(!j.is_discarded());
    if (j.is_discarded()) return;
    for (const char* key : {"prompt_ids", "output_ids", "text", "stop", "n_prompt", "device", "prefill_tok_s", "decode_tok_s"})
        CHECK_MSG(j.contains(key), key);
    CHECK(j["prompt_ids"] == nlohmann::json({1, 403, 407, 261, 378}));
    CHECK_EQ(j["output_ids"].size(), 8u);
    CHECK_EQ(j["stop"].get<std::string>(), std::string("length"));
    CHECK_EQ(j["text"].get<std::string>().substr(0, 7), std::string(", there"));
    CHECK(j["device"].get<std::string>().rfind("cpu", 0) == 0);
    // Logits: one row per forward pass (5 prompt + 7 fed-back tokens), 512 floats each.
    const std::string npy = test::readTextFile(g_dir / "logits.npy");
    CHECK(npy.rfind("\x93NUMPY", 0) == 0);
    CHECK(npy.find("'shape': (12, 512)") != std::string::npos);
    const uint16_t headerLen = uint16_t(uint8_t(npy[8]) | uint8_t(npy[9]) << 8);
    CHECK_EQ(npy.size(), size_t(10 + headerLen + 12 * 512 * 4));
    CHECK_EQ((10 + headerLen) % 64, 0);
    CHECK(!fs::exists(g_dir / "logits.npy.part"));

    // Sampling with a seed is reproducible through the CLI.
    const std::string sampled = "run -m " + model + " -p 'Once' -n 20 --temp 0.9 --top-k 40 --top-p 0.9 --seed 5 --json";
    const Outcome a = cli(sampled), b = cli(sampled);
    CHECK_EQ(a.exitCode, 0);
    CHECK(nlohmann::json::parse(a.out)["output_ids"] == nlohmann::json::parse(b.out)["output_ids"]);
    const Outcome c = cli("run -m " + model + " -p 'Once' -n 20 --temp 0.9 --top-k 40 --top-p 0.9 --seed 6 --json");
    CHECK(nlohmann::json::parse(c.out)["output_ids"] != nlohmann::json::parse(a.out)["output_ids"]);
}

void checkInspectAndTokenize(const fs::path& stories) {
    const Outcome o = cli("inspect -m " + (stories / "stories260K-f32.gguf").string() + " --ctx 2048 --kv-type f32 --json");
    CHECK_EQ(o.exitCode, 0);
    auto j = nlohmann::json::parse(o.out, nullptr, false);
    if (!j.is_discarded()) {
        CHECK_EQ(j["architecture"].get<std::string>(), std::string("llama"));
        CHECK_EQ(j["parameters"].get<uint64_t>(), 260032u);
        CHECK_EQ(j["tensor_types"]["F32"].get<int>(), 47);
        // K and V, 5 layers x 4 KV heads x 8 dims x 4 bytes per token.
        CHECK_EQ(j["memory"]["kv_bytes_per_1024_tokens"].get<uint64_t>(), 2u * 5 * 4 * 8 * 4 * 1024);
        CHECK_EQ(j["memory"]["kv_cache_bytes"].get<uint64_t>(), 2u * 5 * 4 * 8 * 4 * 2048);
        CHECK_EQ(j["memory"]["weights_bytes"].get<uint64_t>(), 260032u * 4);
        CHECK_EQ(j["memory"]["device"]["kind"].get<std::string>(), std::string("cpu"));
        CHECK_EQ(j["memory"]["device_context_bytes"].get<uint64_t>(), 0u);
        CHECK_EQ(j["memory"]["decode_weight_bytes"].get<uint64_t>(), 260032u * 4); // tied: the table once
        CHECK_EQ(j["memory"]["decode_kv_bytes_per_position"].get<uint64_t>(), 2u * 5 * 4 * 8 * 4);
    }
    // The default cache is f16, as run's; bf16 takes as much; --device cpu names the CPU.
    for (const char* kv : {"", " --kv-type bf16"}) {
        const Outcome half = cli("inspect -m " + (stories / "stories260K-f32.gguf").string() + " --ctx 2048 --device cpu" +
                                 kv + " --json");
        CHECK_EQ(half.exitCode, 0);
        auto h = nlohmann::json::parse(half.out, nullptr, false);
        CHECK_MSG(!h.is_discarded() && h["memory"]["kv_cache_bytes"] == 2u * 5 * 4 * 8 * 2 * 2048 &&
                      h["memory"]["kv_type"] == (*kv ? "bf16" : "f16"),
                  half.out);
    }
    // --quant plans a preset from the tensor table: every matrix (rows of 64 fit Q8_0's 32-blocks)
    // becomes Q8_0, the norms stay F32, and the weights shrink to 34/128 of F32 for the matrices.
    const Outcome q = cli("inspect -m " + (stories / "stories260K-f32.gguf").string() + " --quant Q8_0 --json");
    CHECK_EQ(q.exitCode, 0);
    auto jq = nlohmann::json::parse(q.out, nullptr, false);
    CHECK(!jq.is_discarded());
    if (!jq.is_discarded()) {
        const auto& planned = jq["planned"];
        CHECK_EQ(planned["preset"].get<std::string>(), std::string("Q8_0"));
        int total = 0;
        for (const auto& [type, count] : planned["tensor_types"].items()) total += count.get<int>();
        CHECK_EQ(total, 47);
        CHECK(planned["tensor_types"].contains("Q8_0"));
        CHECK(planned["weights_bytes"].get<uint64_t>() < 260032u * 4 / 3);
        // The estimate is for the preset's weights.
        CHECK_EQ(jq["memory"]["weights_bytes"].get<uint64_t>(), planned["weights_bytes"].get<uint64_t>());
        CHECK_EQ(jq["memory"]["quant"].get<std::string>(), std::string("Q8_0"));
    }
    expectError("inspect -m " + (stories / "stories260K-f32.gguf").string() + " --quant Q3_X", "Q3_X");
    const Outcome t = cli("tokenize -m " + (stories / "tok512.model").string() + " --json", "Once upon a time");
    CHECK_EQ(t.exitCode, 0);
    CHECK_EQ(t.out, std::string("{\"ids\":[403,407,261,378]}\n"));
    const Outcome d = cli("tokenize -m " + (stories / "stories260K-f32.gguf").string() + " --decode", "{\"ids\":[403,407,261,378]}");
    CHECK_EQ(d.exitCode, 0);
    CHECK_EQ(d.out, std::string("Once upon a time"));
}

void checkBadInput(const fs::path& stories) {
    const std::string model = (stories / "stories260K-f32.gguf").string();
    expectError("run -m /nonexistent/model.gguf -p hi -n 4", "/nonexistent/model.gguf: no such file");
    fs::create_directories(g_dir / "no-config");
    expectError("run -m " + (g_dir / "no-config").string() + " -p hi -n 4", "no config.json");
    expectError("run -m " + model + " -p hi -n -3", "-n");
    expectError("run -m " + model + " -p hi -n 4 --device tpu", "unknown device 'tpu'");
    expectError("run -m " + model + " -p hi -n 4 --temp warm", "'warm' is not a number");
    expectError("run -m " + model + " -p hi -n 4 --frobnicate", "unknown option '--frobnicate'");
    expectError("run -m " + model + " -n 4", "exactly one of -p");
    expectError("run -m " + model + " --prompt-ids 1,2,x -n 4", "'x' is not a token id");
    expectError("run -m " + model + " --prompt-ids 1,9999 -n 4", "outside the vocabulary");
    expectError("run -m " + model + " -p 'Once upon a time there was' -n 4 --ctx 4", "more than the context of 4");
    expectError("frobnicate", "unknown command");

    // Unsupported architecture and tensor type; tokenizer larger than the model's vocabulary.
    test::TinyModelSpec spec;
    spec.extraStringKeys["general.architecture"] = "mamba";
    test::writeTinyGguf(spec, g_dir / "mamba.gguf");
    expectError("run -m " + (g_dir / "mamba.gguf").string() + " -p hi -n 2", "unsupported architecture 'mamba'");
    spec = {};
    spec.hidden = 256; // a Q2_K row needs 256 elements
    test::writeTinyGguf(spec, g_dir / "base.gguf");
    {
        auto base = io::GgufFile::open((g_dir / "base.gguf").string());
        CHECK_OK(base);
        io::GgufWriter w;
        for (const auto& [key, value] : base.value().metadata()) w.set(key, value);
        for (const auto& t : base.value().tensors()) {
            if (t.name == "blk.0.attn_k.weight") {
                w.addTensor(t.name, DType::Q2_K, t.ne, std::vector<uint8_t>(t.ne[1] * 84, 0));
            } else {
                w.addTensorView(t.name, t.type, t.ne, t.data, t.bytes);
            }
        }
        CHECK_OK(w.write((g_dir / "q2k.gguf").string()));
    }
    expectError("run -m " + (g_dir / "q2k.gguf").string() + " -p hi -n 2", "tensor blk.0.attn_k.weight has type Q2_K");
    spec = {};
    test::writeTinyGguf(spec, g_dir / "small-vocab.gguf", [](auto& t) {
        for (auto& x : t)
            if (x.ggufName == "token_embd.weight" || x.ggufName == "output.weight") x.shape[0] = 300, x.values.resize(300 * 64);
    });
    expectError("run -m " + (g_dir / "small-vocab.gguf").string() + " -p hi -n 2", "the tokenizer has 320 tokens");

    // A truncated model file.
    const std::string bytes = test::readTextFile(stories / "stories260K-f32.gguf");
    std::ofstream(g_dir / "truncated.gguf", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
    expectError("run -m " + (g_dir / "truncated.gguf").string() + " -p hi -n 2", "truncated.gguf");
    expectError("inspect -m " + (g_dir / "truncated.gguf").string(), "truncated.gguf");
}

} // namespace

int main() {
    test::announce("cli", "cpu");
    g_dir = test::startCliTest("cli");
    const fs::path stories = test::requireTestData("models/stories260K");
    checkRun(stories);
    checkInspectAndTokenize(stories);
    checkBadInput(stories);
    return test::finish();
}
