// `hearth-cli run` as scripts and the app read it: every field of --json by type and value (the
// same request through the engine API is the reference), and the plain streaming mode. The
// contract itself (keys, stop names, which rates are defined, the stderr summary) is kept in the
// first block below, so that a deliberate change of the output is one edit there.
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "check.h"
#include "hearth/engine.h"
#include "test_helpers.h"
#include "testdata.h"

using namespace hearth;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// ---- The contract. ----
const std::set<std::string> kKeys = {"prompt_ids", "output_ids",    "text",         "stop",    "n_prompt",
                                     "device",     "prefill_tok_s", "decode_tok_s", "context", "memory"};
struct Case {
    std::string what, args;   // args after -m MODEL -p PROMPT
    int32_t maxTokens = 0, context = 0;
    std::vector<int32_t> stopIds;
    std::string stop;         // the "stop" value
    bool decodeRate = true;   // decode_tok_s a number > 0; else null (no token was fed back)
};
std::vector<Case> contractCases(int32_t stopId) {
    return {
        {"-n 8", "-n 8", 8, 0, {}, "length", true},
        {"-n 1", "-n 1", 1, 0, {}, "length", false},
        {"-n 0", "-n 0", 0, 0, {}, "length", false},
        {"--stop-ids", "-n 40 --stop-ids " + std::to_string(stopId), 40, 0, {stopId}, "eos", true},
        {"full context", "-n 100 --ctx 8", 100, 8, {}, "context", true}, // filled before -n was reached
    };
}
// Plain mode: the text on stdout, one summary line on stderr.
const std::regex kSummary(R"(\[cpu: .+\] prompt 5 tokens, [0-9]+\.[0-9] tok/s; generated 8 tokens, [0-9]+\.[0-9] tok/s; stop: length\n)");
// ---- End of the contract. ----

void checkCase(const Case& c, const Model& model, const std::string& args, const std::vector<int32_t>& prompt) {
    const test::CliOutcome o = test::cli(args + " --json " + c.args);
    CHECK_MSG(o.exitCode == 0, c.what << ": exit " << o.exitCode << ": " << o.err);
    const json j = json::parse(o.out, nullptr, false);
    CHECK_MSG(j.is_object(), c.what << ": not a JSON object: " << o.out);
    if (!j.is_object()) return;
    std::set<std::string> keys;
    for (const auto& [key, value] : j.items()) keys.insert(key);
    CHECK_MSG(keys == kKeys, c.what << ": keys " << j.dump());
    if (keys != kKeys) return;

    // The reference: the same request through the API.
    auto session = Session::create(model, {.contextLength = c.context, .kvType = KvType::F32});
    CHECK_OK(session);
    if (!session.isOk()) return;
    GenerateParams p;
    p.maxTokens = c.maxTokens;
    p.stopIds = c.stopIds;
    auto api = session.value()->generate(prompt, p);
    CHECK_OK(api);
    if (!api.isOk()) return;
    const GenerateResult& r = api.value();

    auto intArray = [](const json& v) {
        return v.is_array() && std::all_of(v.begin(), v.end(), [](const json& x) { return x.is_number_integer(); });
    };
    CHECK_MSG(intArray(j["prompt_ids"]) && j["prompt_ids"] == json(prompt), c.what);
    CHECK_MSG(intArray(j["output_ids"]) && j["output_ids"] == json(r.outputIds), c.what << ": " << j["output_ids"]);
    CHECK_MSG(j["text"].is_string() && j["text"] == r.text, c.what << ": " << j["text"]);
    CHECK_MSG(j["stop"].is_string() && j["stop"] == c.stop && j["stop"] == stopReasonName(r.stop), c.what << ": " << j["stop"]);
    CHECK_MSG(j["n_prompt"].is_number_integer() && j["n_prompt"] == prompt.size(), c.what << ": " << j["n_prompt"]);
    CHECK_MSG(j["device"] == "cpu: " + probeDevices().devices.front().name, c.what << ": " << j["device"]);
    // The session's context and memory report (the same session through the API).
    CHECK_MSG(j["context"] == session.value()->contextLength(), c.what << ": " << j["context"]);
    const MemoryReport mem = session.value()->memoryReport();
    CHECK_MSG(j["memory"]["weights_bytes"] == mem.weightsBytes && j["memory"]["kv_cache_bytes"] == mem.kvCacheBytes &&
                  j["memory"]["total_bytes"] == mem.totalBytes(),
              c.what << ": " << j["memory"]);
    CHECK_MSG(j["prefill_tok_s"].is_number() && j["prefill_tok_s"].get<double>() > 0, c.what << ": " << j["prefill_tok_s"]);
    const json& decode = j["decode_tok_s"];
    CHECK_MSG(c.decodeRate ? decode.is_number() && decode.get<double>() > 0 : decode.is_null(), c.what << ": " << decode);
}

} // namespace

int main() {
    test::announce("cli_json", "cpu");
    test::startCliTest("cli_json");
    const fs::path path = test::requireTestData("models/stories260K/stories260K-f32.gguf");
    auto model = Model::load({.path = path.string(), .threads = 1});
    CHECK_OK(model);
    if (!model.isOk()) return test::finish();
    const std::vector<int32_t> prompt = model.value()->encode("Once upon a time", true);
    const std::string args = "run -m " + path.string() + " -p 'Once upon a time' --threads 1 --kv-type f32";

    // --stop-ids: a token that first appears k-th in the greedy reply cuts it to k tokens.
    auto session = Session::create(*model.value(), {.kvType = KvType::F32});
    auto greedy = session.value()->generate(prompt, {.maxTokens = 40});
    CHECK_OK(greedy);
    if (!greedy.isOk()) return test::finish();
    const std::vector<int32_t>& ids = greedy.value().outputIds;
    size_t k = 6;
    while (k + 1 < ids.size() && std::find(ids.begin(), ids.begin() + k, ids[k]) != ids.begin() + k) ++k;
    CHECK(ids.size() == 40 && k + 1 < ids.size());
    for (const Case& c : contractCases(ids[k])) checkCase(c, *model.value(), args, prompt);
    const test::CliOutcome stopped = test::cli(args + " --json -n 40 --stop-ids 1," + std::to_string(ids[k]));
    const json j = json::parse(stopped.out, nullptr, false);
    CHECK(j.is_object() && j["output_ids"] == json(std::vector<int32_t>(ids.begin(), ids.begin() + k)));

    // Plain mode: the same text on stdout, the summary on stderr.
    const test::CliOutcome plain = test::cli(args + " -n 8");
    CHECK_EQ(plain.exitCode, 0);
    auto eight = Session::create(*model.value(), {.kvType = KvType::F32});
    auto reference = eight.value()->generate(prompt, {.maxTokens = 8});
    CHECK_EQ(plain.out, reference.value().text + "\n");
    CHECK_MSG(std::regex_match(plain.err, kSummary), "summary line: " << plain.err);
    return test::finish();
}
