// GgufValue construction and conversions, plus the small GgufTensorInfo helper.
#include <limits>

#include "io/gguf.h"

namespace hearth::io {

const char* ggufValueTypeName(GgufValueType type) {
    switch (type) {
    case GgufValueType::U8: return "u8";
    case GgufValueType::I8: return "i8";
    case GgufValueType::U16: return "u16";
    case GgufValueType::I16: return "i16";
    case GgufValueType::U32: return "u32";
    case GgufValueType::I32: return "i32";
    case GgufValueType::F32: return "f32";
    case GgufValueType::Bool: return "bool";
    case GgufValueType::String: return "string";
    case GgufValueType::Array: return "array";
    case GgufValueType::U64: return "u64";
    case GgufValueType::I64: return "i64";
    case GgufValueType::F64: return "f64";
    }
    return "unknown";
}

GgufValue GgufValue::u32(uint32_t v) {
    GgufValue value;
    value.type = GgufValueType::U32;
    value.data = uint64_t(v);
    return value;
}

GgufValue GgufValue::i32(int32_t v) {
    GgufValue value;
    value.type = GgufValueType::I32;
    value.data = int64_t(v);
    return value;
}

GgufValue GgufValue::u64(uint64_t v) {
    GgufValue value;
    value.type = GgufValueType::U64;
    value.data = v;
    return value;
}

GgufValue GgufValue::f32(float v) {
    GgufValue value;
    value.type = GgufValueType::F32;
    value.data = double(v);
    return value;
}

GgufValue GgufValue::boolean(bool v) {
    GgufValue value;
    value.type = GgufValueType::Bool;
    value.data = v;
    return value;
}

GgufValue GgufValue::string(std::string v) {
    GgufValue value;
    value.type = GgufValueType::String;
    value.data = std::move(v);
    return value;
}

GgufValue GgufValue::array(GgufValueType elementType, std::vector<GgufValue> items) {
    GgufValue value;
    value.type = GgufValueType::Array;
    value.elementType = elementType;
    value.data = std::move(items);
    return value;
}

GgufValue GgufValue::stringArray(const std::vector<std::string>& items) {
    std::vector<GgufValue> values;
    values.reserve(items.size());
    for (const auto& s : items) values.push_back(string(s));
    return array(GgufValueType::String, std::move(values));
}

GgufValue GgufValue::f32Array(const std::vector<float>& items) {
    std::vector<GgufValue> values;
    values.reserve(items.size());
    for (float f : items) values.push_back(f32(f));
    return array(GgufValueType::F32, std::move(values));
}

GgufValue GgufValue::i32Array(const std::vector<int32_t>& items) {
    std::vector<GgufValue> values;
    values.reserve(items.size());
    for (int32_t i : items) values.push_back(i32(i));
    return array(GgufValueType::I32, std::move(values));
}

std::optional<uint64_t> GgufValue::asUInt() const {
    if (const auto* u = std::get_if<uint64_t>(&data)) return *u;
    if (const auto* i = std::get_if<int64_t>(&data)) {
        if (*i >= 0) return static_cast<uint64_t>(*i);
    }
    return std::nullopt;
}

std::optional<int64_t> GgufValue::asInt() const {
    if (const auto* i = std::get_if<int64_t>(&data)) return *i;
    if (const auto* u = std::get_if<uint64_t>(&data)) {
        if (*u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
            return static_cast<int64_t>(*u);
    }
    return std::nullopt;
}

std::optional<double> GgufValue::asFloat() const {
    if (const auto* d = std::get_if<double>(&data)) return *d;
    if (const auto* u = std::get_if<uint64_t>(&data)) return static_cast<double>(*u);
    if (const auto* i = std::get_if<int64_t>(&data)) return static_cast<double>(*i);
    return std::nullopt;
}

std::optional<bool> GgufValue::asBool() const {
    if (const auto* b = std::get_if<bool>(&data)) return *b;
    return std::nullopt;
}

const std::string* GgufValue::asString() const { return std::get_if<std::string>(&data); }

const std::vector<GgufValue>* GgufValue::asArray() const {
    return std::get_if<std::vector<GgufValue>>(&data);
}

uint64_t GgufTensorInfo::elements() const {
    // The reader guarantees the product fits in int64; an empty ne (never produced) gives 0.
    if (ne.empty()) return 0;
    uint64_t n = 1;
    for (uint64_t d : ne) n *= d;
    return n;
}

} // namespace hearth::io
