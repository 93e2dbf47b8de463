// Float → GGUF block quantizers and block validation: the CPU reference for every type.
// Block layouts are exactly GGUF's (ggml-common.h), as quant/blocks.h spells them out.
#pragma once

#include <cstdint>
#include <string>

#include "hearth/status.h"
#include "quant/types.h"

namespace hearth {

// Types Hearth can produce and compute with: F32, F16, BF16, Q8_0, Q4_0, Q5_0, Q4_K, Q5_K, Q6_K.
bool isQuantizable(DType type);

// Quantizes n floats (a whole number of `type` blocks) into dst, which holds rowBytes(type, n)
// bytes. Deterministic; thread-safe (no shared state). Non-finite inputs are a caller error.
void quantizeRow(DType type, const float* src, uint8_t* dst, int64_t n);

// Checks the scales of every block of a [rows x cols] tensor (d, dmin) for NaN/Inf. DataLoss
// naming the tensor, row and block: "tensor blk.0.attn_q.weight: row 3 block 2 has a non-finite scale".
Status validateBlocks(DType type, const uint8_t* data, int64_t rows, int64_t cols, const std::string& tensorName);

} // namespace hearth
