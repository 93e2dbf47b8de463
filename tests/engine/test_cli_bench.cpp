// hearth-cli bench on the CPU (CI has no GPU): the JSON report of stories260K — rates that are
// medians of their runs, memory as a session of that context and KV type holds it, the bound's
// bytes by the one definition (the weights a step reads + the KV cache at --depth) and its
// fraction when a bandwidth is given —, the text report, --synth's temporary model (removed
// after), and usage errors (exit 2).
#include <algorithm>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "check.h"
#include "hearth/engine.h"
#include "test_helpers.h"
#include "testdata.h"

using namespace hearth;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

double medianOf(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// The rates: a positive median of `reps` positive runs.
void checkRate(const json& j, const std::string& key, int reps) {
    const json& runs = j[key + "_runs"];
    CHECK_MSG(runs.is_array() && int(runs.size()) == reps, key << ": " << runs);
    if (!runs.is_array() || runs.empty()) return;
    std::vector<double> values;
    for (const json& r : runs) values.push_back(r.get<double>());
    CHECK_MSG(std::all_of(values.begin(), values.end(), [](double v) { return v > 0; }), key << ": " << runs);
    CHECK_MSG(j[key].is_number() && j[key].get<double>() == medianOf(values), key << ": " << j[key]);
}

void checkJson(const std::string& stories) {
    // 16-token prompt; 8 tokens decoded after a 24-token prefill, 3 times; an f32 cache.
    const test::CliOutcome o =
        test::cli("bench -m " + stories + " -p 16 -n 8 --depth 24 --reps 3 --device cpu --threads 1 --kv-type f32 --json");
    CHECK_MSG(o.exitCode == 0, o.err);
    const json j = json::parse(o.out, nullptr, false);
    CHECK_MSG(j.is_object(), o.out);
    if (!j.is_object()) return;
    CHECK_EQ(j["device_kind"].get<std::string>(), std::string("cpu"));
    CHECK_EQ(j["kv_type"].get<std::string>(), std::string("f32"));
    CHECK_EQ(j["prompt_tokens"].get<int>(), 16);
    CHECK_EQ(j["decode_tokens"].get<int>(), 8);
    CHECK_EQ(j["depth"].get<int>(), 24);
    CHECK_EQ(j["context"].get<int>(), 32); // depth + decoded tokens
    checkRate(j, "prefill_tok_s", 3);
    checkRate(j, "decode_tok_s", 3);
    CHECK(j["ttft_ms"].get<double>() > 0);

    // Memory as a session of that context and KV type holds it.
    auto model = Model::load({.path = stories, .threads = 1});
    CHECK_OK(model);
    if (!model.isOk()) return;
    auto session = Session::create(*model.value(), {.contextLength = 32, .kvType = KvType::F32});
    CHECK_OK(session);
    if (!session.isOk()) return;
    const MemoryReport r = session.value()->memoryReport();
    const json& m = j["memory"];
    CHECK_EQ(m["weights_bytes"].get<uint64_t>(), r.weightsBytes);
    CHECK_EQ(m["kv_cache_bytes"].get<uint64_t>(), 2u * 5 * 4 * 8 * 4 * 32); // 5 layers, 4 KV heads of 8, f32
    CHECK_EQ(m["kv_cache_bytes"].get<uint64_t>(), r.kvCacheBytes);
    CHECK_EQ(m["workspace_bytes"].get<uint64_t>(), r.workspaceBytes);
    CHECK_EQ(m["total_bytes"].get<uint64_t>(), r.totalBytes());

    // The bound: every weight (tied embeddings: the LM head is the table, read once) + the K and
    // V of 24 positions; on the CPU the bench measures the bandwidth itself (a multi-threaded
    // read), and the bound and the fraction follow from it; there is no spec figure.
    const json& b = j["bound"];
    const uint64_t kv = 2u * 5 * 4 * 8 * 4 * 24;
    CHECK_EQ(b["weight_bytes"].get<uint64_t>(), 260032u * 4);
    CHECK_EQ(b["kv_bytes"].get<uint64_t>(), kv);
    CHECK_EQ(b["bytes_per_token"].get<uint64_t>(), 260032u * 4 + kv);
    CHECK_EQ(b["bandwidth_source"].get<std::string>(), std::string("measured now (a multi-threaded read)"));
    const double gbps = b["bandwidth_gbps"].get<double>();
    CHECK_MSG(gbps > 0.1 && gbps < 10000, "measured bandwidth " << gbps << " GB/s");
    CHECK_NEAR(b["bound_tok_s"].get<double>(), gbps * 1e9 / double(260032u * 4 + kv), 1e-6 * gbps * 1e9);
    CHECK_NEAR(b["fraction"].get<double>(), j["decode_tok_s"].get<double>() / b["bound_tok_s"].get<double>(), 1e-9);
    for (const char* key : {"spec_bound_tok_s", "spec_fraction"}) CHECK_MSG(b[key].is_null(), key << ": " << b[key]);

    // A given bandwidth: bound = bandwidth / bytes, fraction = measured / bound.
    const test::CliOutcome given = test::cli("bench -m " + stories +
                                             " -p 4 -n 4 --depth 10 --reps 1 --device cpu --kv-type f16 "
                                             "--bandwidth-gbps 50 --json");
    CHECK_MSG(given.exitCode == 0, given.err);
    const json g = json::parse(given.out, nullptr, false);
    CHECK_MSG(g.is_object(), given.out);
    if (!g.is_object()) return;
    const json& gb = g["bound"];
    const double bytes = double(260032u * 4 + 2u * 5 * 4 * 8 * 2 * 10); // an f16 cache
    CHECK_EQ(gb["bytes_per_token"].get<uint64_t>(), uint64_t(bytes));
    CHECK_EQ(gb["bandwidth_source"].get<std::string>(), std::string("given"));
    CHECK_NEAR(gb["bound_tok_s"].get<double>(), 50e9 / bytes, 1e-6 * 50e9 / bytes);
    CHECK_NEAR(gb["fraction"].get<double>(), g["decode_tok_s"].get<double>() / (50e9 / bytes), 1e-9);
    CHECK_EQ(g["memory"]["kv_cache_bytes"].get<uint64_t>(), 2u * 5 * 4 * 8 * 2 * 14);
}

void checkTextAndSynth(const std::string& stories, const fs::path& scratch) {
    const test::CliOutcome text = test::cli("bench -m " + stories + " -p 8 -n 4 --reps 1 --device cpu");
    CHECK_MSG(text.exitCode == 0, text.err);
    for (const char* line : {"prefill  8 tokens:", "decode   4 tokens at depth 8:", "memory   weights",
                             "measured now (a multi-threaded read)"})
        CHECK_MSG(text.out.find(line) != std::string::npos, "'" << line << "' missing: " << text.out);

    // --synth writes its model to the temporary folder and removes it afterwards.
    const fs::path tmp = scratch / "tmp";
    fs::create_directories(tmp);
    setenv("TMPDIR", tmp.c_str(), 1);
    const test::CliOutcome synth =
        test::cli("bench --synth tiny-qwen3 --quant Q8_0 -p 8 -n 4 --reps 1 --device cpu --json");
    unsetenv("TMPDIR");
    CHECK_MSG(synth.exitCode == 0, synth.err);
    const json s = json::parse(synth.out, nullptr, false);
    CHECK_MSG(s.is_object() && s["synth"] == "tiny-qwen3" && s["quant"] == "Q8_0", synth.out);
    if (s.is_object()) CHECK(s["decode_tok_s"].get<double>() > 0 && s["bound"]["weight_bytes"].get<uint64_t>() > 0);
    CHECK_MSG(fs::is_empty(tmp), "bench left files in " << tmp);
}

void expectUsage(const std::string& args, const std::string& needle) {
    const test::CliOutcome o = test::cli(args);
    CHECK_MSG(o.exitCode == 2, "`" << args << "` exited with " << o.exitCode << ": " << o.err);
    CHECK_MSG(o.out.empty() && o.err.find(needle) != std::string::npos, "`" << args << "`: " << o.err);
}

void checkUsageErrors(const std::string& stories) {
    const std::string bench = "bench -m " + stories + " --device cpu ";
    expectUsage("bench -p 8", "exactly one of -m MODEL or --synth SHAPE");
    expectUsage("bench --synth tiny-llama -m " + stories, "exactly one of -m MODEL or --synth SHAPE");
    expectUsage("bench --synth nonsense", "option --synth: unknown shape 'nonsense'");
    expectUsage(bench + "-n 1", "option -n");
    expectUsage(bench + "-p 0", "option -p");
    expectUsage(bench + "--depth 0", "option --depth");
    expectUsage(bench + "--reps 0", "option --reps");
    expectUsage(bench + "--kv-type f8", "option --kv-type");
    expectUsage(bench + "--bandwidth-gbps 0", "option --bandwidth-gbps");
    expectUsage(bench + "--quant Q3_X", "option --quant");
    expectUsage("bench -m " + stories + " --device tpu", "option --device");
    expectUsage(bench + "--frobnicate", "unknown option '--frobnicate'");
}

} // namespace

int main() {
    test::announce("cli_bench", "cpu");
    const fs::path scratch = test::startCliTest("cli_bench");
    const std::string stories = test::requireTestData("models/stories260K/stories260K-f32.gguf").string();
    checkJson(stories);
    checkTextAndSynth(stories, scratch);
    checkUsageErrors(stories);
    return test::finish();
}
