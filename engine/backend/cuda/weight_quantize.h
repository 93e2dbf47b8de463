// Quant presets on the GPU: converts F32/F16/BF16 weight rows, already in device memory, into any
// type Hearth produces, with the CPU reference's code (quant/quantize_block.h compiled for the
// device without fused multiply-adds), so the blocks equal what the CPU would have written.
// Saves minutes per load: a 32B model's 16-bit source quantizes in seconds instead of minutes.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace hearth::cuda {

// Whether rows of ggml type `from` can be converted to `to` here (from: F32, F16, BF16; to: any
// type quantizeRow produces).
bool canQuantizeOnDevice(uint32_t from, uint32_t to);

// Converts `rows` rows of `cols` elements from `src` (rows of `from`, srcRowBytes apart) into
// `dst` (rows of `to`, dstRowBytes apart; GGUF's block layout). A row holding NaN or Inf is not
// quantized: the lowest such row, plus firstRow, is folded into *badRow (device memory, by
// atomicMin), which the caller initialises to INT64_MAX and reads once the stream is done.
cudaError_t launchQuantizeRows(uint32_t from, const void* src, uint64_t srcRowBytes, uint32_t to, void* dst,
                               uint64_t dstRowBytes, int64_t rows, int64_t cols, int64_t firstRow,
                               unsigned long long* badRow, cudaStream_t stream);

} // namespace hearth::cuda
