// The public synth call (hearth/synth.h) over the synth layer: names in, names out.
#include "hearth/synth.h"

#include "model/quantize_model.h"
#include "synth/synth.h"

namespace hearth {

std::vector<std::string> synthShapes() { return synthShapeNames(); }

Result<SynthModelResult> synthesizeModel(const SynthModelParams& params) {
    if (params.threads < 0) return invalidArgument("threads must be >= 0");
    SynthParams p;
    HEARTH_ASSIGN(p.preset, parsePresetOrError(params.preset));
    p.shape = params.shape;
    p.configPath = params.configPath;
    p.layers = params.layers;
    p.tokenizerPath = params.tokenizerPath;
    p.tokenizerPre = params.tokenizerPre;
    p.seed = params.seed;
    p.threads = params.threads;
    p.outputPath = params.outputPath;

    SynthSummary summary;
    HEARTH_TRY(writeSynthModel(p, &summary));
    const ModelConfig& c = summary.plan.config;
    SynthModelResult r;
    r.shape = summary.plan.shapeName;
    r.name = c.name;
    r.architecture = architectureName(c.arch);
    r.preset = quantPresetName(p.preset);
    r.layers = c.layers;
    r.vocabSize = c.vocabSize;
    r.parameterCount = summary.plan.parameterCount;
    r.tensorCount = int32_t(summary.plan.tensors.size());
    for (const SynthTensor& t : summary.plan.tensors) ++r.tensorTypeCounts[dtypeName(t.type)];
    r.fileBytes = summary.fileBytes;
    r.seconds = summary.seconds;
    return r;
}

} // namespace hearth
