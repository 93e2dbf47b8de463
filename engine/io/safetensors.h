// Hugging Face safetensors: one file, or a sharded set listed by model.safetensors.index.json.
// Headers are validated (JSON, dtypes, shapes, data_offsets inside the file, no overlap, sizes
// matching dtype x shape) before any tensor is used. Types: F32, F16, BF16 (others: Unsupported,
// naming the tensor and dtype).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "hearth/status.h"
#include "io/mapped_file.h"
#include "quant/types.h"

namespace hearth::io {

struct SafetensorsTensor {
    std::string name;
    DType type = DType::F32;
    std::vector<uint64_t> shape;   // PyTorch order: shape[0] outermost (rows of a [out, in] matrix)
    const uint8_t* data = nullptr; // inside the shard's mapping
    uint64_t bytes = 0;
    std::string file;              // the shard it lives in (for messages)
};

class SafetensorsModel {
public:
    // One .safetensors file.
    static Result<SafetensorsModel> openFile(const std::string& path);
    // A folder: model.safetensors.index.json (sharded) if present, else model.safetensors.
    // Errors name the folder/file: NotFound when neither exists, DataLoss for a shard named in
    // the index that is missing or lacks a tensor the index maps to it.
    static Result<SafetensorsModel> openFolder(const std::string& folder);
    // Parse one file from memory (tests and fuzzing).
    static Result<SafetensorsModel> parse(std::shared_ptr<const MappedFile> file);

    const std::map<std::string, SafetensorsTensor>& tensors() const { return m_tensors; }
    const SafetensorsTensor* find(const std::string& name) const;
    // The "__metadata__" object's string entries of the first file.
    const std::map<std::string, std::string>& metadata() const { return m_metadata; }

private:
    std::vector<std::shared_ptr<const MappedFile>> m_files;
    std::map<std::string, SafetensorsTensor> m_tensors;
    std::map<std::string, std::string> m_metadata;
};

} // namespace hearth::io
