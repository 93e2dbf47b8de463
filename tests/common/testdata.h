// Locating shared test data: HEARTH_TEST_DATA names the folder that holds models/
// (default: ../shared beside the source tree). Missing data means "skipped" (exit 77), or a
// failure when HEARTH_REQUIRE_TEST_DATA=1.
#pragma once

#include <filesystem>
#include <string>

namespace hearth::test {

constexpr int kSkipExitCode = 77;

// The test data root (the folder containing models/).
std::filesystem::path testDataRoot();

// Returns root/relative if it exists. Otherwise prints why and exits: 77 (skip), or 1 when
// HEARTH_REQUIRE_TEST_DATA=1.
std::filesystem::path requireTestData(const std::string& relative);

// A fresh, empty scratch folder for this test (under the build tree's temp dir), removed at exit.
std::filesystem::path scratchDir(const std::string& testName);

std::string readTextFile(const std::filesystem::path& path);

} // namespace hearth::test
