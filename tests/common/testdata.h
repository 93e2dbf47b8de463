// Locating shared test data: HEARTH_TEST_DATA names the folder that holds models/
// (default: ../shared beside the source tree). Every decision about missing data is made here:
// missing data means "skipped" (exit 77), or a failure when HEARTH_REQUIRE_TEST_DATA=1; and a
// test whose checks already failed never ends as skipped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "check.h"

namespace hearth::test {

// The test data root (the folder containing models/).
std::filesystem::path testDataRoot();

// Returns root/relative if it exists. Otherwise prints why and exits: 77 (skip), or 1 when
// HEARTH_REQUIRE_TEST_DATA=1 or when a check has already failed.
std::filesystem::path requireTestData(const std::string& relative);

// For data that only part of a test needs: root/relative if it exists; otherwise nothing, and
// the part counts as skipped (finish() then exits 77) or, with HEARTH_REQUIRE_TEST_DATA=1, as a
// failed check.
std::optional<std::filesystem::path> optionalTestData(const std::string& relative);

// The same decision for data that is not a file under the root (a download that could not be
// had): `what` says which.
void reportMissingData(const std::string& what);

// A part of a test that cannot run in this build or on this machine (not missing data): the
// test then ends as skipped unless a check fails.
void skipPart(const std::string& reason);

// Ends a test that cannot run on this machine (no GPU, no HEARTH_CLI): exit 77, or 1 when a
// check has already failed.
[[noreturn]] void skipTest(const std::string& reason);

// One record of models/stories260K/reference_greedy.jsonl (greedy output of llama2.c's run.c).
struct GreedyRecord {
    std::string prompt;
    int steps = 0;
    std::vector<int32_t> promptIds, outputIds;
    std::string outputText;
};

// The file's record count, as shared/models/README.md gives it.
constexpr size_t kGreedyRecordCount = 8;

// Reads that file. A line that does not parse or lacks a field, a record without prompt ids,
// and a record count other than kGreedyRecordCount are failed checks; only well-formed records
// are returned.
std::vector<GreedyRecord> readGreedyRecords(const std::filesystem::path& file);

// A fresh, empty scratch folder for this test (under the build tree's temp dir), removed at exit.
std::filesystem::path scratchDir(const std::string& testName);

std::string readTextFile(const std::filesystem::path& path);

} // namespace hearth::test
