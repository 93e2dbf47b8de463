// The device report through the public headers: the CPU first, and when no CUDA device is listed
// a reason a program can act on (an enum, never words to parse) plus the engine's words for logs.
#include <set>
#include <string>

#include "check.h"
#include "hearth/devices.h"

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
    return test::finish();
}
