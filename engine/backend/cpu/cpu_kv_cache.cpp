#include "backend/cpu/cpu_kv_cache.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "backend/cpu/cpu_ops.h"
#include "backend/cpu/simd/half_convert.h"
#include "base/thread_pool.h"
#include "quant/half.h"

namespace hearth {
namespace {

// Every f16 value as f32 (256 KiB, made once): reading an f16 cache widens a row per step and
// head, so the conversion must cost a load, not a call.
const float* halfTable() {
    static const std::vector<float> table = [] {
        std::vector<float> t(65536);
        for (uint32_t h = 0; h < 65536; ++h) t[h] = halfToFloat(uint16_t(h));
        return t;
    }();
    return table.data();
}

} // namespace

CpuKvCache::CpuKvCache(const ModelConfig& config, int32_t context, KvCacheType type, ThreadPool& pool,
                       const cpu::SimdKernels* kernels)
    : m_config(config), m_pool(pool), m_context(context), m_type(type),
      m_fast(kernels ? kernels->attention(type == KvCacheType::F32   ? DType::F32
                                          : type == KvCacheType::F16 ? DType::F16
                                                                     : DType::BF16)
                     : cpu::AttnKernels{}),
      m_width(int64_t(config.kvHeads) * config.headDim) {
    const size_t elements = size_t(config.attentionLayerCount()) * size_t(context) * size_t(m_width);
    if (type == KvCacheType::F32) {
        m_keys.assign(elements, 0.0f);
        m_values.assign(elements, 0.0f);
    } else {
        m_keys16.assign(elements, 0);
        m_values16.assign(elements, 0);
    }
    m_scores.resize(size_t(workspaceBytes(config, context) / sizeof(float)));
}

uint64_t CpuKvCache::cacheBytes() const {
    return (m_keys.size() + m_values.size()) * sizeof(float) + (m_keys16.size() + m_values16.size()) * sizeof(uint16_t);
}

uint64_t CpuKvCache::cacheBytes(const ModelConfig& c, int32_t context, KvCacheType type) {
    return 2ull * uint64_t(c.attentionLayerCount()) * uint64_t(context) * uint64_t(c.kvHeads) * uint64_t(c.headDim) *
           kvCacheElementBytes(type);
}

uint64_t CpuKvCache::workspaceBytes(const ModelConfig& c, int32_t context) {
    return uint64_t(c.heads) * uint64_t(context) * sizeof(float);
}

void CpuKvCache::store(int32_t layer, int32_t pos, int tokens, const float* k, const float* v) {
    const size_t at = (size_t(layer) * m_context + pos) * size_t(m_width);
    const size_t count = size_t(tokens) * size_t(m_width);
    switch (m_type) {
    case KvCacheType::F32:
        std::copy(k, k + count, m_keys.begin() + ptrdiff_t(at));
        std::copy(v, v + count, m_values.begin() + ptrdiff_t(at));
        return;
    case KvCacheType::F16:
        cpu::floatsToHalves(k, m_keys16.data() + at, count);
        cpu::floatsToHalves(v, m_values16.data() + at, count);
        return;
    case KvCacheType::BF16:
        for (size_t i = 0; i < count; ++i) {
            m_keys16[at + i] = floatToBf16(k[i]);
            m_values16[at + i] = floatToBf16(v[i]);
        }
        return;
    }
}

void CpuKvCache::attend(int32_t layer, int32_t pos, int tokens, const float* q, float* out) {
    const size_t at = size_t(layer) * m_context * size_t(m_width);
    if (m_fast.scores && m_fast.mix) {
        const void* keys = m_type == KvCacheType::F32 ? static_cast<const void*>(m_keys.data() + at) : m_keys16.data() + at;
        const void* values =
            m_type == KvCacheType::F32 ? static_cast<const void*>(m_values.data() + at) : m_values16.data() + at;
        return attendFast(m_fast, keys, values, pos, tokens, q, out);
    }
    switch (m_type) {
    case KvCacheType::F32:
        attendTyped(m_keys.data() + at, m_values.data() + at, [](float x) { return x; }, pos, tokens, q, out);
        return;
    case KvCacheType::F16: {
        const float* table = halfTable();
        attendTyped(m_keys16.data() + at, m_values16.data() + at, [table](uint16_t h) { return table[h]; }, pos, tokens,
                    q, out);
        return;
    }
    case KvCacheType::BF16:
        attendTyped(m_keys16.data() + at, m_values16.data() + at, [](uint16_t b) {
            const uint32_t word = uint32_t(b) << 16; // bf16 is the top half of an f32
            float f;
            std::memcpy(&f, &word, sizeof f);
            return f;
        }, pos, tokens, q, out);
        return;
    }
}

// Read through widen(T) -> float (inlined: for an f32 cache the arithmetic is exactly the plain
// loop's). Threads take whole heads, each walking the tokens in order over its scores row.
template <typename T, typename Widen>
void CpuKvCache::attendTyped(const T* keys, const T* values, Widen widen, int32_t pos, int tokens, const float* q,
                             float* out) {
    const ModelConfig& c = m_config;
    const int group = c.heads / c.kvHeads;
    const int64_t qWidth = int64_t(c.heads) * c.headDim;
    const float scale = 1.0f / std::sqrt(float(c.headDim));
    const int parts = int(std::max<int64_t>(1, int64_t(c.heads) * (pos + tokens) * c.headDim * tokens / 32768));
    m_pool.parallelFor(c.heads, [&](int64_t begin, int64_t end) {
        for (int64_t h = begin; h < end; ++h) {
            const int64_t kvOffset = (h / group) * c.headDim;
            float* scores = m_scores.data() + h * m_context;
            for (int t = 0; t < tokens; ++t) {
                const float* qh = q + t * qWidth + h * c.headDim;
                const int32_t last = pos + t;
                for (int32_t p = 0; p <= last; ++p) {
                    const T* k = keys + p * m_width + kvOffset;
                    float dot = 0.0f;
                    for (int i = 0; i < c.headDim; ++i) dot += qh[i] * widen(k[i]);
                    scores[p] = dot * scale;
                }
                cpu::softmax(scores, last + 1);
                float* o = out + t * qWidth + h * c.headDim;
                std::fill(o, o + c.headDim, 0.0f);
                for (int32_t p = 0; p <= last; ++p) {
                    const T* v = values + p * m_width + kvOffset;
                    for (int i = 0; i < c.headDim; ++i) o[i] += scores[p] * widen(v[i]);
                }
            }
        }
    }, parts);
}

// The same walk as attendTyped with the fast kernels' loops over the positions.
void CpuKvCache::attendFast(const cpu::AttnKernels& k, const void* keys, const void* values, int32_t pos, int tokens,
                            const float* q, float* out) {
    const ModelConfig& c = m_config;
    const int group = c.heads / c.kvHeads;
    const int64_t qWidth = int64_t(c.heads) * c.headDim;
    const uint64_t elementBytes = m_type == KvCacheType::F32 ? 4 : 2;
    const float scale = 1.0f / std::sqrt(float(c.headDim));
    const int parts = int(std::max<int64_t>(1, int64_t(c.heads) * (pos + tokens) * c.headDim * tokens / 32768));
    m_pool.parallelFor(c.heads, [&](int64_t begin, int64_t end) {
        for (int64_t h = begin; h < end; ++h) {
            const uint64_t kvOffset = uint64_t(h / group) * uint64_t(c.headDim) * elementBytes;
            float* scores = m_scores.data() + h * m_context;
            for (int t = 0; t < tokens; ++t) {
                const int32_t count = pos + t + 1;
                k.scores(q + t * qWidth + h * c.headDim, static_cast<const uint8_t*>(keys) + kvOffset, m_width,
                         c.headDim, count, scale, scores);
                cpu::softmax(scores, count);
                k.mix(scores, static_cast<const uint8_t*>(values) + kvOffset, m_width, c.headDim, count,
                      out + t * qWidth + h * c.headDim);
            }
        }
    }, parts);
}

} // namespace hearth
