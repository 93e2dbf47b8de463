// hearth-bench-dataflow's --trace summary (kinds 7-9 and 12; experiment, host code): the %globaltimer
// stamps and stall sums of dataflow_args.cuh's TracePoint, per layer and block, summarised per
// layer (the first two and the last left out) as medians over layers of: how long after the last
// block counted its group in the others started the next phase, how long blocks waited, how long
// each phase's work took, how long the ring stood full or empty; then the blocks slowest in gate/up.
#pragma once

#include <algorithm>
#include <cstdio>
#include <vector>

#include "dataflow_args.cuh"

namespace hearth::kernels::dataflow {

// t: [layer][block][kTracePoints] as the kernel wrote them.
inline void printTimeline(const std::vector<unsigned long long>& t, int kind, int stages, int count, int blocks) {
    auto at = [&](int l, int b, int p) { return double(t[(size_t(l) * blocks + b) * kTracePoints + p]) * 1e-3; }; // µs
    auto median = [](std::vector<double> v) {
        std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
        return v[v.size() / 2];
    };
    auto maxOf = [](const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); };
    auto minOf = [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); };
    const char* names[] = {"layer period",
                           "up: first block starts after the last down signal",
                           "up: median block starts after it",
                           "up: last block starts after it",
                           "up: a block's wait (median)",
                           "up: a block's work, median",
                           "up: a block's work, max",
                           "up: last group signalled after the median start",
                           "down: first block starts after the last up signal",
                           "down: median block starts after it",
                           "down: a block's wait (median)",
                           "down: a block's work, median",
                           "down: a block's work, max",
                           "down: last signal after the median down start",
                           "loader: ring full, issuing gate/up (median block)",
                           "loader: ring full, issuing down (median block)",
                           "workers: ring empty in gate/up (median block)",
                           "workers: ring empty in down (median block)",
                           "up: a block's work to its last warp, median",
                           "up: a block's work to its last warp, max",
                           "down: a block's work to its last warp, median",
                           "down: a block's work to its last warp, max",
                           "down: a block's start to its signal, median",
                           "up: last group's sums seen after the last warp's end",
                           "up: last group counted in after its sums were seen",
                           "down: sums seen after the last warp's end",
                           "down: counted in after the sums were seen"};
    constexpr int kRows = 27;
    std::vector<std::vector<double>> rows(kRows);
    const int down = std::min(blocks, kDownGroups);
    for (int l = 2; l + 1 < count; ++l) {
        std::vector<double> lastDown, upStart, upWait, upWork, upSig, downStart, downWait, downWork, downSig;
        std::vector<double> upLast, downLast, downSpan, upSeen, upEpi, downSeen, downEpi;
        for (int b = 0; b < down; ++b) lastDown.push_back(at(l - 1, b, kDownSignalled));
        for (int b = 0; b < blocks; ++b) {
            upStart.push_back(at(l, b, kUpStart));
            upWait.push_back(at(l, b, kUpStart) - at(l, b, kUpWaitBegin));
            upWork.push_back(at(l, b, kUpEnd) - at(l, b, kUpStart));
            upSig.push_back(at(l, b, kUpSignalled));
            upLast.push_back(at(l, b, kUpEndLast) - at(l, b, kUpStart));
            upSeen.push_back(at(l, b, kUpSumsSeen) - at(l, b, kUpEndLast));
            upEpi.push_back(at(l, b, kUpSignalled) - at(l, b, kUpSumsSeen));
        }
        for (int b = 0; b < down; ++b) {
            downStart.push_back(at(l, b, kDownStart));
            downWait.push_back(at(l, b, kDownStart) - at(l, b, kUpEnd));
            downWork.push_back(at(l, b, kDownEnd) - at(l, b, kDownStart));
            downSig.push_back(at(l, b, kDownSignalled));
            downLast.push_back(at(l, b, kDownEndLast) - at(l, b, kDownStart));
            downSpan.push_back(at(l, b, kDownSignalled) - at(l, b, kDownStart));
            downSeen.push_back(at(l, b, kDownSumsSeen) - at(l, b, kDownEndLast));
            downEpi.push_back(at(l, b, kDownSignalled) - at(l, b, kDownSumsSeen));
        }
        std::vector<double> stall[4];
        for (int i = 0; i < 4; ++i)
            for (int b = 0; b < (i % 2 ? down : blocks); ++b) stall[i].push_back(at(l, b, kLoaderFullUp + i));
        const double D = maxOf(lastDown), U = maxOf(upSig);
        const double v[kRows] = {maxOf(downSig) - D,
                                 minOf(upStart) - D,
                                 median(upStart) - D,
                                 maxOf(upStart) - D,
                                 median(upWait),
                                 median(upWork),
                                 maxOf(upWork),
                                 U - median(upStart),
                                 minOf(downStart) - U,
                                 median(downStart) - U,
                                 median(downWait),
                                 median(downWork),
                                 maxOf(downWork),
                                 maxOf(downSig) - median(downStart),
                                 median(stall[0]),
                                 median(stall[1]),
                                 median(stall[2]),
                                 median(stall[3]),
                                 median(upLast),
                                 maxOf(upLast),
                                 median(downLast),
                                 maxOf(downLast),
                                 median(downSpan),
                                 median(upSeen),
                                 median(upEpi),
                                 median(downSeen),
                                 median(downEpi)};
        for (int i = 0; i < kRows; ++i) rows[i].push_back(v[i]);
    }
    if (rows[0].empty()) return;
    // Which blocks are slow in gate/up: each block's last group counted in after its own start
    // (median over layers), with its group count and SM.
    struct Slow {
        int block, groups, sm;
        double us;
    };
    std::vector<Slow> perBlock;
    for (int b = 0; b < blocks; ++b) {
        std::vector<double> v;
        for (int l = 2; l + 1 < count; ++l) v.push_back(at(l, b, kUpSignalled) - at(l, b, kUpStart));
        perBlock.push_back({b, (b + 1) * kUpGroups / blocks - b * kUpGroups / blocks,
                            int(t[(size_t(2) * blocks + b) * kTracePoints + kSm]), median(v)});
    }
    std::sort(perBlock.begin(), perBlock.end(), [](const Slow& x, const Slow& y) { return x.us > y.us; });
    std::printf("  gate/up, a block's start to its last group counted in (median over layers), slowest first:\n   ");
    for (size_t i = 0; i < perBlock.size(); ++i)
        if (i < 12 || i + 4 >= perBlock.size())
            std::printf(" b%d(%dg,sm%d)=%.2f%s", perBlock[i].block, perBlock[i].groups, perBlock[i].sm, perBlock[i].us,
                        i == 11 ? " ..." : "");
    std::printf("\n");
    std::printf("timeline of kernel %d, %d stages (medians over layers 2..%d, µs):\n", kind, stages, count - 2);
    for (int i = 0; i < kRows; ++i) std::printf("  %-52s %7.2f\n", names[i], median(rows[i]));
}

