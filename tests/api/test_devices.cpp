// The device report through the public headers: the CPU first, and when no CUDA device is listed
// a reason a program can act on (an enum, never words to parse) plus the engine's words for logs;
// and the CPU kernels' timing call.
#include <set>
#include <string>

#include "check.h"
#include "hearth/devices.h"
#include "hearth/model.h"
#include "hearth/session.h"
#include "testdata.h"

using namespace hearth;

int main() {
    test::announce("devices", "cpu");
    const DeviceReport& report = probeDevices();
    CHECK(!report.devices.empty());
    if (report.devices.empty()) return test::finish();
    CHECK(report.devices.front().kind == DeviceKind::Cpu);
    CHECK(report.devices.front().totalBytes > 0);
    bool anyCuda = false;
    for (const DeviceInfo& d : report.devices) anyCuda = anyCuda || d.kind == DeviceKind::Cuda;
    std::printf("cuda: %s (%s)\n", cudaUnavailableName(report.cudaUnavailable), report.cudaUnavailableReason.c_str());
    CHECK_EQ(report.cudaUnavailable == CudaUnavailable::None, anyCuda);
    CHECK_EQ(report.cudaUnavailableReason.empty(), anyCuda);
    CHECK_EQ(report.cudaUnavailable == CudaUnavailable::NotBuilt, !report.cudaBuilt);

    // Every reason has its own name.
    std::set<std::string> names;
    for (int r = int(CudaUnavailable::None); r <= int(CudaUnavailable::CudaError); ++r)
        names.insert(cudaUnavailableName(CudaUnavailable(r)));
    CHECK_EQ(names.size(), size_t(int(CudaUnavailable::CudaError) + 1));
    CHECK(names.count("unknown") == 0);
    CHECK_EQ(std::string(cudaUnavailableName(CudaUnavailable::None)), "none");

    // One CPU product timed alone (bench --matvec): the bytes it reads, positive times, and
    // errors that name what is wrong.
    for (const bool fast : {true, false}) {
        auto t = timeCpuMatVec("q4_k", 37, 512, 3, 2, fast, 3);
        CHECK_OK(t);
        if (t.isOk()) {
            CHECK_EQ(t->weightBytes, uint64_t(37 * 2 * 144)); // two super-blocks of 144 bytes a row
            CHECK(t->bestMicroseconds > 0 && t->bestMicroseconds <= t->medianMicroseconds);
        }
    }
    CHECK_ERR(timeCpuMatVec("Q4_K", 8, 100, 1, 1, true, 1), StatusCode::InvalidArgument, "multiple");
    CHECK_ERR(timeCpuMatVec("Q3_X", 8, 256, 1, 1, true, 1), StatusCode::InvalidArgument, "Q3_X");
    CHECK_ERR(timeCpuMatVec("F16", 0, 256, 1, 1, true, 1), StatusCode::InvalidArgument, "rows");
    // The pool's cost per job: positive, finite, and refused for nonsense.
    for (const int threads : {1, 2}) {
        auto p = timeCpuPoolJobs(threads, 50);
        CHECK_OK(p);
        if (p.isOk())
            CHECK(p->fixedMedianMicroseconds > 0 && p->claimedMedianMicroseconds > 0 &&
                  p->fixedMedianMicroseconds < 1e6 && p->claimedMedianMicroseconds < 1e6);
    }
    CHECK_ERR(timeCpuPoolJobs(2, 0), StatusCode::InvalidArgument, "reps");
    CHECK_ERR(timeCpuPoolJobs(-1, 5), StatusCode::InvalidArgument, "threads");

    // --device auto: CUDA exactly when a device is listed; otherwise the CPU, with CUDA's reason
    // (on a machine without a driver or without the module, as CI is, the engine still runs).
    const auto dir = test::requireTestData("models/stories260K");
    auto model = Model::load({.path = (dir / "stories260K-f32.gguf").string(), .device = DeviceKind::Auto});
    CHECK_OK(model);
    if (!model.isOk()) return test::finish();
    const DevicePlacement& placed = model.value()->placement();
    std::printf("auto chose %s: %s\n", deviceKindName(placed.kind), placed.why.c_str());
    CHECK_EQ(placed.kind == DeviceKind::Cuda, anyCuda);
    CHECK(placed.why.rfind("auto: ", 0) == 0);
    CHECK(!placed.name.empty());
    if (!anyCuda) {
        CHECK(placed.cudaUnavailable == report.cudaUnavailable);
        CHECK(placed.why == "auto: " + report.cudaUnavailableReason);
    }
    auto session = Session::create(*model.value(), {});
    CHECK_OK(session);
    if (session.isOk()) {
        GenerateParams p;
        p.maxTokens = 4;
        auto r = session.value()->generate({1, 403}, p);
        CHECK_OK(r);
        if (r.isOk()) CHECK_EQ(r->outputIds.size(), size_t(4));
    }
    // Asking for CUDA where there is none is an error that says why, not a crash.
    if (!anyCuda) {
        auto cuda = Model::load({.path = (dir / "stories260K-f32.gguf").string(), .device = DeviceKind::Cuda});
        CHECK(!cuda.isOk());
        if (!cuda.isOk()) std::printf("--device cuda: %s\n", cuda.status().message().c_str());
    }
    return test::finish();
}
