// GGUF v2/v3 parsing: every count, length, offset and dimension is checked against the bytes
// that are actually left before it drives a read or an allocation.
#include <bit>
#include <cstring>
#include <unordered_set>

#include "io/checked.h"
#include "io/gguf.h"

namespace hearth::io {
namespace {

static_assert(std::endian::native == std::endian::little, "GGUF parsing assumes a little-endian host");

using detail::checkedAdd;
using detail::checkedMul;
using detail::printable;

constexpr uint64_t kMaxKeyLength = 65535; // the spec's bound
// The spec says 64 (ggml's GGML_MAX_NAME), but real files exceed it; 256 keeps messages and
// memory sane while accepting them.
constexpr uint64_t kMaxTensorNameLength = 256;
constexpr int kMaxArrayDepth = 8;
constexpr uint32_t kMaxDims = 4;
constexpr uint64_t kDefaultAlignment = 32;
// Smallest encodings, used to refuse counts that cannot fit in the bytes left:
// a KV is key length + 1 key byte + value type + 1 value byte; a tensor record is
// name length + 1 name byte + n_dims + one dim + type + offset.
constexpr uint64_t kMinKvBytes = 8 + 1 + 4 + 1;
constexpr uint64_t kMinTensorInfoBytes = 8 + 1 + 4 + 8 + 4 + 8;

// Bytes that one element of `type` takes at least (a string is at least its length field,
// an array at least its element type and count).
uint64_t minValueBytes(GgufValueType type) {
    switch (type) {
    case GgufValueType::U8:
    case GgufValueType::I8:
    case GgufValueType::Bool: return 1;
    case GgufValueType::U16:
    case GgufValueType::I16: return 2;
    case GgufValueType::U32:
    case GgufValueType::I32:
    case GgufValueType::F32: return 4;
    case GgufValueType::String:
    case GgufValueType::U64:
    case GgufValueType::I64:
    case GgufValueType::F64: return 8;
    case GgufValueType::Array: return 12;
    }
    return 1;
}

bool isValidValueType(uint32_t t) { return t <= static_cast<uint32_t>(GgufValueType::F64); }

class Parser {
public:
    explicit Parser(const MappedFile& file)
        : m_name(file.path()), m_data(file.data()), m_size(file.size()) {}

    Status parseHeader(uint32_t& version, uint64_t& tensorCount, uint64_t& kvCount);
    Status parseMetadata(uint64_t kvCount, std::vector<std::pair<std::string, GgufValue>>& out);
    Status parseTensorInfos(uint64_t tensorCount, std::vector<GgufTensorInfo>& out);
    Status resolveAlignment(const std::vector<std::pair<std::string, GgufValue>>& metadata,
                            uint64_t& alignment);
    Status placeTensors(uint64_t alignment, uint64_t& dataOffset, std::vector<GgufTensorInfo>& tensors);

private:
    uint64_t left() const { return m_size - m_pos; }

    Status fail(StatusCode code, const std::string& message) const {
        return Status(code, m_name + ": " + message);
    }
    Status corrupt(const std::string& message) const { return fail(StatusCode::DataLoss, message); }

    // "metadata key 'x' element 3 element 0": where we are, for messages.
    std::string where() const {
        std::string w = m_where;
        for (uint64_t i : m_elementPath) w += " element " + std::to_string(i);
        return w;
    }
    std::string whereSpace() const {
        std::string w = where();
        return w.empty() ? w : w + " ";
    }

    Status need(uint64_t n, const char* what) const {
        if (n <= left()) return Status::ok();
        return corrupt("truncated: " + whereSpace() + what + " needs " + std::to_string(n) +
                       " bytes at offset " + std::to_string(m_pos) + ", only " +
                       std::to_string(left()) + " left");
    }

    template <typename T>
    Result<T> read(const char* what) {
        HEARTH_TRY(need(sizeof(T), what));
        T v;
        std::memcpy(&v, m_data + m_pos, sizeof(T));
        m_pos += sizeof(T);
        return v;
    }

    Result<std::string> readString(const char* what, uint64_t maxLength);
    Result<GgufValue> readValue(GgufValueType type, int depth);

