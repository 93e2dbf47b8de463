// A minimal test harness for engine tests (no Qt, no GoogleTest): CHECK macros that record
// failures and keep going, a device banner, and the exit code convention
// (0 pass, 1 fail, 77 skipped because test data is missing; a failed check always wins).
#pragma once

#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>

namespace hearth::test {

constexpr int kSkipExitCode = 77;

int& failureCount();
// Parts of the test left out (missing data, no device): counted by testdata.h's helpers.
int& skippedParts();
// Prints "[device] <name>" so every test log says where it ran.
void announce(const char* testName, const char* device);
// Ends the test: returns the process exit code, 1 if any check failed, else 77 if a part was
// skipped, else 0 (prints a summary line).
int finish();

} // namespace hearth::test

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);         \
            ++::hearth::test::failureCount();                                                      \
        }                                                                                          \
    } while (0)

#define CHECK_MSG(cond, msg)                                                                       \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::ostringstream hearthCheckOs_;                                                     \
            hearthCheckOs_ << msg;                                                                 \
            std::fprintf(stderr, "%s:%d: CHECK failed: %s: %s\n", __FILE__, __LINE__, #cond,      \
                         hearthCheckOs_.str().c_str());                                            \
            ++::hearth::test::failureCount();                                                      \
        }                                                                                          \
    } while (0)

#define CHECK_EQ(a, b) CHECK_MSG((a) == (b), "got " << (a) << ", expected " << (b))

#define CHECK_NEAR(a, b, tol)                                                                      \
    CHECK_MSG(std::fabs(double(a) - double(b)) <= double(tol),                                     \
              "got " << (a) << ", expected " << (b) << " within " << (tol))

// A Status/Result must be ok; prints its message otherwise.
#define CHECK_OK(expr)                                                                             \
    do {                                                                                           \
        const auto& hearthCheckSt_ = (expr);                                                       \
        CHECK_MSG(hearthCheckSt_.isOk(), hearthCheckSt_.status().message());                       \
    } while (0)

// A Status/Result must fail with the given code and a message containing `needle`.
#define CHECK_ERR(expr, codeValue, needle)                                                         \
    do {                                                                                           \
        const auto& hearthCheckSt_ = (expr);                                                       \
        const auto& hearthStatus_ = hearthCheckSt_.status();                                       \
        CHECK_MSG(!hearthCheckSt_.isOk(), "expected an error containing '" << (needle) << "'");   \
        if (!hearthCheckSt_.isOk()) {                                                              \
            CHECK_MSG(hearthStatus_.code() == (codeValue),                                         \
                      "wrong code for: " << hearthStatus_.message());                              \
            CHECK_MSG(hearthStatus_.message().find(needle) != std::string::npos,                   \
                      "message '" << hearthStatus_.message() << "' lacks '" << (needle) << "'");  \
        }                                                                                          \
    } while (0)
