// Decode attention's pass 1 over a 16-bit cache, up to 8 query heads per KV head: the tensor-core
// form for heads of 128/256 (attention_decode_mma.cu), the fp32 streaming form for heads of 64
// (attention_decode.cu); attention.cu's combine kernel finishes it. Other calls run attention.cu's
// fp32 kernels.
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
// waveSplits > 0 caps the ranges used at that many (one resident wave of blocks, launchAttention).
__device__ __forceinline__ int keysPerSplit(const AttentionCall& c, int pos) {
    if (c.splits == 1) return c.splitKeys;
    const int splits = c.waveSplits > 0 ? min(c.splits, c.waveSplits) : c.splits;
    const int per = (pos + splits) / splits; // ceil((pos + 1) / splits)
    const int rounded = (per + 63) / 64 * 64;
    return c.waveSplits > 0 ? rounded : min(c.splitKeys, rounded);
}

constexpr int kDecodeThreads = 128; // both pass-1 kernels
using DecodeKernel = void (*)(AttentionCall);

// The pass-1 kernel a decode call takes, or null (attention.cu's fp32 kernels run it).
DecodeKernel decodeKernelFor(const AttentionCall& call);
// attention_decode_mma.cu's kernel for the call, or null (heads other than 128/256, groups over 8,
// a q not 16-byte aligned).
DecodeKernel decodeMmaKernelFor(const AttentionCall& call);
// Key ranges in use for a decode call (AttentionCall::waveSplits): one resident wave of the
// kernel's blocks. More ranges than that run in several waves, the last one partly idle (32B at
// 32k: 53 -> 62 tok/s with the streaming kernel); fewer leave SMs without a block.
int decodeWaveSplits(const AttentionCall& call, DecodeKernel kernel);
// Writes the partials (call.partial) of every (query, query head, key range).
cudaError_t launchDecodeAttentionPartials(const AttentionCall& call, DecodeKernel kernel, cudaStream_t stream);

} // namespace hearth::kernels::detail
