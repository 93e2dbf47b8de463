#include "check.h"

namespace hearth::test {

int& failureCount() {
    static int count = 0;
    return count;
}

int& skippedParts() {
    static int count = 0;
    return count;
}

void announce(const char* testName, const char* device) {
    std::printf("[%s] %s\n", device, testName);
}

int finish() {
    if (failureCount() > 0) {
        std::printf("FAIL: %d check(s) failed\n", failureCount());
        return 1;
    }
    if (skippedParts() > 0) {
        std::printf("SKIPPED: %d part(s) skipped (missing data or device); the rest passed\n", skippedParts());
        return kSkipExitCode;
    }
    std::printf("PASS\n");
    return 0;
}

} // namespace hearth::test
