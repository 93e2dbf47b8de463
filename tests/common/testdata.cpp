#include "testdata.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unistd.h>
#include <vector>

#ifndef HEARTH_SOURCE_DIR
#error "HEARTH_SOURCE_DIR must be defined by the build"
#endif

namespace hearth::test {
namespace fs = std::filesystem;

fs::path testDataRoot() {
    if (const char* env = std::getenv("HEARTH_TEST_DATA"); env && *env) return fs::path(env);
    return fs::path(HEARTH_SOURCE_DIR).parent_path() / "shared";
}

fs::path requireTestData(const std::string& relative) {
    fs::path path = testDataRoot() / relative;
    std::error_code ec;
    if (fs::exists(path, ec)) return path;
    const char* require = std::getenv("HEARTH_REQUIRE_TEST_DATA");
    if (require && std::string(require) == "1") {
        std::fprintf(stderr, "FAIL: required test data missing: %s\n", path.c_str());
        std::exit(1);
    }
    std::fprintf(stderr, "SKIP: test data missing: %s (set HEARTH_TEST_DATA)\n", path.c_str());
    std::exit(kSkipExitCode);
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
