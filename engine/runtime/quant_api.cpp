// The public quant calls: the preset list and a preset's plan for a model, from the tensor table.
#include <algorithm>
#include <filesystem>

#include "export/gguf_export.h"
#include "hearth/quant.h"
#include "model/model_loader.h"
#include "model/deltanet_order.h"
#include "model/quantize_model.h"
#include "quant/presets.h"
#include "runtime/model_info.h"

namespace hearth {

std::vector<QuantPresetInfo> quantPresets() {
    std::vector<QuantPresetInfo> out;
    const std::string list = quantPresetList(); // the one place that names them all, in order
    for (size_t start = 0; start < list.size();) {
        const size_t comma = std::min(list.find(", ", start), list.size());
        const std::string name = list.substr(start, comma - start);
        if (const auto preset = parseQuantPreset(name)) out.push_back({name, presetIsQuantized(*preset)});
        start = comma + 2;
    }
    return out;
}

Result<QuantPlan> planQuantPreset(const std::string& modelPath, const std::string& presetName) {
    HEARTH_ASSIGN(const QuantPreset preset, parsePresetOrError(presetName)); // before reading the file
    HEARTH_ASSIGN(const ModelDescription d, describeModel(modelPath));
    return planQuantPreset(d, preset);
}

Result<QuantPlan> planQuantPreset(const ModelDescription& d, QuantPreset preset) {
    HEARTH_ASSIGN(ModelWeights weights, bindWeights(d.config, d.tensors, d.format, ScaleCheck::Skip));
    const std::vector<PlannedTensor> plan = planPreset(weights, preset);
    const bool requantizes = std::any_of(plan.begin(), plan.end(), [](const PlannedTensor& p) {
        return p.from != p.to && isBlockQuantized(p.from);
    });
    return QuantPlan{quantPresetName(preset), plannedWeightBytes(weights, plan),
                     plannedTypeCounts(d.tensors.typeCounts(), plan), requantizes};
}

Result<QuantizeResult> quantizeModel(const QuantizeParams& params) {
    if (params.threads < 0) return invalidArgument("threads must be >= 0");
    HEARTH_ASSIGN(const QuantPreset preset, parsePresetOrError(params.preset));
    auto report = [&](double fraction) {
        if (params.onProgress) params.onProgress(fraction);
    };
    auto stopped = [&] { return params.cancel && params.cancel->load(std::memory_order_relaxed); };
    const std::string what = params.outputPath + ": quantizing was cancelled";
    report(0);
    if (stopped()) return cancelled(what);
    HEARTH_ASSIGN(LoadedModel model, loadModel(params.inputPath));
    // GGUF keeps Gated DeltaNet value heads in llama.cpp's tiled order; the columns of ssm_out
    // can move only while they are 16/32-bit, so before the preset quantizes them.
    HEARTH_TRY(reorderValueHeadsToTiled(model.config, model.weights, model.path));
    // Conversion is most of the work; writing the file the rest.
    PresetProgress progress;
    progress.cancel = params.cancel;
    progress.onMatrix = [&](int done, int total) { report(0.05 + 0.8 * done / std::max(total, 1)); };
    report(0.05);
    HEARTH_TRY(applyPreset(model, preset, params.allowRequantize, params.threads, progress));
    if (stopped()) return cancelled(what);
    HEARTH_TRY(exportGguf(model, preset, params.outputPath));
    std::error_code ec;
    const uint64_t fileBytes = std::filesystem::file_size(params.outputPath, ec);
    report(1);
    return QuantizeResult{quantPresetName(preset), model.tensorTypeCounts, model.weights.totalBytes(), ec ? 0 : fileBytes};
}

} // namespace hearth
