// The streaming decode attention (attention_decode.cu): pass 1 of attention.cu's split-K scheme
// for a 16-bit cache, heads of 64/128/256 and up to 8 query heads per KV head; attention.cu's
// combine kernel finishes it. Other calls run attention.cu's fp32 kernels.
#pragma once

#include "hearth_kernels/ops.h"

namespace hearth::kernels::detail {

// Pass 1's output, which pass 2 (attention.cu's combine) reads: per (query, head, key range) the
// unnormalised output and its (max, sum).
struct Partial {
    float* out; // [tokens][heads][splits][headDim]
    float* ml;  // [tokens][heads][splits][2]: max, sum
};

__host__ __device__ inline Partial partialAt(void* base, int tokens, int heads, int headDim, int splits) {
    float* out = static_cast<float*>(base);
    return {out, out + size_t(tokens) * heads * splits * headDim};
}

bool decodeAttentionTakes(const AttentionCall& call);
// Writes the partials (call.partial) of every (query, query head, key range).
cudaError_t launchDecodeAttentionPartials(const AttentionCall& call, cudaStream_t stream);

} // namespace hearth::kernels::detail
