// A uniform view of the tensors of a model file (GGUF or safetensors), so that binding weights
// to an architecture is written once. Dimensions are kept in the file's own order for messages.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "hearth/status.h"
#include "quant/types.h"

namespace hearth {

struct SourceTensor {
    std::string name;
    DType type = DType::F32;
    int64_t rows = 1;              // outer dimension (1 for a vector)
    int64_t cols = 0;              // innermost, contiguous dimension
    std::string shapeText;         // as the file writes it: GGUF "[in,out]", HF "[out,in]"
    int dimCount = 1;
    const uint8_t* data = nullptr;
    uint64_t bytes = 0;
};

class TensorSource {
public:
    std::string fileName;                         // for messages
    std::map<std::string, SourceTensor> tensors;
    std::vector<std::shared_ptr<const void>> storage; // mappings that back `data`

    const SourceTensor* find(const std::string& name) const;
    // The tensor, checked: present, computable type, 2-D [rows, cols] as expected.
    Result<const SourceTensor*> matrix(const std::string& name, int64_t rows, int64_t cols) const;
    // A 1-D tensor of `length` elements converted to float.
    Result<std::vector<float>> vector(const std::string& name, int64_t length) const;
    // Formats an expected shape the way this file writes shapes.
    std::string shapeText(int64_t rows, int64_t cols) const;
    bool ggmlOrder = true; // GGUF lists ne[0] (cols) first; safetensors lists rows first
    // The file's own spelling of "model." in the names (a vision-language wrapper's
    // "model.language_model."), which the table's keys have been given as "model.": for messages.
    std::string modelPrefix;
    std::string fileSpelling(const std::string& name) const;

    uint64_t parameterCount() const;
    std::map<std::string, int> typeCounts() const; // "F32" -> number of tensors
};

// A Hugging Face vision-language wrapper (Qwen3.5's checkpoints) names its language model
// model.language_model.*: those become model.* (modelPrefix remembers the file's spelling), and
// the vision tower (model.visual.*) and the multi-token-prediction block (mtp.*) are left out,
// each with a note. NotFound when only vision tensors are left (no language model at all).
// Other checkpoints pass unchanged.
Status selectTextTensors(TensorSource& source, std::vector<std::string>& notes);

} // namespace hearth
