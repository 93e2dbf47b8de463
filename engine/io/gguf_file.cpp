// GgufFile lookups and typed getters (the parsing lives in gguf_reader.cpp).
#include "io/gguf.h"

namespace hearth::io {
namespace {

std::string describe(const GgufValue& value) {
    std::string s = ggufValueTypeName(value.type);
    if (value.type == GgufValueType::Array) {
        s += " of ";
        s += ggufValueTypeName(value.elementType);
    } else if (auto i = value.asInt(); i && *i < 0) {
        s += ' ';
        s += std::to_string(*i);
    }
    return s;
}

} // namespace

const std::string& GgufFile::path() const {
    static const std::string none;
    return m_file ? m_file->path() : none;
}

const GgufValue* GgufFile::find(const std::string& key) const {
    for (const auto& [k, v] : m_metadata)
        if (k == key) return &v;
    return nullptr;
}

const GgufTensorInfo* GgufFile::findTensor(const std::string& name) const {
    for (const GgufTensorInfo& t : m_tensors)
        if (t.name == name) return &t;
    return nullptr;
}

Result<uint64_t> GgufFile::getUInt(const std::string& key) const {
    const GgufValue* v = find(key);
    if (!v) return notFound(path() + ": key " + key + " not found");
    if (v->type == GgufValueType::Bool || v->type == GgufValueType::F32 || v->type == GgufValueType::F64 ||
        !v->asUInt())
        return dataLoss(path() + ": key " + key + ": expected an unsigned integer, got " + describe(*v));
    return *v->asUInt();
}

Result<double> GgufFile::getFloat(const std::string& key) const {
    const GgufValue* v = find(key);
    if (!v) return notFound(path() + ": key " + key + " not found");
    if (v->type == GgufValueType::Bool || !v->asFloat())
        return dataLoss(path() + ": key " + key + ": expected a number, got " + describe(*v));
    return *v->asFloat();
}

Result<std::string> GgufFile::getString(const std::string& key) const {
    const GgufValue* v = find(key);
    if (!v) return notFound(path() + ": key " + key + " not found");
    if (!v->asString()) return dataLoss(path() + ": key " + key + ": expected a string, got " + describe(*v));
    return *v->asString();
}

Result<bool> GgufFile::getBool(const std::string& key) const {
    const GgufValue* v = find(key);
    if (!v) return notFound(path() + ": key " + key + " not found");
    if (!v->asBool()) return dataLoss(path() + ": key " + key + ": expected a bool, got " + describe(*v));
    return *v->asBool();
}

} // namespace hearth::io
