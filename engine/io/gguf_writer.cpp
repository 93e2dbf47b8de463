// GGUF v3 writer: the header is built in memory, tensor data is streamed (models can be larger
// than memory) with zero padding to the alignment after the header and after every tensor,
// which is what llama.cpp writes, so reading a file and writing it back is byte-identical.
#include <cstring>
#include <limits>
#include <optional>
#include <unordered_set>

#include "io/atomic_file.h"
#include "io/checked.h"
#include "io/gguf.h"

namespace hearth::io {
namespace {

constexpr uint64_t kDefaultAlignment = 32;
constexpr uint64_t kMaxTensorNameLength = 256; // same limit as the reader
constexpr int kMaxArrayDepth = 8;

template <typename T>
void put(std::string& out, T v) {
    char bytes[sizeof(T)];
    std::memcpy(bytes, &v, sizeof(T));
    out.append(bytes, sizeof(T));
}

void putString(std::string& out, const std::string& s) {
    put<uint64_t>(out, s.size());
    out += s;
}

Status badValue(const std::string& key, const GgufValue& v, const char* why) {
    return invalidArgument("GGUF key " + key + ": " + ggufValueTypeName(v.type) + " value " + why);
}

template <typename T>
Status putUnsigned(std::string& out, const std::string& key, const GgufValue& v) {
    auto u = v.asUInt();
    if (!u || *u > std::numeric_limits<T>::max()) return badValue(key, v, "is out of range or not an integer");
    put<T>(out, static_cast<T>(*u));
    return Status::ok();
}

template <typename T>
Status putSigned(std::string& out, const std::string& key, const GgufValue& v) {
    auto i = v.asInt();
    if (!i || *i < std::numeric_limits<T>::min() || *i > std::numeric_limits<T>::max())
        return badValue(key, v, "is out of range or not an integer");
    put<T>(out, static_cast<T>(*i));
    return Status::ok();
}

// Writes the value body (not its type tag), checking that the stored data fits the type.
Status putValue(std::string& out, const std::string& key, const GgufValue& v, int depth) {
    switch (v.type) {
    case GgufValueType::U8: return putUnsigned<uint8_t>(out, key, v);
    case GgufValueType::U16: return putUnsigned<uint16_t>(out, key, v);
    case GgufValueType::U32: return putUnsigned<uint32_t>(out, key, v);
    case GgufValueType::U64: return putUnsigned<uint64_t>(out, key, v);
    case GgufValueType::I8: return putSigned<int8_t>(out, key, v);
    case GgufValueType::I16: return putSigned<int16_t>(out, key, v);
    case GgufValueType::I32: return putSigned<int32_t>(out, key, v);
    case GgufValueType::I64: return putSigned<int64_t>(out, key, v);
    case GgufValueType::F32:
    case GgufValueType::F64: {
        auto d = v.asFloat(); // integers are accepted and converted
        if (!d) return badValue(key, v, "does not hold a number");
        if (v.type == GgufValueType::F32) put<float>(out, static_cast<float>(*d));
        else put<double>(out, *d);
        return Status::ok();
    }
    case GgufValueType::Bool: {
        auto b = v.asBool();
        if (!b) return badValue(key, v, "does not hold a bool");
        put<uint8_t>(out, *b ? 1 : 0);
        return Status::ok();
    }
    case GgufValueType::String: {
        const std::string* s = v.asString();
        if (!s) return badValue(key, v, "does not hold a string");
        putString(out, *s);
        return Status::ok();
    }
    case GgufValueType::Array: {
        const auto* items = v.asArray();
        if (!items) return badValue(key, v, "does not hold a list");
        if (depth >= kMaxArrayDepth)
            return invalidArgument("GGUF key " + key + ": arrays nested deeper than " +
                                   std::to_string(kMaxArrayDepth) + " levels");
        put<uint32_t>(out, static_cast<uint32_t>(v.elementType));
        put<uint64_t>(out, items->size());
        for (size_t i = 0; i < items->size(); ++i) {
            const GgufValue& item = (*items)[i];
            if (item.type != v.elementType)
                return invalidArgument("GGUF key " + key + ": array element " + std::to_string(i) + " is " +
                                       ggufValueTypeName(item.type) + ", the array holds " +
                                       ggufValueTypeName(v.elementType));
            HEARTH_TRY(putValue(out, key, item, depth + 1));
        }
        return Status::ok();
    }
    }
    return invalidArgument("GGUF key " + key + ": unknown value type " +
                           std::to_string(static_cast<uint32_t>(v.type)));
}

uint64_t alignmentOf(const std::vector<std::pair<std::string, GgufValue>>& metadata) {
    for (const auto& [key, value] : metadata)
        if (key == "general.alignment") return value.asUInt().value_or(0);
    return kDefaultAlignment;
}

// Appends zero bytes up to the next multiple of `alignment` of `size`.
uint64_t paddingFor(uint64_t size, uint64_t alignment) {
    uint64_t rem = size % alignment;
    return rem ? alignment - rem : 0;
}

} // namespace

void GgufWriter::set(const std::string& key, GgufValue value) {
    for (auto& [k, v] : m_metadata) {
        if (k == key) {
            v = std::move(value);
            return;
        }
    }
    m_metadata.emplace_back(key, std::move(value));
}

void GgufWriter::addTensor(const std::string& name, DType type, std::vector<uint64_t> ne,
                           std::vector<uint8_t> bytes) {
    Tensor t{name, type, std::move(ne), std::move(bytes), nullptr, 0};
    t.bytes = t.owned.size();
    m_tensors.push_back(std::move(t));
}

void GgufWriter::addTensorLayout(const std::string& name, DType type, std::vector<uint64_t> ne) {
    Tensor t{name, type, std::move(ne), {}, nullptr, 0, true};
    uint64_t rows = 1;
    for (size_t i = 1; i < t.ne.size(); ++i) rows *= t.ne[i];
    if (auto row = t.ne.empty() ? std::nullopt : rowBytes(type, t.ne[0])) t.bytes = *row * rows; // checked in validate()
    m_tensors.push_back(std::move(t));
}

void GgufWriter::addTensorView(const std::string& name, DType type, std::vector<uint64_t> ne,
                               const uint8_t* data, uint64_t bytes) {
    m_tensors.push_back(Tensor{name, type, std::move(ne), {}, data, bytes});
}

Status GgufWriter::validate(bool allowLayoutOnly) const {
    std::unordered_set<std::string> keys;
    for (const auto& [key, value] : m_metadata) {
        if (key.empty() || key.size() > 65535) return invalidArgument("GGUF key '" + key + "' has a bad length");
        if (!keys.insert(key).second) return invalidArgument("GGUF key " + key + " is set twice");
        if (key == "general.alignment") {
            auto a = value.asUInt();
            if (value.type != GgufValueType::U32 || !a || !isValidGgufAlignment(*a))
                return invalidArgument("general.alignment must be a u32, a power of two from 8 to " +
                                       std::to_string(kGgufMaxAlignment));
        }
    }
    std::unordered_set<std::string> names;
    for (const Tensor& t : m_tensors) {
        const std::string label = "tensor " + t.name;
        if (t.name.empty() || t.name.size() > kMaxTensorNameLength)
            return invalidArgument(label + ": name must be 1 to " + std::to_string(kMaxTensorNameLength) + " bytes");
        if (!names.insert(t.name).second) return invalidArgument(label + " is added twice");
        if (t.ne.empty() || t.ne.size() > 4)
            return invalidArgument(label + " has " + std::to_string(t.ne.size()) + " dimensions (1 to 4 allowed)");
        auto traits = dtypeTraits(static_cast<uint32_t>(t.type));
        if (!traits) return invalidArgument(label + " has unknown type id " + std::to_string(uint32_t(t.type)));
        uint64_t rows = 1;
        for (uint64_t d : t.ne) {
            auto product = detail::checkedMul(rows, d);
            if (d == 0 || !product || *product > uint64_t(INT64_MAX))
                return invalidArgument(label + " has a zero or overflowing dimension");
            rows = *product;
        }
        rows /= t.ne[0];
        auto row = rowBytes(t.type, t.ne[0]);
        if (!row)
            return invalidArgument(label + ": row length " + std::to_string(t.ne[0]) + " is not a multiple of the " +
                                   traits->name + " block size " + std::to_string(traits->blockElements));
        auto expected = detail::checkedMul(*row, rows);
        if (!expected || *expected != t.bytes)
            return invalidArgument(label + " has " + std::to_string(t.bytes) + " bytes of data, its type and shape need " +
                                   (expected ? std::to_string(*expected) : std::string("more than 2^64")));
        if (t.layoutOnly) {
            if (!allowLayoutOnly) return invalidArgument(label + " has no data (only its layout was given)");
            continue;
        }
        const uint8_t* data = t.owned.empty() ? t.data : t.owned.data();
        if (t.bytes > 0 && !data) return invalidArgument(label + " has no data");
    }
    return Status::ok();
}

// The header: magic, metadata, tensor infos with offsets, zero padding to the alignment.
static Result<std::string> buildHeader(const std::vector<std::pair<std::string, GgufValue>>& metadata,
                                       const auto& tensors) {
    const uint64_t alignment = alignmentOf(metadata);
    std::string header;
    header.append("GGUF", 4);
    put<uint32_t>(header, 3);
    put<uint64_t>(header, tensors.size());
    put<uint64_t>(header, metadata.size());
    for (const auto& [key, value] : metadata) {
        putString(header, key);
        put<uint32_t>(header, static_cast<uint32_t>(value.type));
        HEARTH_TRY(putValue(header, key, value, 0));
    }
    uint64_t offset = 0;
    for (const auto& t : tensors) {
        putString(header, t.name);
        put<uint32_t>(header, static_cast<uint32_t>(t.ne.size()));
        for (uint64_t d : t.ne) put<uint64_t>(header, d);
        put<uint32_t>(header, static_cast<uint32_t>(t.type));
        put<uint64_t>(header, offset);
        offset += t.bytes + paddingFor(t.bytes, alignment);
    }
    header.append(paddingFor(header.size(), alignment), '\0');
    return header;
}

// Emits the file through `sink(const void*, uint64_t) -> Status`: header and tensor data.
template <typename Sink>
static Status emitGguf(const std::vector<std::pair<std::string, GgufValue>>& metadata,
                       const auto& tensors, Sink&& sink) {
    const uint64_t alignment = alignmentOf(metadata);
    HEARTH_ASSIGN(const std::string header, buildHeader(metadata, tensors));
    HEARTH_TRY(sink(header.data(), header.size()));
    const std::string zeros(alignment, '\0');
    for (const auto& t : tensors) {
        const uint8_t* data = t.owned.empty() ? t.data : t.owned.data();
        if (t.bytes) HEARTH_TRY(sink(data, t.bytes));
        HEARTH_TRY(sink(zeros.data(), paddingFor(t.bytes, alignment)));
    }
    return Status::ok();
}

Result<std::string> GgufWriter::serialize() const {
    HEARTH_TRY(validate(false));
    std::string out;
    HEARTH_TRY(emitGguf(m_metadata, m_tensors, [&](const void* p, uint64_t n) {
        out.append(static_cast<const char*>(p), n);
        return Status::ok();
    }));
    return out;
}

Result<std::string> GgufWriter::serializeHeader() const {
    HEARTH_TRY(validate(true));
    return buildHeader(m_metadata, m_tensors);
}

Status GgufWriter::write(const std::string& path) const {
    HEARTH_TRY(validate(false));
    HEARTH_ASSIGN(AtomicFile file, AtomicFile::create(path));
    HEARTH_TRY(emitGguf(m_metadata, m_tensors, [&](const void* p, uint64_t n) { return file.append(p, n); }));
    return file.commit(); // the destructor removes the .part file on any error above
}

} // namespace hearth::io
