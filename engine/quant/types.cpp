#include "quant/types.h"

#include <algorithm>
#include <cctype>

namespace hearth {
namespace {

struct Entry {
    uint32_t id;
    DTypeTraits traits;
};

// Block geometry of every ggml type (ggml-common.h; QK_K = 256).
constexpr Entry kTypes[] = {
    {0, {"F32", 1, 4}},        {1, {"F16", 1, 2}},         {2, {"Q4_0", 32, 18}},
    {3, {"Q4_1", 32, 20}},     {6, {"Q5_0", 32, 22}},      {7, {"Q5_1", 32, 24}},
    {8, {"Q8_0", 32, 34}},     {9, {"Q8_1", 32, 36}},      {10, {"Q2_K", 256, 84}},
    {11, {"Q3_K", 256, 110}},  {12, {"Q4_K", 256, 144}},   {13, {"Q5_K", 256, 176}},
    {14, {"Q6_K", 256, 210}},  {15, {"Q8_K", 256, 292}},   {16, {"IQ2_XXS", 256, 66}},
    {17, {"IQ2_XS", 256, 74}}, {18, {"IQ3_XXS", 256, 98}}, {19, {"IQ1_S", 256, 50}},
    {20, {"IQ4_NL", 32, 18}},  {21, {"IQ3_S", 256, 110}},  {22, {"IQ2_S", 256, 82}},
    {23, {"IQ4_XS", 256, 136}}, {24, {"I8", 1, 1}},        {25, {"I16", 1, 2}},
    {26, {"I32", 1, 4}},       {27, {"I64", 1, 8}},        {28, {"F64", 1, 8}},
    {29, {"IQ1_M", 256, 56}},  {30, {"BF16", 1, 2}},       {34, {"TQ1_0", 256, 54}},
    {35, {"TQ2_0", 256, 66}},  {39, {"MXFP4", 32, 17}},
};

} // namespace

std::optional<DTypeTraits> dtypeTraits(uint32_t ggmlTypeId) {
    for (const Entry& e : kTypes)
        if (e.id == ggmlTypeId) return e.traits;
    return std::nullopt;
}

const char* dtypeName(DType type) {
    auto traits = dtypeTraits(static_cast<uint32_t>(type));
    return traits ? traits->name : "unknown";
}

bool isComputeSupported(DType type) {
    switch (type) {
    case DType::F32:
    case DType::F16:
    case DType::BF16:
    case DType::Q8_0:
    case DType::Q4_0:
    case DType::Q5_0:
    case DType::Q4_K:
    case DType::Q5_K:
    case DType::Q6_K: return true;
    default: return false;
    }
}

std::optional<uint64_t> rowBytes(DType type, uint64_t elements) {
    auto traits = dtypeTraits(static_cast<uint32_t>(type));
    if (!traits || elements % traits->blockElements != 0) return std::nullopt;
    return elements / traits->blockElements * traits->blockBytes;
}

std::optional<DType> parseDType(const std::string& name) {
    std::string upper = name;
    std::transform(upper.begin(), upper.end(), upper.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    for (const Entry& e : kTypes)
        if (upper == e.traits.name) return static_cast<DType>(e.id);
    return std::nullopt;
}

} // namespace hearth
