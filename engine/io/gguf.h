// GGUF v3: metadata values, a validating reader over a memory mapping, and a writer.
// The reader checks every count, length, offset and size against the file size before use;
// any problem is one Status naming the file, the key or tensor, and what is wrong.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "hearth/status.h"
#include "io/mapped_file.h"
#include "quant/types.h"

namespace hearth::io {

enum class GgufValueType : uint32_t {
    U8 = 0, I8 = 1, U16 = 2, I16 = 3, U32 = 4, I32 = 5, F32 = 6, Bool = 7,
    String = 8, Array = 9, U64 = 10, I64 = 11, F64 = 12,
};
const char* ggufValueTypeName(GgufValueType type);

// general.alignment: a power of two from 8 to 64 KiB (the largest page size in use). Anything
// larger only pads the file, and a fuzzed 0xF6FF0020 once made the writer allocate 4 GB.
inline constexpr uint64_t kGgufMaxAlignment = 64 * 1024;
inline constexpr bool isValidGgufAlignment(uint64_t a) {
    return a >= 8 && a <= kGgufMaxAlignment && (a & (a - 1)) == 0;
}

// One metadata value. Integers of every width live in `u`/`i`, floats in `f`; `type` keeps the
// exact stored type so that the writer reproduces the file bit for bit.
struct GgufValue {
    GgufValueType type = GgufValueType::U32;
    GgufValueType elementType = GgufValueType::U8; // for Array only
    std::variant<uint64_t, int64_t, double, bool, std::string, std::vector<GgufValue>> data;

    static GgufValue u32(uint32_t v);
    static GgufValue i32(int32_t v);
    static GgufValue u64(uint64_t v);
    static GgufValue f32(float v);
    static GgufValue boolean(bool v);
    static GgufValue string(std::string v);
    static GgufValue array(GgufValueType elementType, std::vector<GgufValue> items);
    static GgufValue stringArray(const std::vector<std::string>& items);
    static GgufValue f32Array(const std::vector<float>& items);
    static GgufValue i32Array(const std::vector<int32_t>& items);

    // Conversions; nullopt when the stored type does not fit (e.g. a negative value as unsigned,
    // a string as a number). Any integer type converts to any other when the value fits.
    std::optional<uint64_t> asUInt() const;
    std::optional<int64_t> asInt() const;
    std::optional<double> asFloat() const; // integers convert too
    std::optional<bool> asBool() const;
    const std::string* asString() const;
    const std::vector<GgufValue>* asArray() const;
};

struct GgufTensorInfo {
    std::string name;
    DType type = DType::F32;
    std::vector<uint64_t> ne;  // ggml order: ne[0] is the contiguous (innermost) dimension
    uint64_t offset = 0;       // relative to the start of the data blob
    uint64_t bytes = 0;        // computed from type and ne
    const uint8_t* data = nullptr; // inside the mapping
    uint64_t elements() const;
};

class GgufFile {
public:
    // Opens and validates: magic "GGUF", version 3 (2 is accepted too), counts, string lengths,
    // value types, nested arrays (at most 8 deep), keys unique and 1..65535 bytes,
    // general.alignment (a u32, see isValidGgufAlignment; 32 when absent), tensor names unique and
    // 1..256 bytes (the spec's 64 is exceeded by real files), n_dims 1..4, dimensions non-zero
    // and not overflowing, known ggml type ids (else Unsupported), rows a whole number of
    // blocks, offsets aligned and data inside the file. Bools must be 0 or 1.
    static Result<GgufFile> open(const std::string& path);
    // Same checks on an existing mapping (tests and fuzzing use fromBuffer()).
    static Result<GgufFile> parse(std::shared_ptr<const MappedFile> file);
    // A model, which may be split into parts as llama.cpp's gguf-split writes them
    // (PREFIX-00001-of-0000N.gguf ..., each with split.no and split.count; the first holds the
    // metadata): `path` names the first part (or the only file); every part is opened, checked
    // (numbering, counts, split.tensors.count, no tensor twice) and its tensors joined, each
    // pointing into its own part. InvalidArgument naming the first part for a later part;
    // NotFound naming a missing part. (gguf_split.cpp)
    static Result<GgufFile> openModel(const std::string& path);

