// The public API is closed: its headers include only each other and the standard library and name
// no engine-internal type, and the api.* tests include nothing but those headers and the test
// harness, as the app must; hearth-cli's sources and the server's (server/, beside them) include no
// other engine header either. The checks prove themselves on planted examples.
#include <filesystem>
#include <functional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "check.h"
#include "testdata.h"

namespace fs = std::filesystem;

namespace {

// Whether a file may include `target` ("x.h" when `quoted`, else <x.h>).
using Allowed = std::function<bool(const std::string& target, bool quoted)>;

// Every include of `text` that `allowed` rejects, and (for a public header) every internal type
// it names.
std::vector<std::string> violations(const std::string& text, const Allowed& allowed, bool header) {
    static const std::regex include(R"re(^\s*#\s*include\s*([<"])([^>"]+)[>"])re");
    static const std::regex internal(
        R"re(\b(LoadedModel|DeviceModel|BackendSession|Sampler|SamplerParams|ModelConfig|ModelWeights|Tokenizer|ModelDescription)\b)re");
    std::vector<std::string> out;
    std::istringstream in(text);
    std::string line;
    std::smatch m;
    while (std::getline(in, line)) {
        if (std::regex_search(line, m, include) && !allowed(m[2].str(), m[1].str() == "\""))
            out.push_back("includes " + m[2].str());
        const std::string code = line.substr(0, line.find("//"));
        if (header && std::regex_search(code, m, internal)) out.push_back("names " + m[1].str());
    }
    return out;
}

bool isPublic(const std::string& target) { return target.rfind("hearth/", 0) == 0; }
bool publicHeader(const std::string& target, bool quoted) { return !quoted || isPublic(target); }
bool apiTestInclude(const std::string& target, bool quoted) {
    return publicHeader(target, quoted) || target == "check.h" || target == "testdata.h";
}
// hearth-cli's sources: the public headers, the CLI's own (tools/) and the server's (server/); any
// other engine header, quoted or in <> (engine/ is on their include path), reaches past the API.
// The server's sources: the public headers and its own.
Allowed toolInclude(const fs::path& engine, std::vector<std::string> ownFolders) {
    return [engine, ownFolders](const std::string& target, bool quoted) {
        for (const std::string& folder : ownFolders)
            if (target.rfind(folder, 0) == 0) return true;
        return isPublic(target) || (!quoted && !fs::exists(engine / target));
    };
}
Allowed cliInclude(const fs::path& engine) { return toolInclude(engine, {"tools/", "server/"}); }
Allowed serverInclude(const fs::path& engine) { return toolInclude(engine, {"server/"}); }

void checkFiles(const fs::path& dir, const std::string& prefix, const Allowed& allowed, bool header) {
    int files = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(prefix, 0) != 0) continue;
        ++files;
        for (const std::string& v : violations(hearth::test::readTextFile(entry.path()), allowed, header))
            CHECK_MSG(false, entry.path().string() << " " << v);
    }
    CHECK_MSG(files > 0, "no files in " << dir);
}

} // namespace

int main() {
    hearth::test::announce("headers", "cpu");
    const fs::path source = HEARTH_SOURCE_DIR;
    checkFiles(source / "engine/include/hearth", "", publicHeader, true);
    checkFiles(source / "tests/api", "test_", apiTestInclude, false);
    const fs::path engine = source / "engine";
    checkFiles(engine / "tools", "", cliInclude(engine), false);
    checkFiles(source / "server", "", serverInclude(engine), false);

    // The check sees what it claims to.
    CHECK(!violations("#include \"runtime/model_internal.h\"\n", apiTestInclude, false).empty());
    CHECK(!violations("  const LoadedModel& loaded() const;\n", publicHeader, true).empty());
    CHECK(!violations("std::unique_ptr<BackendSession> m_state;\n", publicHeader, true).empty());
    CHECK(violations("#include \"hearth/session.h\"\nSamplingParams sampling; // not a Sampler\n", publicHeader, true).empty());
    CHECK(!violations("#include \"runtime/session_testing.h\"\n", cliInclude(engine), false).empty());
    CHECK(!violations("#include <synth/synth.h>\n", cliInclude(engine), false).empty());
    CHECK(!violations("#include \"runtime/chat_prompt.h\"\n", serverInclude(engine), false).empty());
    CHECK(!violations("#include \"tools/cli_args.h\"\n", serverInclude(engine), false).empty());
    CHECK(violations("#include <httplib.h>\n#include \"server/job.h\"\n#include \"hearth/chat.h\"\n",
                     serverInclude(engine), false).empty());
    CHECK(violations("#include <cstdio>\n#include <nlohmann/json.hpp>\n#include \"hearth/synth.h\"\n"
                     "#include \"tools/cli_args.h\"\n", cliInclude(engine), false).empty());
    return hearth::test::finish();
}
