// The CUDA module is found and reports real devices (name, memory, compute capability), and the
// memory estimate describes the GPU it would run on. Skipped (77) where no CUDA device exists.
#include "check.h"
#include "hearth/devices.h"
#include "hearth/engine.h"
#include "testdata.h"

using namespace hearth;

int main() {
    test::announce("devices", "cuda");
    const DeviceReport& report = probeDevices();
    CHECK(!report.devices.empty());
    CHECK(report.devices.front().kind == DeviceKind::Cpu);
    int cuda = 0;
    for (const DeviceInfo& d : report.devices) {
        if (d.kind != DeviceKind::Cuda) continue;
        ++cuda;
        std::printf("cuda %d: %s, %.1f GiB total, %.1f GiB free, compute %s\n", d.index, d.name.c_str(),
                    d.totalBytes / 1073741824.0, d.freeBytes / 1073741824.0, d.computeCapability.c_str());
        CHECK(!d.name.empty());
        CHECK(d.totalBytes > (1ull << 30));
        CHECK(d.freeBytes > 0 && d.freeBytes <= d.totalBytes);
        CHECK(d.computeCapability.size() >= 3 && d.computeCapability.find('.') != std::string::npos);
    }
    if (cuda == 0) test::skipTest("no CUDA device (" + report.cudaUnavailableReason + ")"); // 1 if a check failed
    CHECK(report.cudaUnavailableReason.empty());
    CHECK(report.cudaUnavailable == CudaUnavailable::None);

    const auto model = test::requireTestData("models/stories260K/stories260K-f32.gguf");
    auto estimate = estimateMemory(model.string(), 1024, KvType::F16, DeviceKind::Cuda);
    CHECK_OK(estimate);
    if (estimate.isOk()) {
        CHECK(estimate.value().device.kind == DeviceKind::Cuda);
        CHECK_EQ(estimate.value().kvCacheBytes, 2u * 5 * 4 * 8 * 2 * 1024);
        CHECK(estimate.value().fits);
    }
    return test::finish();
}
