// One file per architecture (llama.cpp, qwen2.cpp, qwen3.cpp, qwen35.cpp here): its name in GGUF
// (general.architecture) and Hugging Face (model_type), and the conventions it fixes once the
// generic sizes are read — biases, q/k norms, the RoPE pairing each file format stores, the kind
// of every layer. Adding an architecture: one file here, one line in registry.cpp, its test.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "hearth/status.h"
#include "model/model_config.h"

namespace hearth {

namespace io { class GgufFile; }

struct ArchSpec {
    Architecture arch;
    const char* name;                    // GGUF general.architecture
    std::vector<std::string> hfModelTypes; // config.json model_type values
    // Sets the architecture's conventions on a config whose sizes are read. `hf` is the parsed
    // config.json (null for GGUF and synth shapes); `where` names the file in errors.
    Status (*conventions)(ModelConfig& config, ModelFormat format, const nlohmann::json* hf, const std::string& where);
    // Reads the architecture's own GGUF keys (after the common ones, before `conventions`);
    // null when it has none.
    Status (*ggufKeys)(ModelConfig& config, const io::GgufFile& file) = nullptr;
};

// nullptr when unknown.
const ArchSpec* findArchByGgufName(std::string_view name);
const ArchSpec* findArchByHfType(std::string_view modelType);
const ArchSpec& archSpec(Architecture arch);
// "llama, qwen2, qwen3", for error messages.
std::string supportedArchitectures();

namespace arch {
// Shared by the architecture files: every layer attention + dense feed-forward.
void uniformAttentionLayers(ModelConfig& config);
// A boolean of config.json, or `fallback` when absent.
Result<bool> hfFlag(const nlohmann::json* hf, const char* key, bool fallback, const std::string& where);

Status llamaConventions(ModelConfig& config, ModelFormat format, const nlohmann::json* hf, const std::string& where);
Status qwen2Conventions(ModelConfig& config, ModelFormat format, const nlohmann::json* hf, const std::string& where);
Status qwen3Conventions(ModelConfig& config, ModelFormat format, const nlohmann::json* hf, const std::string& where);
// Qwen3.5 (model/arch/qwen35.cpp; its GGUF keys in qwen35_gguf.cpp).
Status qwen35Conventions(ModelConfig& config, ModelFormat format, const nlohmann::json* hf, const std::string& where);
Status qwen35GgufKeys(ModelConfig& config, const io::GgufFile& file);
// Layer kinds of a hybrid model: every `interval`-th layer (the last of each group) is attention,
// the others Gated DeltaNet.
void hybridLayers(ModelConfig& config, int32_t interval);
} // namespace arch

} // namespace hearth
