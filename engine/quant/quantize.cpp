#include "quant/quantize.h"

#include <cmath>
#include <cstring>

#include "quant/blocks.h"
#include "quant/dequantize.h"

namespace hearth {
namespace {

bool halfIsFinite(uint16_t h) { return (h & 0x7c00) != 0x7c00; }

uint16_t loadHalf(const uint8_t* p) {
    uint16_t h;
    std::memcpy(&h, p, sizeof h);
    return h;
}

// Where a block type keeps its fp16 scale(s): byte offsets of d and, for the K types with mins,
// of dmin (-1 when absent).
struct ScaleOffsets {
    int d;
    int dmin;
};

bool scaleOffsets(DType type, ScaleOffsets& out) {
    switch (type) {
    case DType::Q8_0: out = {int(offsetof(BlockQ8_0, d)), -1}; return true;
    case DType::Q4_0: out = {int(offsetof(BlockQ4_0, d)), -1}; return true;
    case DType::Q5_0: out = {int(offsetof(BlockQ5_0, d)), -1}; return true;
    case DType::Q4_K: out = {int(offsetof(BlockQ4_K, d)), int(offsetof(BlockQ4_K, dmin))}; return true;
    case DType::Q5_K: out = {int(offsetof(BlockQ5_K, d)), int(offsetof(BlockQ5_K, dmin))}; return true;
    case DType::Q6_K: out = {int(offsetof(BlockQ6_K, d)), -1}; return true;
    default: return false;
    }
}

const char* describeHalf(uint16_t h) {
    if ((h & 0x3ff) != 0) return "nan";
    return (h & 0x8000) ? "-inf" : "inf";
}

} // namespace

// Every type Hearth computes with, it can also produce (and the other way round).
bool isQuantizable(DType type) { return isComputeSupported(type); }

// A trailing partial block (n not a multiple of the block) is a caller error: only whole blocks
// are written and the tail is ignored, never read past.
void quantizeRow(DType type, const float* src, uint8_t* dst, int64_t n) {
    switch (type) {
    case DType::F32: std::memcpy(dst, src, size_t(n) * sizeof(float)); return;
    case DType::F16:
        for (int64_t i = 0; i < n; ++i) {
            const uint16_t h = floatToHalf(src[i]);
            std::memcpy(dst + 2 * i, &h, 2);
        }
        return;
    case DType::BF16:
        for (int64_t i = 0; i < n; ++i) {
            const uint16_t h = floatToBf16(src[i]);
            std::memcpy(dst + 2 * i, &h, 2);
        }
        return;
    case DType::Q8_0: quant::quantizeQ8_0(src, dst, n / kQK); return;
    case DType::Q4_0: quant::quantizeQ4_0(src, dst, n / kQK); return;
    case DType::Q5_0: quant::quantizeQ5_0(src, dst, n / kQK); return;
    case DType::Q4_K: quant::quantizeQ4_K(src, dst, n / kQKK); return;
    case DType::Q5_K: quant::quantizeQ5_K(src, dst, n / kQKK); return;
    case DType::Q6_K: quant::quantizeQ6_K(src, dst, n / kQKK); return;
    default: return; // callers check isQuantizable(); nothing sensible to write
    }
}

Status validateBlocks(DType type, const uint8_t* data, int64_t rows, int64_t cols,
                      const std::string& tensorName) {
    if (type == DType::F32 || type == DType::F16 || type == DType::BF16) return Status::ok();
    ScaleOffsets offsets;
    if (!scaleOffsets(type, offsets))
        return unsupported("tensor " + tensorName + ": type " + dtypeName(type) +
                           " cannot be validated (not a supported block type)");
    const auto traits = dtypeTraits(static_cast<uint32_t>(type));
    const auto bytesPerRow = rowBytes(type, uint64_t(cols));
    if (rows < 0 || cols < 0 || !traits || !bytesPerRow)
        return invalidArgument("tensor " + tensorName + ": " + std::to_string(cols) +
                               " columns do not hold whole " + dtypeName(type) + " blocks");
    const int64_t blocksPerRow = cols / traits->blockElements;
    for (int64_t r = 0; r < rows; ++r) {
        const uint8_t* row = data + uint64_t(r) * *bytesPerRow;
        for (int64_t b = 0; b < blocksPerRow; ++b) {
            const uint8_t* block = row + uint64_t(b) * traits->blockBytes;
            const uint16_t d = loadHalf(block + offsets.d);
            const uint16_t dmin = offsets.dmin >= 0 ? loadHalf(block + offsets.dmin) : uint16_t(0);
            const bool badD = !halfIsFinite(d);
            if (badD || !halfIsFinite(dmin)) {
                const std::string what = badD ? std::string("d is ") + describeHalf(d)
                                              : std::string("dmin is ") + describeHalf(dmin);
                return dataLoss("tensor " + tensorName + ": row " + std::to_string(r) + " block " +
                                std::to_string(b) + " has a non-finite scale (" + what + ")");
            }
        }
    }
    return Status::ok();
}

} // namespace hearth