    const std::string& m_name;
    const uint8_t* m_data;
    uint64_t m_size;
    uint64_t m_pos = 0;
    std::string m_where;
    std::vector<uint64_t> m_elementPath;
};

Result<std::string> Parser::readString(const char* what, uint64_t maxLength) {
    std::string lengthWhat = std::string(what) + " length";
    HEARTH_ASSIGN(uint64_t length, read<uint64_t>(lengthWhat.c_str()));
    if (length > left())
        return corrupt("truncated: " + whereSpace() + what + " length " + std::to_string(length) +
                       " exceeds the " + std::to_string(left()) + " bytes left");
    if (length > maxLength)
        return corrupt(whereSpace() + what + " length " + std::to_string(length) +
                       " exceeds the limit of " + std::to_string(maxLength));
    std::string s(reinterpret_cast<const char*>(m_data + m_pos), length);
    m_pos += length;
    return s;
}

Result<GgufValue> Parser::readValue(GgufValueType type, int depth) {
    GgufValue value;
    value.type = type;
    switch (type) {
    case GgufValueType::U8: {
        HEARTH_ASSIGN(uint8_t v, read<uint8_t>("u8 value"));
        value.data = uint64_t(v);
        break;
    }
    case GgufValueType::I8: {
        HEARTH_ASSIGN(int8_t v, read<int8_t>("i8 value"));
        value.data = int64_t(v);
        break;
    }
    case GgufValueType::U16: {
        HEARTH_ASSIGN(uint16_t v, read<uint16_t>("u16 value"));
        value.data = uint64_t(v);
        break;
    }
    case GgufValueType::I16: {
        HEARTH_ASSIGN(int16_t v, read<int16_t>("i16 value"));
        value.data = int64_t(v);
        break;
    }
    case GgufValueType::U32: {
        HEARTH_ASSIGN(uint32_t v, read<uint32_t>("u32 value"));
        value.data = uint64_t(v);
        break;
    }
    case GgufValueType::I32: {
        HEARTH_ASSIGN(int32_t v, read<int32_t>("i32 value"));
        value.data = int64_t(v);
        break;
    }
    case GgufValueType::U64: {
        HEARTH_ASSIGN(uint64_t v, read<uint64_t>("u64 value"));
        value.data = v;
        break;
    }
    case GgufValueType::I64: {
        HEARTH_ASSIGN(int64_t v, read<int64_t>("i64 value"));
        value.data = v;
        break;
    }
    case GgufValueType::F32: {
        HEARTH_ASSIGN(float v, read<float>("f32 value"));
        value.data = double(v); // exact; the writer narrows it back bit for bit
        break;
    }
    case GgufValueType::F64: {
        HEARTH_ASSIGN(double v, read<double>("f64 value"));
        value.data = v;
        break;
    }
    case GgufValueType::Bool: {
        HEARTH_ASSIGN(uint8_t v, read<uint8_t>("bool value"));
        // Anything but 0/1 is corruption, and refusing it keeps rewrites byte-identical.
        if (v > 1) return corrupt(whereSpace() + "bool value is " + std::to_string(v) + ", not 0 or 1");
        value.data = v == 1;
        break;
    }
    case GgufValueType::String: {
        HEARTH_ASSIGN(std::string s, readString("string", UINT64_MAX));
        value.data = std::move(s);
        break;
    }
    case GgufValueType::Array: {
        if (depth >= kMaxArrayDepth)
            return corrupt(whereSpace() + "nests arrays deeper than " + std::to_string(kMaxArrayDepth) +
                           " levels");
        HEARTH_ASSIGN(uint32_t elementType, read<uint32_t>("array element type"));
        if (!isValidValueType(elementType))
            return corrupt(whereSpace() + "array has unknown element type " + std::to_string(elementType));
        value.elementType = static_cast<GgufValueType>(elementType);
        HEARTH_ASSIGN(uint64_t count, read<uint64_t>("array count"));
        uint64_t minBytes = minValueBytes(value.elementType);
        if (count > left() / minBytes)
            return corrupt("truncated: " + whereSpace() + "array count " + std::to_string(count) +
                           " of " + ggufValueTypeName(value.elementType) + " cannot fit in the " +
                           std::to_string(left()) + " bytes left");
        std::vector<GgufValue> items;
        items.reserve(count); // bounded by the bytes left, checked above
        m_elementPath.push_back(0);
        for (uint64_t i = 0; i < count; ++i) {
            m_elementPath.back() = i;
            HEARTH_ASSIGN(GgufValue item, readValue(value.elementType, depth + 1));
            items.push_back(std::move(item));
        }
        m_elementPath.pop_back();
        value.data = std::move(items);
        break;
    }
    }
    return value;
}

Status Parser::parseHeader(uint32_t& version, uint64_t& tensorCount, uint64_t& kvCount) {
    if (m_size < 4)
        return corrupt("not a GGUF file (" + std::to_string(m_size) + " bytes, too short for the magic)");
    if (std::memcmp(m_data, "GGUF", 4) != 0)
        return corrupt("not a GGUF file (magic '" +
                       printable(std::string_view(reinterpret_cast<const char*>(m_data), 4)) + "')");
    m_pos = 4;
    HEARTH_ASSIGN(version, read<uint32_t>("header version"));
    if (version != 2 && version != 3) {
        // A big-endian file shows its small version number byte-swapped.
        if (version == 0x02000000u || version == 0x03000000u)
            return fail(StatusCode::Unsupported, "big-endian GGUF files are not supported");
        return fail(StatusCode::Unsupported, "GGUF version " + std::to_string(version) +
                                                 " is not supported (only versions 2 and 3)");
    }
    HEARTH_ASSIGN(tensorCount, read<uint64_t>("header tensor count"));
    HEARTH_ASSIGN(kvCount, read<uint64_t>("header metadata count"));
    if (kvCount > left() / kMinKvBytes)
        return corrupt("truncated: metadata count " + std::to_string(kvCount) + " cannot fit in the " +
                       std::to_string(left()) + " bytes left");
    if (tensorCount > left() / kMinTensorInfoBytes)
        return corrupt("truncated: tensor count " + std::to_string(tensorCount) + " cannot fit in the " +
                       std::to_string(left()) + " bytes left");
    return Status::ok();
}

Status Parser::parseMetadata(uint64_t kvCount, std::vector<std::pair<std::string, GgufValue>>& out) {
    std::unordered_set<std::string> seen;
    out.reserve(kvCount); // bounded by the bytes left (parseHeader)
    for (uint64_t i = 0; i < kvCount; ++i) {
        m_where = "metadata entry #" + std::to_string(i);
        HEARTH_ASSIGN(std::string key, readString("key", kMaxKeyLength));
        if (key.empty()) return corrupt(m_where + " has an empty key");
        m_where = "metadata key '" + printable(key) + "'";
        if (!seen.insert(key).second) return corrupt("duplicate " + m_where);
        HEARTH_ASSIGN(uint32_t type, read<uint32_t>("value type"));
        if (!isValidValueType(type))
            return corrupt(m_where + " has unknown value type " + std::to_string(type));
        HEARTH_ASSIGN(GgufValue value, readValue(static_cast<GgufValueType>(type), 0));
        out.emplace_back(std::move(key), std::move(value));
    }
    m_where.clear();
    return Status::ok();
}

Status Parser::resolveAlignment(const std::vector<std::pair<std::string, GgufValue>>& metadata,
                                uint64_t& alignment) {
    alignment = kDefaultAlignment;
    for (const auto& [key, value] : metadata) {
        if (key != "general.alignment") continue;
        if (value.type != GgufValueType::U32)
            return corrupt(std::string("metadata key 'general.alignment' must be a u32, got ") +
                           ggufValueTypeName(value.type));
        uint64_t a = *value.asUInt();
        if (!isValidGgufAlignment(a))
            return corrupt("general.alignment " + std::to_string(a) + " is not a power of two from 8 to " +
                           std::to_string(kGgufMaxAlignment));
        alignment = a;
    }
    return Status::ok();
}

Status Parser::parseTensorInfos(uint64_t tensorCount, std::vector<GgufTensorInfo>& out) {
    std::unordered_set<std::string> seen;
    out.reserve(tensorCount); // bounded by the bytes left (parseHeader)
    for (uint64_t i = 0; i < tensorCount; ++i) {
        GgufTensorInfo info;
        m_where = "tensor #" + std::to_string(i);
        HEARTH_ASSIGN(info.name, readString("name", kMaxTensorNameLength));
        if (info.name.empty()) return corrupt(m_where + " has an empty name");
        const std::string label = "tensor " + printable(info.name);
        m_where = label;
        if (!seen.insert(info.name).second) return corrupt("duplicate tensor name '" + printable(info.name) + "'");
        HEARTH_ASSIGN(uint32_t nDims, read<uint32_t>("dimension count"));
        if (nDims < 1 || nDims > kMaxDims)
            return corrupt(label + " has " + std::to_string(nDims) + " dimensions (1 to 4 allowed)");
        info.ne.resize(nDims);
        for (uint32_t d = 0; d < nDims; ++d) {
            HEARTH_ASSIGN(info.ne[d], read<uint64_t>("dimension"));
        }
        HEARTH_ASSIGN(uint32_t typeId, read<uint32_t>("type id"));
        HEARTH_ASSIGN(info.offset, read<uint64_t>("data offset"));

        std::string shape = "[";
        for (uint32_t d = 0; d < nDims; ++d) shape += (d ? ", " : "") + std::to_string(info.ne[d]);
        shape += "]";
        uint64_t elements = 1;
        for (uint32_t d = 0; d < nDims; ++d) {
            if (info.ne[d] == 0) return corrupt(label + " has dimension " + std::to_string(d) + " equal to 0 (ne " + shape + ")");
            auto product = checkedMul(elements, info.ne[d]);
            if (!product || *product > uint64_t(INT64_MAX))
                return corrupt(label + " has too many elements: ne " + shape + " overflows int64");
            elements = *product;
        }
        auto traits = dtypeTraits(typeId);
        if (!traits)
            return fail(StatusCode::Unsupported, label + " has unknown type id " + std::to_string(typeId));
        info.type = static_cast<DType>(typeId);
        auto row = rowBytes(info.type, info.ne[0]);
        if (!row)
            return corrupt(label + " has rows of " + std::to_string(info.ne[0]) + " elements, not a multiple of the " +
                           traits->name + " block size " + std::to_string(traits->blockElements));
        auto bytes = checkedMul(*row, elements / info.ne[0]);
        if (!bytes) return corrupt(label + " size overflows (ne " + shape + ")");
        info.bytes = *bytes;
        out.push_back(std::move(info));
    }
    m_where.clear();
    return Status::ok();
}

Status Parser::placeTensors(uint64_t alignment, uint64_t& dataOffset, std::vector<GgufTensorInfo>& tensors) {
    auto aligned = detail::alignUp(m_pos, alignment);
    if (!aligned) return corrupt("data offset overflows");
    dataOffset = *aligned;
    for (GgufTensorInfo& info : tensors) {
        const std::string label = "tensor " + printable(info.name);
        if (info.offset % alignment != 0)
            return corrupt(label + " offset " + std::to_string(info.offset) +
                           " is not a multiple of the alignment " + std::to_string(alignment));
        auto begin = checkedAdd(dataOffset, info.offset);
        auto end = begin ? checkedAdd(*begin, info.bytes) : std::nullopt;
        if (!end || *end > m_size)
            return corrupt("truncated: " + label + " data (" + std::to_string(info.bytes) + " bytes at offset " +
                           std::to_string(info.offset) + " of the data blob at " + std::to_string(dataOffset) +
                           ") extends past the end of the file (" + std::to_string(m_size) + " bytes)");
        info.data = m_data + *begin;
    }
    return Status::ok();
}

} // namespace

Result<GgufFile> GgufFile::open(const std::string& path) {
    HEARTH_ASSIGN(auto file, MappedFile::open(path));
    return parse(std::move(file));
}

Result<GgufFile> GgufFile::parse(std::shared_ptr<const MappedFile> file) {
    if (!file) return invalidArgument("GgufFile::parse: no file");
    Parser parser(*file);
    GgufFile out;
    uint64_t tensorCount = 0, kvCount = 0;
    HEARTH_TRY(parser.parseHeader(out.m_version, tensorCount, kvCount));
    HEARTH_TRY(parser.parseMetadata(kvCount, out.m_metadata));
    HEARTH_TRY(parser.resolveAlignment(out.m_metadata, out.m_alignment));
    HEARTH_TRY(parser.parseTensorInfos(tensorCount, out.m_tensors));
    HEARTH_TRY(parser.placeTensors(out.m_alignment, out.m_dataOffset, out.m_tensors));
    out.m_file = std::move(file);
    return out;
}

} // namespace hearth::io
