// The model shapes the CUDA kernels take, in plain C++ (no CUDA headers): the kernels check their
// calls against these, and the engine reads them to send a model the kernels cannot run to the
// CPU before loading anything (cudaUnsupportedReason), so the two never disagree.
#pragma once

#include <cstdint>

namespace hearth::kernels {

constexpr int kAttentionMaxHeadDim = 256; // attention.cu keeps a key row in registers
constexpr int kAttentionMaxGroup = 16;    // query heads per KV head
constexpr int kGdnMaxConvKernel = 8;      // the conv's taps in registers
constexpr int kGdnMaxHeadDim = 128;       // deltanet_decode.cu: a thread per q | k channel, 256 at most

// Attention heads: up to kAttentionMaxHeadDim values, whole groups of at most kAttentionMaxGroup.
constexpr bool attentionSupports(int64_t heads, int64_t kvHeads, int64_t headDim) {
    return headDim > 0 && headDim <= kAttentionMaxHeadDim && kvHeads > 0 && heads % kvHeads == 0 &&
           heads / kvHeads <= kAttentionMaxGroup;
}

// Gated DeltaNet: key and value heads of 32..128 values in steps of 32, value heads a multiple of
// key heads, a conv of 2..kGdnMaxConvKernel taps.
constexpr bool gdnSupports(int64_t keyHeads, int64_t valueHeads, int64_t keyDim, int64_t valueDim,
                           int64_t convKernel) {
    const auto dimOk = [](int64_t d) { return d >= 32 && d <= kGdnMaxHeadDim && d % 32 == 0; };
    return keyHeads > 0 && valueHeads > 0 && valueHeads % keyHeads == 0 && dimOk(keyDim) && dimOk(valueDim) &&
           convKernel >= 2 && convKernel <= kGdnMaxConvKernel;
}

// The fused decode kernel's scratch (launchGdnDecode): a counter per value and per key head and a
// partial sum of squares per 32 values of each value head.
constexpr uint64_t gdnDecodeScratchBytes(int64_t keyHeads, int64_t valueHeads) {
    return uint64_t(valueHeads) * (4 + 4 * (kGdnMaxHeadDim / 32)) + uint64_t(keyHeads) * 4;
}

} // namespace hearth::kernels