    const std::string& path() const;
    uint32_t version() const { return m_version; }
    uint64_t alignment() const { return m_alignment; }
    uint64_t dataOffset() const { return m_dataOffset; } // file offset of the tensor data blob

    // Metadata in file order.
    const std::vector<std::pair<std::string, GgufValue>>& metadata() const { return m_metadata; }
    const GgufValue* find(const std::string& key) const;

    // Typed getters with errors naming the file and key: NotFound when missing,
    // DataLoss when present with the wrong type ("model.gguf: key llama.block_count: expected
    // an unsigned integer, got string").
    Result<uint64_t> getUInt(const std::string& key) const;
    Result<double> getFloat(const std::string& key) const;
    Result<std::string> getString(const std::string& key) const;
    Result<bool> getBool(const std::string& key) const;

    const std::vector<GgufTensorInfo>& tensors() const { return m_tensors; }
    const GgufTensorInfo* findTensor(const std::string& name) const;
    const std::shared_ptr<const MappedFile>& mapping() const { return m_file; }
    // Every part's mapping, the first one first (one for an unsplit file).
    std::vector<std::shared_ptr<const MappedFile>> mappings() const;
    int splitCount() const { return int(m_parts.size()) + 1; }

private:
    std::shared_ptr<const MappedFile> m_file;
    uint32_t m_version = 3;
    uint64_t m_alignment = 32;
    uint64_t m_dataOffset = 0;
    std::vector<std::pair<std::string, GgufValue>> m_metadata;
    std::vector<GgufTensorInfo> m_tensors;
    std::vector<std::shared_ptr<const MappedFile>> m_parts; // a split model's parts after the first
};

// Builds a GGUF v3 file. Metadata and tensors are written in insertion order; the header and
// every tensor's data are zero-padded to general.alignment (32 when the key is absent; the key
// is not added, so rewriting a file that lacks it stays byte-identical).
class GgufWriter {
public:
    void set(const std::string& key, GgufValue value); // replaces an existing key in place
    // `ne` in ggml order; `bytes` must equal the size implied by type and ne (checked in write()).
    void addTensor(const std::string& name, DType type, std::vector<uint64_t> ne,
                   std::vector<uint8_t> bytes);
    // Same, without copying: `data` must outlive write()/serialize().
    void addTensorView(const std::string& name, DType type, std::vector<uint64_t> ne,
                       const uint8_t* data, uint64_t bytes);

    // A tensor whose data the caller writes itself after the header (streaming writers such as
    // synth): only its name, type and shape are registered. write()/serialize() refuse such
    // tensors; serializeHeader() lays them out like the others.
    void addTensorLayout(const std::string& name, DType type, std::vector<uint64_t> ne);

    // The whole file in memory (tests, corpora).
    Result<std::string> serialize() const;
    // Only the header: magic, metadata, tensor infos, zero padding to the alignment. Tensor i's
    // data then starts at header.size() + the offset its info records (each tensor padded to
    // the alignment, in insertion order).
    Result<std::string> serializeHeader() const;
    // Writes `path` atomically: to "path.part", fsync, then rename. A failed or interrupted write
    // never leaves a file at `path`. Errors: InvalidArgument (inconsistent tensor, a path that cannot
    // be created), Internal (an I/O error while writing).
    Status write(const std::string& path) const;

private:
    struct Tensor {
        std::string name;
        DType type;
        std::vector<uint64_t> ne;
        std::vector<uint8_t> owned;
        const uint8_t* data;
        uint64_t bytes;
        bool layoutOnly = false;
    };
    Status validate(bool allowLayoutOnly) const;
    std::vector<std::pair<std::string, GgufValue>> m_metadata;
    std::vector<Tensor> m_tensors;
};

} // namespace hearth::io
