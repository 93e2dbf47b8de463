// Tensor element types, numbered exactly as GGUF's ggml_type ids, with their block geometry.
// Every ggml type id is known here (so a reader can size any tensor and name its type); only
// isComputeSupported() types can be used by the backends.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace hearth {

enum class DType : uint32_t {
    F32 = 0, F16 = 1, Q4_0 = 2, Q4_1 = 3, Q5_0 = 6, Q5_1 = 7, Q8_0 = 8, Q8_1 = 9,
    Q2_K = 10, Q3_K = 11, Q4_K = 12, Q5_K = 13, Q6_K = 14, Q8_K = 15,
    IQ2_XXS = 16, IQ2_XS = 17, IQ3_XXS = 18, IQ1_S = 19, IQ4_NL = 20, IQ3_S = 21, IQ2_S = 22,
    IQ4_XS = 23, I8 = 24, I16 = 25, I32 = 26, I64 = 27, F64 = 28, IQ1_M = 29, BF16 = 30,
    TQ1_0 = 34, TQ2_0 = 35, MXFP4 = 39,
};

struct DTypeTraits {
    const char* name;       // GGUF/ggml spelling, e.g. "Q4_K"
    uint32_t blockElements; // elements per block (1 for plain types)
    uint32_t blockBytes;    // bytes per block
};

// Traits of a known ggml type id, or nullopt for an id ggml does not define.
std::optional<DTypeTraits> dtypeTraits(uint32_t ggmlTypeId);
const char* dtypeName(DType type);
// Types the engine computes with (CPU reference and, later, GPU).
bool isComputeSupported(DType type);

// Bytes of a row of `elements` elements, or nullopt if elements is not a multiple of the block.
std::optional<uint64_t> rowBytes(DType type, uint64_t elements);

// Parses "F32", "q4_k", ... (case-insensitive) into a type.
std::optional<DType> parseDType(const std::string& name);

} // namespace hearth
