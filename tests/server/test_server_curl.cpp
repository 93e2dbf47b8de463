// `hearth-cli serve` as users start it, driven by curl (tests/server/curl_client.sh): health, the
// API key, chat whole and streamed, completions, a malformed body, a client that leaves a reply
// halfway. The command's own refusals (a public host without a key), and a clean stop on SIGTERM.
// Skipped (77) where curl is not installed.
#include "check.h"
#include "http_kit.h"
#include "testdata.h"

using namespace hearth;

int main() {
    test::announce("server_curl", "cpu");
    if (test::runCommand("command -v curl >/dev/null") != 0) test::skipTest("curl is not installed");
    const auto model = test::requireTestData("models/stories260K/stories260K-f32.gguf");
    const char* cli = std::getenv("HEARTH_CLI");
    if (!cli) test::skipTest("HEARTH_CLI is not set (run through ctest)");

    // Refused before anything loads: exit 2, saying why.
    CHECK_EQ(test::runCommand(std::string(cli) + " serve -m " + model.string() + " --host 0.0.0.0 2>/dev/null"), 2);
    CHECK_EQ(test::runCommand(std::string(cli) + " serve -m " + model.string() + " --port 70000 2>/dev/null"), 2);

    const std::string key = "curl-test-key-0123";
    test::ServeProcess serve({"-m", model.string(), "--api-key", key, "--device", "cpu", "--threads", "2", "--ctx", "512"},
                             {"HEARTH_TEST_DECODE_DELAY_MS=30"});
    CHECK(!serve.url().empty());
    CHECK_EQ(serve.modelId(), "stories260K-f32");
    if (!serve.url().empty()) {
        const std::string script = std::string(HEARTH_SOURCE_DIR) + "/tests/server/curl_client.sh";
        CHECK_EQ(test::runCommand("sh '" + script + "' '" + serve.url() + "' '" + key + "' '" + serve.modelId() + "'"), 0);
    }
    CHECK_EQ(serve.stop(), 0); // SIGTERM: a clean exit
    return test::finish();
}