// --depth (kind 14): the attention's phases per layer, medians over layers 2..count-2 — from the last
// q/k/v group counted in to the tasks' start, the tasks' work, the last task to the last combine, the
// last combine to o's start and o's last group.
inline void printAttentionTimeline(const std::vector<unsigned long long>& t, int count, int blocks, int tasks) {
    auto at = [&](int l, int b, int p) { return double(t[(size_t(l) * blocks + b) * kTracePoints + p]) * 1e-3; };
    auto median = [](std::vector<double> v) {
        std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
        return v[v.size() / 2];
    };
    const char* names[] = {"attn: median task starts after the last q/k/v group", "attn: a task's work, median",
                           "attn: a task's work, max", "attn: last combine after the last task",
                           "o: median block starts after the last combine", "o: last group after the median o start"};
    constexpr int kRows = 6;
    std::vector<std::vector<double>> rows(kRows);
    const int heads = std::min(blocks, kHeads), owners = std::min(blocks, kDownGroups);
    for (int l = 2; l + 1 < count; ++l) {
        double lastQkv = 0, lastTask = 0, lastCombine = 0, lastO = 0;
        std::vector<double> start, work, oStart;
        for (int b = 0; b < blocks; ++b)
            if (t[(size_t(l) * blocks + b) * kTracePoints + kQkvSignalled]) lastQkv = std::max(lastQkv, at(l, b, kQkvSignalled));
        for (int b = 0; b < tasks; ++b) {
            start.push_back(at(l, b, kTaskStart));
            work.push_back(at(l, b, kTaskEnd) - at(l, b, kTaskStart));
            lastTask = std::max(lastTask, at(l, b, kTaskEnd));
        }
        for (int b = 0; b < heads; ++b) lastCombine = std::max(lastCombine, at(l, b, kCombineEnd));
        for (int b = 0; b < owners; ++b) oStart.push_back(at(l, b, kOStart)), lastO = std::max(lastO, at(l, b, kOSignalled));
        const double v[kRows] = {median(start) - lastQkv, median(work), *std::max_element(work.begin(), work.end()),
                                 lastCombine - lastTask, median(oStart) - lastCombine, lastO - median(oStart)};
        for (int i = 0; i < kRows; ++i) rows[i].push_back(v[i]);
    }
    if (rows[0].empty()) return;
    std::printf("attention timeline, %d tasks (medians over layers, µs):\n", tasks);
    for (int i = 0; i < kRows; ++i) std::printf("  %-52s %7.2f\n", names[i], median(rows[i]));
}

} // namespace hearth::kernels::dataflow
