#include "testdata.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unistd.h>
#include <vector>

#include <nlohmann/json.hpp>

#ifndef HEARTH_SOURCE_DIR
#error "HEARTH_SOURCE_DIR must be defined by the build"
#endif

namespace hearth::test {
namespace fs = std::filesystem;

fs::path testDataRoot() {
    if (const char* env = std::getenv("HEARTH_TEST_DATA"); env && *env) return fs::path(env);
    return fs::path(HEARTH_SOURCE_DIR).parent_path() / "shared";
}

void reportMissingData(const std::string& what) {
    const char* require = std::getenv("HEARTH_REQUIRE_TEST_DATA");
    if (require && std::string(require) == "1") {
        std::fprintf(stderr, "FAIL: required test data missing (HEARTH_REQUIRE_TEST_DATA=1): %s\n", what.c_str());
        ++failureCount();
    } else {
        std::fprintf(stderr, "SKIP: test data missing: %s\n", what.c_str());
        ++skippedParts();
    }
}

std::optional<fs::path> optionalTestData(const std::string& relative) {
    fs::path path = testDataRoot() / relative;
    std::error_code ec;
    if (fs::exists(path, ec)) return path;
    reportMissingData(path.string() + " (set HEARTH_TEST_DATA)");
    return std::nullopt;
}

fs::path requireTestData(const std::string& relative) {
    if (auto path = optionalTestData(relative)) return *path;
    std::exit(finish()); // 1 if anything failed (this included), else 77
}

void skipPart(const std::string& reason) {
    std::fprintf(stderr, "SKIP: %s\n", reason.c_str());
    ++skippedParts();
}

void skipTest(const std::string& reason) {
    skipPart(reason);
    std::exit(finish());
}

std::vector<GreedyRecord> readGreedyRecords(const fs::path& file) {
    std::vector<GreedyRecord> records;
    std::istringstream lines(readTextFile(file));
    std::string line;
    for (int number = 1; std::getline(lines, line); ++number) {
        if (line.empty()) continue;
        const auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
        try {
            GreedyRecord r{j.at("prompt"), j.at("steps"), j.at("prompt_ids"), j.at("output_ids"), j.at("output_text")};
            CHECK_MSG(!r.promptIds.empty(), file.string() << ":" << number << ": no prompt ids");
            if (!r.promptIds.empty()) records.push_back(std::move(r));
        } catch (const nlohmann::json::exception& e) {
            CHECK_MSG(false, file.string() << ":" << number << ": bad record: " << e.what());
        }
    }
    CHECK_MSG(records.size() == kGreedyRecordCount,
              file.string() << ": " << records.size() << " good records, expected " << kGreedyRecordCount);
    return records;
}

fs::path scratchDir(const std::string& testName) {
    fs::path dir = fs::temp_directory_path() /
                   ("hearth-test-" + testName + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    static std::vector<fs::path>* dirs = nullptr;
    if (!dirs) {
        dirs = new std::vector<fs::path>();
        std::atexit([] {
            std::error_code ec;
            for (const auto& d : *dirs) fs::remove_all(d, ec);
        });
    }
    dirs->push_back(dir);
    return dir;
}

std::string readTextFile(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream os;
    os << in.rdbuf();
    return os.str();
}

} // namespace hearth::test
