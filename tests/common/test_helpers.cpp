#include "test_helpers.h"

#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "check.h"
#include "hearth/engine.h"
#include "testdata.h"

namespace hearth::test {

CliOutcome runCli(const std::filesystem::path& scratch, const std::string& args, const std::string& stdinText,
                  int timeoutSeconds) {
    const char* exe = std::getenv("HEARTH_CLI");
    const auto in = scratch / "stdin.txt", out = scratch / "stdout.txt", err = scratch / "stderr.txt";
    std::ofstream(in, std::ios::binary) << stdinText;
    const std::string command = "timeout " + std::to_string(timeoutSeconds) + " " +
                                std::string(exe ? exe : "hearth-cli") + " " + args + " < " + in.string() + " > " +
                                out.string() + " 2> " + err.string();
    const int status = std::system(command.c_str());
    CliOutcome o;
    if (WIFEXITED(status)) o.exitCode = WEXITSTATUS(status);
    o.out = readTextFile(out);
    o.err = readTextFile(err);
    return o;
}

namespace {
std::filesystem::path g_cliScratch;
} // namespace

std::filesystem::path startCliTest(const std::string& testName) {
    if (!std::getenv("HEARTH_CLI")) {
        std::fprintf(stderr, "HEARTH_CLI is not set (run through ctest)\n");
        std::exit(1);
    }
    g_cliScratch = scratchDir(testName);
    return g_cliScratch;
}

CliOutcome cli(const std::string& args, const std::string& stdinText) {
    CHECK_MSG(!g_cliScratch.empty(), "cli() before startCliTest()");
    return runCli(g_cliScratch, args, stdinText, 120);
}

std::vector<float> teacherForcedLogits(const std::string& modelPath, const std::vector<int32_t>& ids, int threads,
                                       const std::string& quant, CpuKernels kernels) {
    ModelParams params;
    params.path = modelPath;
    params.threads = threads;
    params.quant = quant;
    params.cpuKernels = kernels;
    auto model = Model::load(params);
    CHECK_MSG(model.isOk(), modelPath << " " << quant << ": " << model.status().message());
    if (!model.isOk()) return {};
    auto session = Session::create(*model.value(), {.kvType = KvType::F32}); // compared with references
    CHECK_OK(session);
    if (!session.isOk()) return {};
    auto logits = session.value()->evaluate(ids);
    CHECK_OK(logits);
    return logits.isOk() ? std::move(logits).value() : std::vector<float>();
}

double relativeError(const std::vector<float>& a, const std::vector<float>& ref) {
    if (a.size() != ref.size() || a.empty()) return INFINITY;
    double diff = 0, norm = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        diff += (double(a[i]) - ref[i]) * (double(a[i]) - ref[i]);
        norm += double(ref[i]) * ref[i];
    }
    return std::sqrt(diff / norm);
}

void compareLogitRows(const std::vector<float>& got, const std::vector<float>& ref, size_t vocab, double bound,
                      const std::string& what, double& worst) {
    CHECK_EQ(got.size(), ref.size());
    if (got.size() != ref.size()) return;
    int argmaxChecked = 0;
    for (size_t row = 0; row < ref.size() / vocab; ++row) {
        const std::vector<float> g(got.begin() + long(row * vocab), got.begin() + long((row + 1) * vocab));
        const std::vector<float> c(ref.begin() + long(row * vocab), ref.begin() + long((row + 1) * vocab));
        const double err = relativeError(g, c);
        worst = std::max(worst, err);
        CHECK_MSG(err < bound, what << " row " << row << ": relative error " << err << " >= " << bound);
        double squares = 0;
        for (float v : c) squares += double(v) * v;
        const double rms = std::sqrt(squares / double(vocab));
        std::vector<float> sorted = c;
        std::partial_sort(sorted.begin(), sorted.begin() + 2, sorted.end(), std::greater<float>());
        if (sorted[0] - sorted[1] > 8 * bound * rms) {
            ++argmaxChecked;
            CHECK_MSG(std::max_element(g.begin(), g.end()) - g.begin() == std::max_element(c.begin(), c.end()) - c.begin(),
                      what << " row " << row << ": argmax differs");
        }
    }
    CHECK_MSG(argmaxChecked > 0, what << ": no row had a clear argmax to check");
}

std::unique_ptr<Model> loadForComparison(const std::string& path, DeviceKind device, const std::string& quant) {
    auto model = Model::load({.path = path, .device = device, .cpuKernels = CpuKernels::Reference, .quant = quant});
    CHECK_OK(model);
    return model.isOk() ? std::move(model).value() : nullptr;
}

void requireCudaDevice() {
    for (const DeviceInfo& d : probeDevices().devices)
        if (d.kind == DeviceKind::Cuda) return;
    skipTest("no CUDA device: " + probeDevices().cudaUnavailableReason);
}

} // namespace hearth::test
