// The text part of a Hugging Face vision-language checkpoint (tensor_source.h selectTextTensors).
#include <map>

#include "model/tensor_source.h"

namespace hearth {
namespace {

constexpr const char* kWrapperPrefix = "model.language_model.";

bool startsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

} // namespace

Status selectTextTensors(TensorSource& source, std::vector<std::string>& notes) {
    int vision = 0, mtp = 0, text = 0;
    bool wrapped = false;
    for (const auto& [name, t] : source.tensors) wrapped |= startsWith(name, kWrapperPrefix);
    std::map<std::string, SourceTensor> kept;
    for (auto& [name, t] : source.tensors) {
        if (startsWith(name, "model.visual.") || startsWith(name, "visual.")) {
            ++vision;
        } else if (startsWith(name, "mtp.")) {
            ++mtp;
        } else if (wrapped && startsWith(name, kWrapperPrefix)) {
            ++text;
            kept.emplace("model." + name.substr(std::char_traits<char>::length(kWrapperPrefix)), std::move(t));
        } else {
            text += startsWith(name, "model.") ? 1 : 0;
            kept.emplace(name, std::move(t));
        }
    }
    if (wrapped) source.modelPrefix = kWrapperPrefix;
    source.tensors = std::move(kept);
    if (vision > 0 && text == 0)
        return notFound(source.fileName + ": the checkpoint holds only vision-tower tensors (" + std::to_string(vision) +
                        " named model.visual.*) and no language model (no " + kWrapperPrefix + "embed_tokens.weight)");
    if (vision > 0)
        notes.push_back(std::to_string(vision) + " vision-tower tensors (model.visual.*) are ignored: Hearth runs the text model");
    if (mtp > 0)
        notes.push_back(std::to_string(mtp) + " multi-token-prediction tensors (mtp.*) are ignored until speculative decoding lands");
    return Status::ok();
}

} // namespace hearth
