// Synthetic model shapes: the hyperparameters of real models (from their config.json files) and
// small test shapes, and turning a shape name or an HF config.json into a ModelConfig.
#include <cmath>
#include <numbers>

#include "model/arch/arch.h"
#include "model/model_loader.h"
#include "synth/synth_internal.h"

namespace hearth {
namespace {

struct ShapeSpec {
    const char* name;
    Architecture arch;
    int32_t vocab, hidden, layers, heads, kvHeads, headDim, ffn, context;
    float theta, rmsEps;
    bool tied;
    bool llama31Rope; // Llama 3.1's long-context RoPE: factor 8, low 1, high 4, original 8192
    // Qwen3.5: the Gated DeltaNet's key and value heads (one head size for both, conv width 4)
    // and the rotated part of each attention head.
    int32_t linearKeyHeads = 0, linearValueHeads = 0, linearHeadDim = 0, ropeDims = 0;
};

// Values from each model's config.json. Qwen2.5 has q/k/v biases and Qwen3 q/k norms by
// architecture. small-100m: 12 x 6.29M + the tied 32000 x 768 embedding = 100.1M parameters.
// Qwen3.5 (engines.md §4a; transformers' Qwen3_5TextConfig defaults are the 9B): 27B = 64 layers
// of which 16 attention, 24 x 256 query / 4 KV heads, GDN 16 key / 48 value heads of 128; the 9B
// 32 layers, 16 / 4 heads, GDN 16 / 32 heads, untied. tiny-qwen35: widths of 256 for every
// quant type, 2 key heads of 4 value heads so that the two head orders differ.
constexpr ShapeSpec kShapes[] = {
    {"llama-3-8b", Architecture::Llama, 128256, 4096, 32, 32, 8, 128, 14336, 8192, 500000.0f, 1e-5f, false, false},
    {"llama-3.1-8b", Architecture::Llama, 128256, 4096, 32, 32, 8, 128, 14336, 131072, 500000.0f, 1e-5f, false, true},
    {"qwen2.5-7b", Architecture::Qwen2, 152064, 3584, 28, 28, 4, 128, 18944, 32768, 1e6f, 1e-6f, false, false},
    {"qwen2.5-32b", Architecture::Qwen2, 152064, 5120, 64, 40, 8, 128, 27648, 32768, 1e6f, 1e-6f, false, false},
    {"qwen3-8b", Architecture::Qwen3, 151936, 4096, 36, 32, 8, 128, 12288, 40960, 1e6f, 1e-6f, false, false},
    {"qwen3-32b", Architecture::Qwen3, 151936, 5120, 64, 64, 8, 128, 25600, 40960, 1e6f, 1e-6f, false, false},
    {"tiny-llama", Architecture::Llama, 4096, 256, 4, 4, 2, 64, 768, 2048, 10000.0f, 1e-5f, false, false},
    {"tiny-qwen2", Architecture::Qwen2, 4096, 256, 4, 4, 2, 64, 768, 2048, 1e6f, 1e-6f, false, false},
    {"tiny-qwen3", Architecture::Qwen3, 4096, 256, 4, 4, 2, 64, 768, 2048, 1e6f, 1e-6f, false, false},
    {"small-100m", Architecture::Llama, 32000, 768, 12, 12, 4, 64, 2048, 2048, 10000.0f, 1e-5f, true, false},
    {"qwen3.5-27b", Architecture::Qwen35, 248320, 5120, 64, 24, 4, 256, 17408, 262144, 1e7f, 1e-6f, false, false,
     16, 48, 128, 64},
    {"qwen3.5-9b", Architecture::Qwen35, 248320, 4096, 32, 16, 4, 256, 12288, 262144, 1e7f, 1e-6f, false, false,
     16, 32, 128, 64},
    {"tiny-qwen35", Architecture::Qwen35, 4096, 256, 4, 4, 2, 64, 768, 2048, 1e7f, 1e-6f, false, false, 2, 4, 64, 16},
};

ModelConfig configOf(const ShapeSpec& s) {
    ModelConfig c;
    c.arch = s.arch;
    c.name = s.name;
    c.vocabSize = s.vocab;
    c.hidden = s.hidden;
    c.layers = s.layers;
    c.heads = s.heads;
    c.kvHeads = s.kvHeads;
    c.headDim = s.headDim;
    c.ffn = s.ffn;
    c.contextLength = s.context;
    c.rmsEps = s.rmsEps;
    c.tiedEmbeddings = s.tied;
    c.rope.theta = s.theta;
    c.rope.dims = s.ropeDims > 0 ? s.ropeDims : s.headDim;
    if (s.linearKeyHeads > 0)
        c.deltaNet = {s.linearKeyHeads, s.linearValueHeads, s.linearHeadDim, s.linearHeadDim, 4, ValueHeadOrder::Tiled};
    // Synth writes GGUF: the architecture's conventions for that format.
    (void)archSpec(s.arch).conventions(c, ModelFormat::Gguf, nullptr, s.name);
    if (s.llama31Rope) {
        c.rope.scaling = RopeScaling::Llama3;
        c.rope.factor = 8.0f;
        c.rope.lowFreqFactor = 1.0f;
        c.rope.highFreqFactor = 4.0f;
        c.rope.originalContext = 8192;
    }
    return c;
}

Status checkConfig(const ModelConfig& c, const std::string& where) {
    if (c.heads <= 0 || c.kvHeads <= 0 || c.heads % c.kvHeads != 0)
        return invalidArgument(where + ": " + std::to_string(c.heads) + " attention heads are not a multiple of " +
                               std::to_string(c.kvHeads) + " key/value heads");
    if (c.headDim <= 0 || c.headDim % 2 != 0) return invalidArgument(where + ": the head dimension must be even");
    return Status::ok();
}

} // namespace

std::vector<std::string> synthShapeNames() {
    std::vector<std::string> names;
    for (const ShapeSpec& s : kShapes) names.emplace_back(s.name);
    return names;
}

std::string synthShapeList() {
    std::string out;
    for (const ShapeSpec& s : kShapes) out += (out.empty() ? "" : ", ") + std::string(s.name);
    return out;
}

Result<ModelConfig> synthShapeConfig(const std::string& name) {
    for (const ShapeSpec& s : kShapes)
        if (name == s.name) return configOf(s);
    return invalidArgument("unknown shape '" + name + "' (known shapes: " + synthShapeList() + ")");
}

namespace synth {

Result<ModelConfig> resolveConfig(const SynthParams& params, std::string& shapeName) {
    if (params.config) {
        shapeName = params.config->name.empty() ? "shape" : params.config->name;
        HEARTH_TRY(checkConfig(*params.config, shapeName));
        return *params.config;
    }
    if (params.shape.empty() == params.configPath.empty())
        return invalidArgument("give exactly one of a shape name or a config.json");
    ModelConfig c;
    if (!params.shape.empty()) {
        HEARTH_ASSIGN(c, synthShapeConfig(params.shape));
        shapeName = params.shape;
    } else {
        HEARTH_ASSIGN(c, configFromHfFile(params.configPath));
        // Synth writes GGUF (a llama's Q/K rows in adjacent-pair order): that format's
        // conventions, keeping the biases config.json asked for.
        const bool biases = c.attnBias;
        HEARTH_TRY(archSpec(c.arch).conventions(c, ModelFormat::Gguf, nullptr, params.configPath));
        c.attnBias = biases;
        shapeName = c.name.empty() ? "config" : c.name;
        HEARTH_TRY(checkConfig(c, params.configPath));
    }
    if (params.layers < 0 || params.layers > 4096)
        return invalidArgument("layers must be 1 to 4096, got " + std::to_string(params.layers));
    if (params.layers > 0) {
        c.layers = params.layers;
        c.layerKinds.resize(size_t(c.layers)); // a shorter model keeps the first layers' kinds
    }
    c.name = shapeName + " (synthetic)";
    return c;
}

std::vector<float> llama3FrequencyFactors(const RopeParams& rope) {
    // Each frequency pair is divided by its factor: 1 for short wavelengths (kept), `factor` for
    // long ones (interpolated), and a smooth blend between: what Meta's reference applies.
    const int pairs = rope.dims / 2;
    const double lowWavelen = rope.originalContext / rope.lowFreqFactor;
    const double highWavelen = rope.originalContext / rope.highFreqFactor;
    std::vector<float> factors(pairs);
    for (int i = 0; i < pairs; ++i) {
        const double frequency = 1.0 / std::pow(double(rope.theta), 2.0 * i / rope.dims);
        const double wavelen = 2.0 * std::numbers::pi / frequency;
        double divisor = 1.0;
        if (wavelen > lowWavelen) {
            divisor = rope.factor;
        } else if (wavelen >= highWavelen) {
            const double smooth = (rope.originalContext / wavelen - rope.lowFreqFactor) /
                                  (rope.highFreqFactor - rope.lowFreqFactor);
            divisor = 1.0 / ((1.0 - smooth) / rope.factor + smooth);
        }
        factors[i] = float(divisor);
    }
    return factors;
}

} // namespace synth
} // namespace hearth
