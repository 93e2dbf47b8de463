// safetensors: 8-byte little-endian header length N, N bytes of JSON, then the data section.
// The header is validated completely (dtypes, shapes, offsets, overlap) before any tensor is
// exposed; sharded models are read through model.safetensors.index.json.
#include "io/safetensors.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "io/checked.h"
#include "io/json_file.h"

namespace hearth::io {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// The reference implementation refuses headers over 100 MB; a larger one is corruption.
constexpr uint64_t kMaxHeaderBytes = 100u << 20;

struct DtypeInfo {
    const char* name;
    uint32_t bitsPerElement;
    bool supported;
    DType type;
};

// Every dtype the safetensors format defines; only the 16/32-bit floats are loadable.
constexpr DtypeInfo kDtypes[] = {
    {"F32", 32, true, DType::F32},    {"F16", 16, true, DType::F16},   {"BF16", 16, true, DType::BF16},
    {"F64", 64, false, DType::F32},   {"BOOL", 8, false, DType::F32},  {"U8", 8, false, DType::F32},
    {"I8", 8, false, DType::F32},     {"I16", 16, false, DType::F32},  {"U16", 16, false, DType::F32},
    {"I32", 32, false, DType::F32},   {"U32", 32, false, DType::F32},  {"I64", 64, false, DType::F32},
    {"U64", 64, false, DType::F32},   {"C64", 64, false, DType::F32},  {"F8_E4M3", 8, false, DType::F32},
    {"F8_E5M2", 8, false, DType::F32}, {"F8_E8M0", 8, false, DType::F32}, {"F4", 4, false, DType::F32},
    {"F6_E2M3", 6, false, DType::F32}, {"F6_E3M2", 6, false, DType::F32},
};

const DtypeInfo* findDtype(const std::string& name) {
    for (const DtypeInfo& d : kDtypes)
        if (name == d.name) return &d;
    return nullptr;
}

std::string quoteName(const std::string& s) {
    std::string out = "'"; // built stepwise: GCC 12 warns falsely (-Wrestrict) on "'" + s + "'"
    out += detail::printable(s);
    out += '\'';
    return out;
}

// A JSON integer >= 0, or nullopt (negative, fractional, not a number).
std::optional<uint64_t> toUnsigned(const json& j) {
    if (j.is_number_unsigned()) return j.get<uint64_t>();
    if (j.is_number_integer()) {
        int64_t v = j.get<int64_t>();
        if (v >= 0) return static_cast<uint64_t>(v);
    }
    return std::nullopt;
}

struct Span {
    uint64_t begin, end;
    const std::string* name;
};

} // namespace

Result<SafetensorsModel> SafetensorsModel::openFile(const std::string& path) {
    HEARTH_ASSIGN(auto file, MappedFile::open(path));
    return parse(std::move(file));
}

