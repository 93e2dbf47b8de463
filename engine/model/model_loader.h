// Loading a model from a GGUF file or a Hugging Face folder into config + weights + tokenizer,
// validating every shape against the architecture before anything is computed.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "hearth/status.h"
#include "model/model_config.h"
#include "model/model_weights.h"
#include "model/tensor_source.h"
#include "tokenizer/tokenizer.h"

namespace hearth {

namespace io { class GgufFile; }

struct LoadedModel {
    std::string path;
    ModelFormat format = ModelFormat::Gguf;
    ModelConfig config;
    ModelWeights weights;
    std::unique_ptr<Tokenizer> tokenizer;
    std::vector<int32_t> endOfGenerationIds; // EOS, EOT, generation_config.json's
    std::string chatTemplate;                // Jinja source; empty: plain completion mode
    uint64_t parameterCount = 0;             // every tensor in the file
    std::map<std::string, int> tensorTypeCounts;
};

// Reads only what `inspect` and the memory estimate need: config and the tensor table.
struct ModelDescription {
    std::string path;
    ModelFormat format = ModelFormat::Gguf;
    ModelConfig config;
    TensorSource tensors;
};

// `path`: a .gguf file or a folder with config.json + safetensors. Errors name the file and the
// key or tensor (NotFound, DataLoss, Unsupported, InvalidArgument).
Result<ModelDescription> describeModel(const std::string& path);
Result<LoadedModel> loadModel(const std::string& path);

// Per format (model/gguf_model.cpp, model/hf_model.cpp).
Result<ModelConfig> configFromGguf(const io::GgufFile& file);
TensorSource tensorSourceFromGguf(const io::GgufFile& file);
Result<ModelDescription> describeHfFolder(const std::string& folder);
// config.json alone → ModelConfig (hearth-cli synth --config); the name is the folder's.
Result<ModelConfig> configFromHfFile(const std::string& configPath);
Result<ModelDescription> describeGguf(const std::string& path);

// Binds the tensors to layer weights with shape checks (model/weights_binding.cpp). The GGUF
// and HF names differ; `format` selects them. Validate also reads every block's scale and
// refuses NaN/Inf (touching the whole file); Skip binds from the tensor table alone, for
// planning and inspection only — weights bound that way must not be computed with.
enum class ScaleCheck { Validate, Skip };
Result<ModelWeights> bindWeights(const ModelConfig& config, const TensorSource& source,
                                 ModelFormat format, ScaleCheck scales = ScaleCheck::Validate);

} // namespace hearth
