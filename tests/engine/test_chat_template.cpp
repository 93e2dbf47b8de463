// Chat templates: every case of tests/data/templates/expected.json (rendered by transformers'
// apply_chat_template on the GPU machine, see tests/reference/make_template_references.py) must
// render byte-identically, or fail with the recorded error. The interpreter's unit tests (filters,
// tests, operators, loops, macros, whitespace control, tojson, undefined values, bounds and
// malformed templates) are in test_chat_template_units.cpp.
#include <cstdio>
#include <ctime>
#include <string>

#include <nlohmann/json.hpp>

#include "chat/chat_template.h"
#include "check.h"
#include "template_cases.h"
#include "testdata.h"

using hearth::chat::ChatTemplate;
using hearth::chat::RenderOptions;
using Json = nlohmann::ordered_json;

namespace {

const std::string kTemplateDir = hearth::test::templateDir();

std::string visible(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '\n') out += "\\n";
        else if (c == '\t') out += "\\t";
        else out += c;
    }
    return out;
}

void reportDifference(const std::string& name, const std::string& got, const std::string& want) {
    size_t i = 0;
    while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
    const size_t from = i > 40 ? i - 40 : 0;
    std::fprintf(stderr, "  %s: first difference at byte %zu\n    got:  ...%s\n    want: ...%s\n", name.c_str(), i,
                 visible(got.substr(from, 100)).c_str(), visible(want.substr(from, 100)).c_str());
}

// The .jinja file and the chat_template string of the .json beside it must be the same text.
void checkTemplateFilesAgree(const std::string& name) {
    const std::string jinja = hearth::test::readTextFile(kTemplateDir + "/" + name + ".jinja");
    const Json config = Json::parse(hearth::test::readTextFile(kTemplateDir + "/" + name + ".json"));
    CHECK_MSG(config["chat_template"].get<std::string>() == jinja, name << ".jinja differs from " << name << ".json");
    auto fromConfig = hearth::chat::chatTemplateFromTokenizerConfig(config);
    CHECK_OK(fromConfig);
}

} // namespace

int main() {
    hearth::test::announce("chat_template", "cpu");
    const Json expected = Json::parse(hearth::test::readTextFile(kTemplateDir + "/expected.json"), nullptr, false);
    // An empty or cut-short file is a failed check, not a crash (the case count is checked below).
    const bool wellFormed = expected.is_object() && expected.contains("cases") && expected["cases"].is_array() &&
                            expected.contains("generator") && expected["generator"].is_object();
    CHECK_MSG(wellFormed, "expected.json: not an object with \"generator\" and a \"cases\" array");
    if (!wellFormed) return hearth::test::finish();
    std::fprintf(stderr, "expected.json: renderer %s, versions %s\n", expected["generator"]["renderer"].dump().c_str(),
                 expected["generator"]["versions"].dump().c_str());
    CHECK_MSG(expected["generator"]["disagreements"].empty(), "the reference renderers disagreed on some case");
    for (const char* name : {"qwen3", "qwen3.5", "qwen2.5", "llama3.1", "llama2-chat", "mistral-instruct", "mistral-nemo"}) {
        checkTemplateFilesAgree(name);
    }

    int passed = 0;
    int failed = 0;
    for (const auto& record : expected["cases"]) {
        const std::string name = record["name"].get<std::string>();
        auto tmpl = ChatTemplate::parse(hearth::test::templateSource(record));
        if (!tmpl.isOk()) {
            std::fprintf(stderr, "  %s: parse failed: %s\n", name.c_str(), tmpl.status().message().c_str());
            ++failed;
            continue;
        }
        const auto rendered = tmpl->render(record["messages"], hearth::test::renderOptionsFrom(record["options"]));
        bool ok = false;
        if (record.contains("expected")) {
            const std::string want = record["expected"].get<std::string>();
            if (!rendered.isOk()) {
                std::fprintf(stderr, "  %s: unexpected error: %s\n", name.c_str(), rendered.status().message().c_str());
            } else if (*rendered != want) {
                reportDifference(name, *rendered, want);
            } else {
                ok = true;
            }
        } else {
            const std::string needle = record["error_substring"].get<std::string>();
            if (rendered.isOk()) {
                std::fprintf(stderr, "  %s: rendered, but transformers raised %s\n", name.c_str(),
                             record["error"].get<std::string>().c_str());
            } else if (rendered.status().message().find(needle) == std::string::npos) {
                std::fprintf(stderr, "  %s: error '%s' lacks '%s'\n", name.c_str(), rendered.status().message().c_str(),
                             needle.c_str());
            } else {
                ok = true;
            }
        }
        ok ? ++passed : ++failed;
    }
    std::fprintf(stderr, "reference cases: %d passed, %d failed\n", passed, failed);
    CHECK_EQ(failed, 0);
    CHECK(passed > 100);
    return hearth::test::finish();
}
