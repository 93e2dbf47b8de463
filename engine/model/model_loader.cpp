// Opening a model path: picks the format, reads config, binds weights, loads the tokenizer and
// collects the end-of-generation ids.
#include "model/model_loader.h"
#include "io/gguf_keys.h"

#include <algorithm>
#include <filesystem>

#include "chat/chat_template.h"
#include "io/gguf.h"
#include "io/json_file.h"
#include "io/mapped_file.h"
#include "model/sampling_defaults.h"

namespace hearth {
namespace {
namespace fs = std::filesystem;

void addUnique(std::vector<int32_t>& ids, int64_t id) {
    if (id >= 0 && std::find(ids.begin(), ids.end(), int32_t(id)) == ids.end()) ids.push_back(int32_t(id));
}

// generation_config.json's eos_token_id (an int or a list) joins the stop ids.
Status readGenerationConfig(const std::string& folder, std::vector<int32_t>& ids) {
    const fs::path path = fs::path(folder) / "generation_config.json";
    std::error_code ec;
    if (!fs::exists(path, ec)) return Status::ok();
    HEARTH_ASSIGN(nlohmann::json j, io::readJsonFile(path.string()));
    auto it = j.find("eos_token_id");
    if (it == j.end() || it->is_null()) return Status::ok();
    if (it->is_number_integer()) {
        addUnique(ids, it->get<int64_t>());
    } else if (it->is_array()) {
        for (const auto& v : *it) {
            if (!v.is_number_integer()) return dataLoss(path.string() + ": eos_token_id must hold integers");
            addUnique(ids, v.get<int64_t>());
        }
    } else {
        return dataLoss(path.string() + ": eos_token_id must be an integer or a list");
    }
    return Status::ok();
}

// The chat template of a HF folder: chat_template.jinja (newer transformers) or the
// chat_template of tokenizer_config.json. None is fine (plain completion mode).
Status readHfChatTemplate(const std::string& folder, std::string& out) {
    std::error_code ec;
    const fs::path jinja = fs::path(folder) / "chat_template.jinja";
    if (fs::exists(jinja, ec)) {
        HEARTH_ASSIGN(out, io::readWholeFile(jinja.string()));
        return Status::ok();
    }
    const fs::path config = fs::path(folder) / "tokenizer_config.json";
    if (!fs::exists(config, ec)) return Status::ok();
    HEARTH_ASSIGN(nlohmann::json j, io::readJsonFile(config.string()));
    auto found = chat::chatTemplateFromTokenizerConfig(nlohmann::ordered_json(j));
    if (found.isOk()) out = found.value();
    else if (found.status().code() != StatusCode::NotFound) return found.status().withContext(config.string());
    return Status::ok();
}

Status checkTokenizer(const LoadedModel& m) {
    const int32_t tokVocab = m.tokenizer->vocabSize();
    if (tokVocab > m.config.vocabSize)
        return dataLoss(m.path + ": the tokenizer has " + std::to_string(tokVocab) +
                        " tokens but the model's vocabulary has only " + std::to_string(m.config.vocabSize));
    for (int32_t id : m.endOfGenerationIds)
        if (id >= m.config.vocabSize)
            return dataLoss(m.path + ": end-of-generation id " + std::to_string(id) + " is outside the vocabulary");
    return Status::ok();
}

Status checkPath(const std::string& path) {
    std::error_code ec;
    if (path.empty()) return invalidArgument("no model path given");
    if (!fs::exists(path, ec)) return notFound(path + ": no such file or folder");
    return Status::ok();
}

} // namespace

Result<ModelDescription> describeModel(const std::string& path) {
    HEARTH_TRY(checkPath(path));
    std::error_code ec;
    if (fs::is_directory(path, ec)) return describeHfFolder(path);
    return describeGguf(path);
}

Result<LoadedModel> loadModel(const std::string& path) {
    HEARTH_TRY(checkPath(path));
    LoadedModel m;
    m.path = path;
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        HEARTH_ASSIGN(ModelDescription d, describeHfFolder(path));
        m.format = ModelFormat::HuggingFace;
        m.config = d.config;
        HEARTH_ASSIGN(m.weights, bindWeights(m.config, d.tensors, m.format));
        m.parameterCount = d.tensors.parameterCount();
        m.tensorTypeCounts = d.tensors.typeCounts();
        HEARTH_ASSIGN(m.tokenizer, loadTokenizer(path));
        HEARTH_TRY(readGenerationConfig(path, m.endOfGenerationIds));
        HEARTH_TRY(readHfChatTemplate(path, m.chatTemplate));
    } else {
        HEARTH_ASSIGN(io::GgufFile file, io::GgufFile::openModel(path));
        m.format = ModelFormat::Gguf;
        HEARTH_ASSIGN(m.config, configFromGguf(file));
        addSamplingBeside(path, m.config.sampling);
        const TensorSource tensors = tensorSourceFromGguf(file);
        HEARTH_ASSIGN(m.weights, bindWeights(m.config, tensors, m.format));
        m.parameterCount = tensors.parameterCount();
        m.tensorTypeCounts = tensors.typeCounts();
        HEARTH_ASSIGN(m.tokenizer, loadTokenizerFromGguf(file));
        if (file.find(gguf_key::kChatTemplate)) {
            HEARTH_ASSIGN(m.chatTemplate, file.getString(gguf_key::kChatTemplate));
        }
        for (const char* key : {gguf_key::kEotId, gguf_key::kEomId})
            if (file.find(key)) {
                HEARTH_ASSIGN(uint64_t id, file.getUInt(key));
                addUnique(m.endOfGenerationIds, int64_t(id));
            }
    }
    addUnique(m.endOfGenerationIds, m.tokenizer->eosId());
    HEARTH_TRY(checkTokenizer(m));
    return m;
}

} // namespace hearth
