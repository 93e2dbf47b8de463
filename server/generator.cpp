#include "server/generator.h"

#include <ctime>
#include <filesystem>

namespace hearth::server {

std::string modelIdFromPath(const std::string& path) {
    std::filesystem::path p(path);
    while (!p.empty() && p.filename().empty()) p = p.parent_path(); // "folder/" → "folder"
    std::string name = p.filename().string();
    const std::string gguf = ".gguf";
    if (name.size() > gguf.size() && name.compare(name.size() - gguf.size(), gguf.size(), gguf) == 0)
        name.resize(name.size() - gguf.size());
    return name.empty() ? "model" : name;
}

LocalGenerator::LocalGenerator(const Model& model, const SessionParams& params, std::string chatTemplate)
    : m_model(model), m_slot(params, std::move(chatTemplate)) {
    m_served = {modelIdFromPath(model.info().path), int64_t(std::time(nullptr))};
}

Status LocalGenerator::prepare() { return m_slot.useChat(m_model, true); }

std::optional<ServedModel> LocalGenerator::servedModel() const { return m_served; }

Status LocalGenerator::withModel(const std::function<void(const Model&, ModelSlot&)>& work) {
    work(m_model, m_slot);
    return Status::ok();
}

} // namespace hearth::server