Result<SafetensorsModel> SafetensorsModel::parse(std::shared_ptr<const MappedFile> file) {
    if (!file) return invalidArgument("SafetensorsModel::parse: no file");
    const std::string& path = file->path();
    auto corrupt = [&](const std::string& m) { return dataLoss(path + ": " + m); };
    const uint64_t size = file->size();
    if (size < 8)
        return corrupt("truncated: " + std::to_string(size) + " bytes, too short for the 8-byte header length");
    uint64_t headerBytes;
    std::memcpy(&headerBytes, file->data(), 8); // little-endian, as is the host (see gguf_reader.cpp)
    if (headerBytes > size - 8)
        return corrupt("truncated: header length " + std::to_string(headerBytes) + " exceeds the " +
                       std::to_string(size - 8) + " bytes left");
    if (headerBytes > kMaxHeaderBytes)
        return corrupt("header length " + std::to_string(headerBytes) + " exceeds the 100 MiB limit");
    if (headerBytes < 2) return corrupt("header of " + std::to_string(headerBytes) + " bytes cannot hold a JSON object");

    const char* headerBegin = reinterpret_cast<const char*>(file->data() + 8);
    json header;
    std::string duplicate;
    try {
        // Track top-level keys: nlohmann keeps the last of duplicate keys silently.
        std::unordered_set<std::string> keys;
        auto callback = [&](int depth, json::parse_event_t event, json& parsed) {
            if (event == json::parse_event_t::key && depth == 1 && parsed.is_string() &&
                !keys.insert(parsed.get<std::string>()).second && duplicate.empty())
                duplicate = parsed.get<std::string>();
            return true;
        };
        header = json::parse(headerBegin, headerBegin + headerBytes, callback);
    } catch (const json::parse_error& e) {
        return corrupt("invalid JSON header at byte " + std::to_string(8 + e.byte) + " of the file: " + e.what());
    } catch (const std::exception& e) {
        return corrupt(std::string("cannot parse the JSON header: ") + e.what());
    }
    if (!header.is_object()) return corrupt("the JSON header is not an object");
    if (!duplicate.empty()) return corrupt("duplicate tensor name " + quoteName(duplicate) + " in the header");

    SafetensorsModel model;
    const uint64_t dataStart = 8 + headerBytes;
    const uint64_t dataSize = size - dataStart;
    std::vector<Span> spans;
    for (auto it = header.begin(); it != header.end(); ++it) {
        const std::string& name = it.key();
        const json& entry = it.value();
        if (name == "__metadata__") {
            if (!entry.is_object()) return corrupt("__metadata__ is not an object");
            for (auto m = entry.begin(); m != entry.end(); ++m) {
                if (!m.value().is_string())
                    return corrupt("__metadata__ entry " + quoteName(m.key()) + " is not a string");
                model.m_metadata[m.key()] = m.value().get<std::string>();
            }
            continue;
        }
        const std::string label = "tensor " + quoteName(name);
        if (!entry.is_object()) return corrupt(label + " is not a JSON object");
        auto dtypeIt = entry.find("dtype");
        auto shapeIt = entry.find("shape");
        auto offsetsIt = entry.find("data_offsets");
        if (dtypeIt == entry.end() || !dtypeIt->is_string()) return corrupt(label + " has no dtype string");
        if (shapeIt == entry.end() || !shapeIt->is_array()) return corrupt(label + " has no shape array");
        if (offsetsIt == entry.end() || !offsetsIt->is_array() || offsetsIt->size() != 2)
            return corrupt(label + " has no data_offsets pair");

        const std::string dtypeName = dtypeIt->get<std::string>();
        const DtypeInfo* dtype = findDtype(dtypeName);
        if (!dtype) return corrupt(label + " has unknown dtype " + quoteName(dtypeName));
        if (!dtype->supported)
            return unsupported(path + ": " + label + " has dtype " + dtypeName +
                               ", which is not supported (F32, F16 and BF16 are)");

        SafetensorsTensor tensor;
        tensor.name = name;
        tensor.type = dtype->type;
        tensor.file = path;
        uint64_t elements = 1;
        for (const json& dim : *shapeIt) {
            auto d = toUnsigned(dim);
            if (!d) return corrupt(label + " has a shape entry that is not a non-negative integer");
            auto product = detail::checkedMul(elements, *d);
            if (!product || *product > uint64_t(INT64_MAX)) return corrupt(label + " shape overflows");
            elements = *product;
            tensor.shape.push_back(*d);
        }
        auto begin = toUnsigned((*offsetsIt)[0]);
        auto end = toUnsigned((*offsetsIt)[1]);
        if (!begin || !end || *begin > *end)
            return corrupt(label + " has data_offsets that are not an ordered pair of non-negative integers");
        if (*end > dataSize)
            return corrupt("truncated: " + label + " data_offsets [" + std::to_string(*begin) + ", " +
                           std::to_string(*end) + ") extend past the " + std::to_string(dataSize) +
                           "-byte data section");
        auto bits = detail::checkedMul(elements, dtype->bitsPerElement);
        if (!bits || *bits / 8 != *end - *begin || *bits % 8 != 0)
            return corrupt(label + " has " + std::to_string(*end - *begin) + " bytes of data, but dtype " +
                           dtypeName + " and its shape need " +
                           (bits ? std::to_string(*bits / 8) : std::string("more than 2^61")));
        tensor.bytes = *end - *begin;
        // No pointer arithmetic on an empty mapping (data() is null then).
        tensor.data = tensor.bytes ? file->data() + dataStart + *begin : nullptr;
        spans.push_back({*begin, *end, &name});
        model.m_tensors.emplace(name, std::move(tensor));
    }

    std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
        return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
    });
    for (size_t i = 1; i < spans.size(); ++i) {
        const Span& prev = spans[i - 1];
        const Span& cur = spans[i];
        // Empty tensors occupy no bytes and cannot overlap anything.
        if (cur.begin < prev.end && cur.begin != cur.end && prev.begin != prev.end)
            return corrupt("tensors " + quoteName(*prev.name) + " and " + quoteName(*cur.name) + " overlap");
    }
    model.m_files.push_back(std::move(file));
    return model;
}

