// Quant presets applied to loaded weights: plan each matrix's type in file order, convert rows in
// parallel into owned buffers, rebind the views.
#include "model/quantize_model.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include "base/thread_pool.h"
#include "quant/dequantize.h"
#include "quant/quantize.h"

namespace hearth {
namespace {

// Converts every row of `m` to `to` into `out`. Rows are split into contiguous ranges, one per
// thread; each row is converted independently, so the bytes do not depend on the split.
// Returns the first row holding a non-finite value, or -1.
int64_t convertMatrix(const WeightMatrix& m, DType to, uint64_t outRowBytes, uint8_t* out, ThreadPool& pool) {
    std::atomic<int64_t> badRow{std::numeric_limits<int64_t>::max()};
    auto work = [&](int64_t begin, int64_t end) {
        std::vector<float> row(size_t(m.cols));
        for (int64_t r = begin; r < end; ++r) {
            dequantizeRow(m.type, m.row(r), row.data(), m.cols);
            bool finite = true;
            for (float v : row) finite &= std::isfinite(v);
            if (!finite) { // quantizers must not see NaN/Inf; report the lowest such row
                int64_t seen = badRow.load();
                while (r < seen && !badRow.compare_exchange_weak(seen, r)) {}
                continue;
            }
            quantizeRow(to, row.data(), out + uint64_t(r) * outRowBytes, m.cols); // F32/F16/BF16 too
        }
    };
    pool.parallelFor(m.rows, work);
    const int64_t bad = badRow.load();
    return bad == std::numeric_limits<int64_t>::max() ? -1 : bad;
}

bool isTied(const ModelWeights& w) { return w.output.data == w.tokenEmbedding.data; }

} // namespace

bool isBlockQuantized(DType type) { return type != DType::F32 && type != DType::F16 && type != DType::BF16; }

Result<QuantPreset> parsePresetOrError(const std::string& name) {
    if (auto preset = parseQuantPreset(name)) return *preset;
    return invalidArgument("unknown quant preset '" + name + "' (valid presets: " + quantPresetList() + ")");
}

std::vector<WeightMatrix*> matricesInFileOrder(ModelWeights& w, bool tied) {
    std::vector<WeightMatrix*> out{&w.tokenEmbedding};
    for (LayerWeights& l : w.layers)
        for (WeightMatrix* m : l.matrices()) out.push_back(m);
    if (!tied) out.push_back(&w.output);
    return out;
}

std::vector<PlannedTensor> planPreset(ModelWeights& weights, QuantPreset preset) {
    const bool tied = isTied(weights);
    PresetPlanner planner(preset, int(weights.layers.size()), tied);
    std::vector<PlannedTensor> plan;
    for (WeightMatrix* m : matricesInFileOrder(weights, tied)) {
        const std::string& name = m->ggufName.empty() ? m->name : m->ggufName;
        plan.push_back({m, m->type, planner.typeFor(name, 2, m->cols)});
    }
    return plan;
}

uint64_t plannedWeightBytes(const ModelWeights& weights, const std::vector<PlannedTensor>& plan) {
    uint64_t total = weights.totalBytes();
    for (const PlannedTensor& p : plan)
        total = total - p.matrix->bytes() + rowBytes(p.to, uint64_t(p.matrix->cols)).value_or(0) * uint64_t(p.matrix->rows);
    return total;
}

std::map<std::string, int> plannedTypeCounts(std::map<std::string, int> counts, const std::vector<PlannedTensor>& plan) {
    for (const PlannedTensor& p : plan) {
        if (--counts[dtypeName(p.from)] <= 0) counts.erase(dtypeName(p.from));
        ++counts[dtypeName(p.to)];
    }
    return counts;
}

namespace {

// The plan, or the reason the preset cannot be applied; checked before converting anything, so
// that an error leaves the model as it was.
Result<std::vector<PlannedTensor>> checkedPlan(LoadedModel& model, QuantPreset preset, bool allowRequantize) {
    std::vector<PlannedTensor> plan = planPreset(model.weights, preset);
    for (const PlannedTensor& p : plan) {
        const std::string& name = p.matrix->name;
        if (p.from != p.to && isBlockQuantized(p.from) && !allowRequantize)
            return failedPrecondition(model.path + ": tensor " + name + " is already quantized (" + dtypeName(p.from) +
                                      "); re-quantizing loses quality — pass --allow-requantize to do it anyway");
        if (p.from != p.to && isBlockQuantized(p.to) && !isQuantizable(p.to))
            return unsupported(model.path + ": tensor " + name + ": cannot quantize to " + dtypeName(p.to));
        if (!rowBytes(p.to, uint64_t(p.matrix->cols)))
            return internalError(model.path + ": tensor " + name + ": planned type " + dtypeName(p.to) +
                                 " does not fit rows of " + std::to_string(p.matrix->cols));
    }
    return plan;
}

} // namespace

Result<bool> deferPreset(LoadedModel& model, QuantPreset preset, bool allowRequantize) {
    HEARTH_ASSIGN(std::vector<PlannedTensor> plan, checkedPlan(model, preset, allowRequantize));
    for (const PlannedTensor& p : plan)
        if (p.from != p.to && isBlockQuantized(p.from)) return false; // re-quantizing stays on the CPU
    for (const PlannedTensor& p : plan) {
        if (p.from == p.to) continue;
        WeightMatrix& m = *p.matrix;
        m.deferredFrom = m.type;
        m.deferredRowBytes = m.rowBytes;
        m.type = p.to;
        m.rowBytes = *rowBytes(p.to, uint64_t(m.cols));
    }
    model.tensorTypeCounts = plannedTypeCounts(model.tensorTypeCounts, plan);
    if (isTied(model.weights)) model.weights.output = model.weights.tokenEmbedding;
    return true;
}

Status applyPreset(LoadedModel& model, QuantPreset preset, bool allowRequantize, int threads,
                   const PresetProgress& progress) {
    if (threads < 0) return invalidArgument("threads must be >= 0");
    const bool tied = isTied(model.weights);
    HEARTH_ASSIGN(std::vector<PlannedTensor> plan, checkedPlan(model, preset, allowRequantize));

    ThreadPool pool(threads);
    std::vector<std::pair<WeightMatrix*, WeightMatrix>> converted; // rebound only when all succeed
    std::vector<std::shared_ptr<const void>> buffers;
    const int total = int(std::count_if(plan.begin(), plan.end(), [](const PlannedTensor& p) { return p.from != p.to; }));
    for (const PlannedTensor& p : plan) {
        if (p.from == p.to) continue;
        if (progress.cancel && progress.cancel->load(std::memory_order_relaxed))
            return cancelled(model.path + ": converting to " + quantPresetName(preset) + " was cancelled");
        const WeightMatrix& m = *p.matrix;
        const uint64_t outRowBytes = *rowBytes(p.to, uint64_t(m.cols));
        auto buffer = std::make_shared<std::vector<uint8_t>>(outRowBytes * uint64_t(m.rows));
        const int64_t badRow = convertMatrix(m, p.to, outRowBytes, buffer->data(), pool);
        if (badRow >= 0)
            return dataLoss(model.path + ": tensor " + m.name + ": row " + std::to_string(badRow) +
                            " holds a NaN or infinite value; it cannot be quantized");
        WeightMatrix next = m;
        next.type = p.to;
        next.rowBytes = outRowBytes;
        next.data = buffer->data();
        converted.emplace_back(p.matrix, next);
        buffers.push_back(std::move(buffer));
        if (progress.onMatrix) progress.onMatrix(int(converted.size()), total);
    }

    model.tensorTypeCounts = plannedTypeCounts(model.tensorTypeCounts, plan);
    for (const auto& [target, next] : converted) *target = next;
    if (tied) model.weights.output = model.weights.tokenEmbedding; // one tensor, both roles
    for (auto& b : buffers) model.weights.storage.push_back(std::move(b));
    return Status::ok();
}

} // namespace hearth
