// Model: a loaded, validated model and what it says about itself.
#include <optional>

#include "backend/backend.h"
#include "hearth/engine.h"
#include "model/model_loader.h"
#include "model/quantize_model.h"
#include "runtime/model_info.h"

namespace hearth {

ModelInfo makeModelInfo(const std::string& path, ModelFormat format, const ModelConfig& c,
                        uint64_t parameterCount, const std::map<std::string, int>& typeCounts) {
    ModelInfo info;
    info.path = path;
    info.format = format == ModelFormat::Gguf ? "gguf" : "hf";
    info.architecture = architectureName(c.arch);
    info.name = c.name;
    info.vocabSize = c.vocabSize;
    info.hidden = c.hidden;
    info.layers = c.layers;
    info.heads = c.heads;
    info.kvHeads = c.kvHeads;
    info.headDim = c.headDim;
    info.ffn = c.ffn;
    info.contextLength = c.contextLength;
    info.ropeTheta = c.rope.theta;
    info.rmsEps = c.rmsEps;
    info.ropeScaling = ropeScalingName(c.rope.scaling);
    info.ropePairing = c.rope.pairing == RopePairing::Adjacent ? "adjacent" : "rotate-half";
    info.tiedEmbeddings = c.tiedEmbeddings;
    info.parameterCount = parameterCount;
    info.tensorTypeCounts = typeCounts;
    return info;
}

Model::~Model() = default;

Result<std::unique_ptr<Model>> Model::load(const ModelParams& params) {
    if (params.threads < 0) return invalidArgument("threads must be >= 0");
    std::optional<QuantPreset> preset;
    if (!params.quant.empty()) { // before loading: a typo should not cost a load
        HEARTH_ASSIGN(preset, parsePresetOrError(params.quant));
    }
    HEARTH_ASSIGN(LoadedModel loaded, loadModel(params.path));
    if (preset) HEARTH_TRY(applyPreset(loaded, *preset, params.allowRequantize, params.threads));
    std::unique_ptr<Model> model(new Model());
    model->m_info = makeModelInfo(loaded.path, loaded.format, loaded.config, loaded.parameterCount,
                                  loaded.tensorTypeCounts);
    model->m_model = std::make_unique<LoadedModel>(std::move(loaded));
    HEARTH_ASSIGN(model->m_device, createDeviceModel(*model->m_model, {params.device, params.threads}));
    model->m_params = params;
    return model;
}

const ModelInfo& Model::info() const { return m_info; }
const ModelParams& Model::params() const { return m_params; }

std::vector<int32_t> Model::encode(std::string_view text, bool addBos) const {
    return m_model->tokenizer->encode(text, addBos, /*parseSpecial=*/false);
}

std::string Model::decode(const std::vector<int32_t>& ids) const { return m_model->tokenizer->decode(ids); }

const std::vector<int32_t>& Model::endOfGenerationIds() const { return m_model->endOfGenerationIds; }

} // namespace hearth