const SafetensorsTensor* SafetensorsModel::find(const std::string& name) const {
    auto it = m_tensors.find(name);
    return it == m_tensors.end() ? nullptr : &it->second;
}

Result<SafetensorsModel> SafetensorsModel::openFolder(const std::string& folder) {
    std::error_code ec;
    auto st = fs::status(folder, ec);
    if (!fs::exists(st)) return notFound(folder + ": no such folder");
    if (!fs::is_directory(st)) return invalidArgument(folder + ": not a folder");

    const std::string indexPath = (fs::path(folder) / "model.safetensors.index.json").string();
    const std::string singlePath = (fs::path(folder) / "model.safetensors").string();
    if (!fs::exists(indexPath, ec)) {
        if (!fs::exists(singlePath, ec))
            return notFound(folder + ": neither model.safetensors.index.json nor model.safetensors exists");
        return openFile(singlePath);
    }

    HEARTH_ASSIGN(json index, readJsonFile(indexPath));
    auto corrupt = [&](const std::string& m) { return dataLoss(indexPath + ": " + m); };
    if (!index.is_object()) return corrupt("not a JSON object");
    auto mapIt = index.find("weight_map");
    if (mapIt == index.end() || !mapIt->is_object()) return corrupt("no weight_map object");

    std::map<std::string, SafetensorsModel> shards; // by file name; each opened once
    SafetensorsModel model;
    for (auto it = mapIt->begin(); it != mapIt->end(); ++it) {
        const std::string& tensorName = it.key();
        if (!it.value().is_string()) return corrupt("weight_map entry " + quoteName(tensorName) + " is not a string");
        const std::string shardName = it.value().get<std::string>();
        // Shards are plain file names inside the folder; nothing may point outside it.
        if (shardName.empty() || shardName == "." || shardName == ".." ||
            shardName.find('/') != std::string::npos || shardName.find('\\') != std::string::npos)
            return corrupt("tensor " + quoteName(tensorName) + " maps to " + quoteName(shardName) +
                           ", which is not a file name in the folder");
        auto shardIt = shards.find(shardName);
        if (shardIt == shards.end()) {
            const std::string shardPath = (fs::path(folder) / shardName).string();
            auto mapped = MappedFile::open(shardPath);
            if (!mapped.isOk()) {
                if (mapped.status().code() == StatusCode::NotFound)
                    return corrupt("shard " + quoteName(shardName) + " (holding tensor " + quoteName(tensorName) +
                                   ") is missing");
                return mapped.status();
            }
            HEARTH_ASSIGN(SafetensorsModel shard, parse(std::move(mapped).value()));
            shardIt = shards.emplace(shardName, std::move(shard)).first;
        }
        const SafetensorsTensor* tensor = shardIt->second.find(tensorName);
        if (!tensor)
            return corrupt("tensor " + quoteName(tensorName) + " is mapped to shard " + quoteName(shardName) +
                           ", which does not contain it");
        model.m_tensors.emplace(tensorName, *tensor);
    }
    for (auto& [name, shard] : shards) {
        if (model.m_files.empty()) model.m_metadata = shard.m_metadata;
        for (auto& f : shard.m_files) model.m_files.push_back(f);
    }
    return model;
}

} // namespace hearth::io
