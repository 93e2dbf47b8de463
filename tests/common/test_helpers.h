// Helpers several engine tests share: running hearth-cli as a user would, and comparing logits.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "hearth/model.h"

namespace hearth::test {

struct CliOutcome {
    int exitCode = -1; // -1: killed by a signal
    std::string out, err;
};

// Runs $HEARTH_CLI (set by ctest for every engine test) with `args` (shell words) and `stdinText`
// on stdin, under a timeout; stdout/stderr are captured through files in `scratch`.
CliOutcome runCli(const std::filesystem::path& scratch, const std::string& args, const std::string& stdinText = "",
                  int timeoutSeconds = 300);

// The start of a test of hearth-cli: fails it at once (exit 1) when $HEARTH_CLI is not set — a CLI
// test that cannot find the CLI has not passed — and returns the test's scratch folder
// (scratchDir(testName)), where cli() runs.
std::filesystem::path startCliTest(const std::string& testName);
// runCli in startCliTest's folder, under a 120 s timeout.
CliOutcome cli(const std::string& args, const std::string& stdinText = "");

// The logits of a teacher-forced pass over `ids` on a fresh session with an f32 KV cache
// ([ids x vocab]) on the CPU; empty (and a failed check) when the model does not load. `quant`: a
// preset applied at load, or empty. The reference kernels by default: callers compare the model's
// maths with references (test_cpu_model_fast compares the fast kernels with this).
std::vector<float> teacherForcedLogits(const std::string& modelPath, const std::vector<int32_t>& ids, int threads = 2,
                                       const std::string& quant = "", CpuKernels kernels = CpuKernels::Reference);

// ‖a − ref‖ / ‖ref‖ in double precision; infinity when the sizes differ or are zero.
double relativeError(const std::vector<float>& a, const std::vector<float>& ref);

// Rows of `vocab` logits against the reference's: each row's relative error under `bound` (the
// worst goes to `worst`), and the argmax equal wherever the reference's top-2 margin is clear of
// the bound; at least one row must be that clear. `what` names the comparison in failures.
void compareLogitRows(const std::vector<float>& got, const std::vector<float>& ref, size_t vocab, double bound,
                      const std::string& what, double& worst);

// Loads `path` on `device` (a preset applied when `quant` is not empty), the CPU with its reference
// kernels: what the GPU is compared with. Null, with the failure recorded, when loading fails.
std::unique_ptr<Model> loadForComparison(const std::string& path, DeviceKind device, const std::string& quant = "");

// For the tests of whole models on the CUDA backend: ends the test as skipped (77) naming why
// when the engine lists no CUDA device.
void requireCudaDevice();

} // namespace hearth::test
