// The KV cache of a CPU session's attention layers and the attention over it (the reference
// maths: fp32 scores, softmax, weighted sum; with the fast kernels, their SIMD loops over the
// positions). The cache holds f32, f16 or bf16 (SessionConfig::kvType): K and V are rounded once
// when stored and widened to f32 when read, as the GPU's cache does.
#pragma once

#include <cstdint>
#include <vector>

#include "backend/backend.h"
#include "backend/cpu/simd/simd_kernels.h"
#include "model/model_config.h"

namespace hearth {

class ThreadPool;

class CpuKvCache {
public:
    // `kernels`: the fast path's attention loops; null: the reference loops.
    CpuKvCache(const ModelConfig& config, int32_t context, KvCacheType type, ThreadPool& pool,
               const cpu::SimdKernels* kernels);

    // Stores the K and V rows ([tokens][kvHeads·headDim] each) of `tokens` tokens at positions
    // pos, pos+1, ... of attention layer `layer` (counting only attention layers).
    void store(int32_t layer, int32_t pos, int tokens, const float* k, const float* v);
    // For each token t < tokens at position pos+t: its query heads q[t] ([tokens][heads·headDim])
    // against the cached positions 0..pos+t, softmax, the weighted sum of values into out[t].
    // Causal, so a token's result is the same whether it comes alone or with others.
    void attend(int32_t layer, int32_t pos, int tokens, const float* q, float* out);

    uint64_t cacheBytes() const;
    uint64_t workspaceBytes() const { return m_scores.size() * sizeof(float); }
    static uint64_t cacheBytes(const ModelConfig& config, int32_t context, KvCacheType type);
    static uint64_t workspaceBytes(const ModelConfig& config, int32_t context); // the scores

private:
    template <typename T, typename Widen>
    void attendTyped(const T* keys, const T* values, Widen widen, int32_t pos, int tokens, const float* q, float* out);
    void attendFast(const cpu::AttnKernels& k, const void* keys, const void* values, int32_t pos, int tokens,
                    const float* q, float* out);

    const ModelConfig& m_config;
    ThreadPool& m_pool;
    int32_t m_context;
    KvCacheType m_type;
    cpu::AttnKernels m_fast; // null loops: the reference
    int64_t m_width; // kvHeads * headDim
    // [attention layer][pos][kvHeads * headDim]: the f32 pair or the 16-bit pair (f16 or bf16
    // bits), whichever m_type names; the other pair stays empty.
    std::vector<float> m_keys, m_values;
    std::vector<uint16_t> m_keys16, m_values16;
    std::vector<float> m_scores; // [heads][context]
};

} // namespace hearth
