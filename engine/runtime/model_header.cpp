// ModelHeader: one read of a model's header and tensor table, answering what describeModelFile,
// planQuantPreset and estimateMemory answer from the path, through the same internal calls.
#include "hearth/model.h"
#include "model/quantize_model.h"
#include "runtime/model_info.h"

namespace hearth {

struct ModelHeader::Impl {
    ModelDescription description; // its tensor table keeps the file mapped
    ModelInfo info;
};

ModelHeader::ModelHeader() : m_impl(std::make_unique<Impl>()) {}
ModelHeader::~ModelHeader() = default;

Result<std::unique_ptr<ModelHeader>> ModelHeader::read(const std::string& path) {
    HEARTH_ASSIGN(ModelDescription d, describeModel(path));
    std::unique_ptr<ModelHeader> header(new ModelHeader); // the constructor is private
    header->m_impl->info = makeModelInfo(d.path, d.format, d.config, d.tensors.parameterCount(), d.tensors.typeCounts());
    header->m_impl->description = std::move(d);
    return header;
}

const ModelInfo& ModelHeader::info() const { return m_impl->info; }

Result<QuantPlan> ModelHeader::planQuantPreset(const std::string& preset) const {
    HEARTH_ASSIGN(const QuantPreset parsed, parsePresetOrError(preset));
    return hearth::planQuantPreset(m_impl->description, parsed);
}

Result<MemoryEstimate> ModelHeader::estimateMemory(const MemoryEstimateParams& params) const {
    return hearth::estimateMemory(m_impl->description, params);
}

} // namespace hearth
