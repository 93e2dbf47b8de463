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

// Keys per range for a query at `pos`: its pos + 1 keys spread over the `splits` ranges in
// multiples of 64 (a tile of the streaming kernel; at most splitKeys, since splits · splitKeys
// covers the context), so a query early in a long context keeps many blocks busy instead of a few
// blocks looping over many tiles each (27B at depth 2k: 22 µs a layer with ranges sized for the
// context).
__device__ __forceinline__ int keysPerSplit(const AttentionCall& c, int pos) {
    if (c.splits == 1) return c.splitKeys;
    const int per = (pos + c.splits) / c.splits; // ceil((pos + 1) / splits)
    return min(c.splitKeys, (per + 63) / 64 * 64);
}

bool decodeAttentionTakes(const AttentionCall& call);
// Writes the partials (call.partial) of every (query, query head, key range).
cudaError_t launchDecodeAttentionPartials(const AttentionCall& call, cudaStream_t stream);

} // namespace hearth::kernels::detail
