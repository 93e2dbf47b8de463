// The official OpenAI client library (npm package `openai`, run by Node) against `hearth-cli
// serve`: tests/server/openai_client.cjs. The package is installed into the build folder
// (openai-client/) by npm, once. Skipped (77) without node and npm; a package that cannot be had
// (offline) is missing data, as testdata.h decides.
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "check.h"
#include "http_kit.h"
#include "testdata.h"

using namespace hearth;
namespace fs = std::filesystem;

namespace {

const char* kPackage = "openai@5.12.0"; // CommonJS and ESM, no dependencies, Node 18+

// The installed package's folder, installing it when it is not there yet.
std::optional<fs::path> openaiPackage() {
    const fs::path prefix = fs::path(HEARTH_BUILD_DIR) / "openai-client";
    const fs::path package = prefix / "node_modules" / "openai";
    const auto installed = [&] {
        const auto manifest = nlohmann::json::parse(std::ifstream(package / "package.json"), nullptr, false);
        return manifest.is_object() && "openai@" + manifest.value("version", "") == kPackage;
    };
    if (installed()) return package;
    const int code = test::runCommand("timeout 300 npm install --prefix '" + prefix.string() + "' --no-audit --no-fund " +
                                      "--no-save --loglevel=error " + kPackage);
    if (code == 0 && installed()) return package;
    test::reportMissingData(std::string("the npm package ") + kPackage + " could not be installed (npm exit " +
                            std::to_string(code) + ")");
    return std::nullopt;
}

} // namespace

int main() {
    test::announce("server_openai_client", "cpu");
    if (test::runCommand("command -v node >/dev/null && command -v npm >/dev/null") != 0)
        test::skipTest("node or npm is not installed");
    const auto model = test::requireTestData("models/stories260K/stories260K-f32.gguf");
    const auto package = openaiPackage();
    if (!package) return test::finish();

    const std::string key = "node-test-key-0123";
    test::ServeProcess serve({"-m", model.string(), "--api-key", key, "--device", "cpu", "--threads", "2", "--ctx", "512"},
                             {"HEARTH_TEST_DECODE_DELAY_MS=30"});
    if (serve.url().empty()) return test::finish();
    const std::string script = std::string(HEARTH_SOURCE_DIR) + "/tests/server/openai_client.cjs";
    CHECK_EQ(test::runCommand("node '" + script + "'", {"HEARTH_URL=" + serve.url(), "HEARTH_API_KEY=" + key,
                                                        "HEARTH_MODEL=" + serve.modelId(),
                                                        "OPENAI_PACKAGE=" + package->string()}),
             0);
    CHECK_EQ(serve.stop(), 0);
    return test::finish();
}
