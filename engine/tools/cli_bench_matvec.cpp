// hearth-cli bench --matvec: one CPU matrix product timed alone (hearth/devices.h's
// timeCpuMatVec), in GB/s of weights read, beside the machine's measured read bandwidth — the
// numbers to set beside another engine's kernels shape by shape (docs/PERFORMANCE.md).
// hearth-cli bench --pool: the thread pool's cost per job (timeCpuPoolJobs).
#include <cstdio>

#include <nlohmann/json.hpp>

#include "hearth/engine.h"
#include "tools/cli_args.h"

namespace hearth::cli {

int benchMatVecCommand(const Args& args) {
    const std::string type = *args.value("--matvec");
    auto rows = args.integer("--rows", 4096, 1, 1 << 24);
    auto cols = args.integer("--cols", 4096, 1, 1 << 24);
    auto tokens = args.integer("--tokens", 1, 1, 4096, "1 = a matrix-vector product");
    auto reps = args.integer("--reps", 50, 1, 100000);
    auto threads = args.integer("--threads", 0, 0, 1024, "0 = all hardware threads");
    for (const auto* r : {&rows, &cols, &tokens, &reps, &threads})
        if (!r->isOk()) return usageError(r->status().message());
    ModelParams kernels;
    if (Status s = readDeviceOptions(args, kernels, nullptr); !s.isOk()) return usageError(s.message());
    auto timing = timeCpuMatVec(type, *rows, *cols, int(*tokens), int(*threads), kernels.cpuKernels == CpuKernels::Fast,
                                int(*reps));
    if (!timing.isOk()) return fail(timing.status());
    const double gbps = double(timing->weightBytes) / (timing->medianMicroseconds * 1e3);
    const double readGbps = measureCpuReadBandwidthGBps(int(*threads));
    const nlohmann::json out = {
        {"type", type}, {"rows", *rows}, {"cols", *cols}, {"tokens", *tokens}, {"threads", *threads},
        {"kernels", kernels.cpuKernels == CpuKernels::Fast ? "fast" : "reference"},
        {"median_us", timing->medianMicroseconds}, {"best_us", timing->bestMicroseconds},
        {"weight_bytes", timing->weightBytes}, {"weights_gbps", gbps},
        {"gflops", 2.0 * double(*rows) * double(*cols) * double(*tokens) / (timing->medianMicroseconds * 1e3)},
        {"read_bandwidth_gbps", readGbps}};
    if (args.has("--json")) {
        std::printf("%s\n", out.dump().c_str());
        return 0;
    }
    std::printf("matvec %s %lldx%lld, %lld token(s), %s kernels: %.1f us (median of %lld; best %.1f us), "
                "%.1f GB/s of weights, %.1f GFLOPS; read bandwidth %.1f GB/s\n",
                type.c_str(), static_cast<long long>(*rows), static_cast<long long>(*cols),
                static_cast<long long>(*tokens), out["kernels"].get<std::string>().c_str(), timing->medianMicroseconds,
                static_cast<long long>(*reps), timing->bestMicroseconds, gbps, out["gflops"].get<double>(), readGbps);
    return 0;
}

int benchPoolCommand(const Args& args) {
    auto reps = args.integer("--reps", 1000, 1, 10000000);
    auto threads = args.integer("--threads", 0, 0, 1024, "0 = all hardware threads");
    for (const auto* r : {&reps, &threads})
        if (!r->isOk()) return usageError(r->status().message());
    auto timing = timeCpuPoolJobs(int(*threads), int(*reps));
    if (!timing.isOk()) return fail(timing.status());
    const nlohmann::json out = {{"threads", *threads},
                                {"reps", *reps},
                                {"fixed_parts_median_us", timing->fixedMedianMicroseconds},
                                {"claimed_ranges_median_us", timing->claimedMedianMicroseconds}};
    if (args.has("--json")) {
        std::printf("%s\n", out.dump().c_str());
        return 0;
    }
    std::printf("thread pool, %lld thread(s): an empty job costs %.2f us split in fixed parts, %.2f us in claimed "
                "ranges (768 rows, grains of 16); median of %lld\n",
                static_cast<long long>(*threads), timing->fixedMedianMicroseconds, timing->claimedMedianMicroseconds,
                static_cast<long long>(*reps));
    return 0;
}

} // namespace hearth::cli
