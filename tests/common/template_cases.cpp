#include "template_cases.h"

#include <cstdio>
#include <ctime>

#include "testdata.h"

namespace hearth::test {
namespace {

// "2025-03-14T09:26:53" -> a normalised std::tm (weekday and day of year filled in).
std::tm parseIsoTime(const std::string& iso) {
    std::tm t{};
    std::sscanf(iso.c_str(), "%d-%d-%dT%d:%d:%d", &t.tm_year, &t.tm_mon, &t.tm_mday, &t.tm_hour, &t.tm_min, &t.tm_sec);
    t.tm_year -= 1900;
    t.tm_mon -= 1;
    const time_t asUtc = timegm(&t);
    std::tm normalised{};
    gmtime_r(&asUtc, &normalised);
    return normalised;
}

} // namespace

std::string templateDir() { return HEARTH_SOURCE_DIR "/tests/data/templates"; }

nlohmann::ordered_json templateCases() {
    auto cases = nlohmann::ordered_json::parse(readTextFile(templateDir() + "/expected.json"), nullptr, false);
    // An empty or cut-short file is a failed check, and no cases (the callers check their count).
    const bool wellFormed = cases.is_object() && cases.contains("cases") && cases["cases"].is_array();
    CHECK_MSG(wellFormed, templateDir() << "/expected.json: not an object with a \"cases\" array");
    return wellFormed ? cases : nlohmann::ordered_json{{"cases", nlohmann::ordered_json::array()}};
}

std::string templateSource(const nlohmann::ordered_json& record) {
    if (record.contains("source")) return record["source"].get<std::string>();
    return readTextFile(templateDir() + "/" + record["template"].get<std::string>() + ".jinja");
}

chat::RenderOptions renderOptionsFrom(const nlohmann::ordered_json& o) {
    chat::RenderOptions options;
    options.addGenerationPrompt = o.value("add_generation_prompt", false);
    options.tools = o.contains("tools") ? o["tools"] : nlohmann::ordered_json();
    options.extraContext = o.contains("extra") ? o["extra"] : nlohmann::ordered_json::object();
    if (o.contains("bos_token") && o["bos_token"].is_string()) options.bosToken = o["bos_token"].get<std::string>();
    if (o.contains("eos_token") && o["eos_token"].is_string()) options.eosToken = o["eos_token"].get<std::string>();
    const std::tm now = parseIsoTime(o.value("now", "2025-03-14T09:26:53"));
    options.clock = [now] { return now; };
    return options;
}

} // namespace hearth::test
