// The reference forward pass: fp32 arithmetic, one token at a time, read top to bottom. Each
// layer runs its mixer (attention, or Qwen3.5's Gated DeltaNet in cpu_deltanet.cpp) and its
// feed-forward block; llama / qwen2 / qwen3 / qwen35's attention differ only in ModelConfig's
// flags (biases, q/k norm, RoPE pairing, output gate).
// The KV cache holds f32, f16 or bf16 (SessionConfig::kvType): K and V are rounded once when
// written and widened to f32 when read, as the GPU's cache does.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "backend/backend.h"
#include "backend/cpu/cpu_deltanet.h"
#include "backend/cpu/cpu_ops.h"
#include "backend/cpu/simd/fast_matvec.h"
#include "backend/cpu/deltanet_ops.h"
#include "base/thread_pool.h"
#include "model/model_loader.h"
#include "quant/dequantize.h"
#include "sampling/sampler.h"

namespace hearth {
namespace {

using cpu::rmsnorm;

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

class CpuSession final : public BackendSession {
public:
    CpuSession(const LoadedModel& model, int threads, bool fastKernels, int32_t context, KvCacheType kvType);

    int32_t contextLength() const override { return m_context; }
    Result<int32_t> prefill(std::span<const int32_t> tokens, int32_t start, LogitsWanted which,
                            std::vector<float>& logits, const std::atomic<bool>* cancel) override;
    Result<int32_t> decode(int32_t token, int32_t pos, Sampler& sampler, std::vector<float>* logits) override;
    void checkpoint(int32_t pos) override { m_deltaNet.checkpoint(pos); }
    int32_t rewindTo(int32_t pos) override { return m_deltaNet.rewindTo(pos); }
    StateBytes stateBytes() const override;

private:
    // One token through the model; the logits (when not null) get [vocab] values.
    Status forward(int32_t token, int32_t pos, float* logits);
    void attentionBlock(const AttentionWeights& w, int32_t kvLayer, int32_t pos);
    void ffnBlock(const FfnWeights& w);
    void attend(int32_t kvLayer, int32_t pos);
    // Stores m_k and m_v as the cache's rows for (kvLayer, pos).
    void storeKv(int32_t kvLayer, int32_t pos);
    // attend over a cache of element T, read through widen(T) -> float (inlined: for an f32
    // cache the arithmetic is exactly the plain loop's).
    template <typename T, typename Widen>
    void attendTyped(const T* keys, const T* values, Widen widen, int32_t pos);
    // y[rows] = W x: the fast SIMD kernels or the reference (simd/fast_matvec.h).
    void matvec(float* y, const WeightMatrix& w, const float* x) { m_matvec.run(y, w, x); }

    const LoadedModel& m_model;
    const ModelConfig& m_config;
    ThreadPool m_pool;
    cpu::MatVec m_matvec;
    CpuDeltaNet m_deltaNet;             // the Gated DeltaNet layers' state (none in other models)
    int32_t m_context;
    KvCacheType m_kvType;
    RopeTable m_rope;
    std::vector<int32_t> m_kvLayer;     // [layers]: index into the KV cache, or the DeltaNet layer's index
    int64_t m_kvWidth;                  // kvHeads * headDim
    std::vector<float> m_x;             // [hidden] the residual stream
    std::vector<float> m_xb;            // [hidden] normed input / block output
    std::vector<float> m_q;             // [heads * headDim]
    std::vector<float> m_attnOut;       // [heads * headDim]
    std::vector<float> m_qGated;        // [heads * 2 * headDim] q_proj's query|gate pairs (output gate only)
    std::vector<float> m_attnGate;      // [heads * headDim] the output gate's logits (output gate only)
    std::vector<float> m_gate, m_up;    // [ffn]
    std::vector<float> m_scores;        // [heads * context]
    std::vector<float> m_k, m_v;        // [kvHeads * headDim] this token's K and V before caching
    // The KV cache, [attention layer][pos][kvHeads * headDim]: the f32 pair or the 16-bit pair
    // (f16 or bf16 bits), whichever m_kvType names; the other pair stays empty.
    std::vector<float> m_keys, m_values;
    std::vector<uint16_t> m_keys16, m_values16;
    std::vector<float> m_logits;        // [vocab] decode's logits
};

CpuSession::CpuSession(const LoadedModel& model, int threads, bool fastKernels, int32_t context, KvCacheType kvType)
    : m_model(model), m_config(model.config), m_pool(threads), m_matvec(m_pool, fastKernels), m_deltaNet(model.config, m_pool), m_context(context),
      m_kvType(kvType),
      m_rope(computeRopeTable(model.config.rope)) {
    const ModelConfig& c = m_config;
    m_kvWidth = int64_t(c.kvHeads) * c.headDim;
    int32_t attentionLayers = 0, deltaNetLayers = 0;
    for (int32_t i = 0; i < c.layers; ++i) m_kvLayer.push_back(c.isAttention(i) ? attentionLayers++ : deltaNetLayers++);
    m_x.resize(c.hidden);
    m_xb.resize(c.hidden);
    m_q.resize(int64_t(c.heads) * c.headDim);
    m_attnOut.resize(m_q.size());
    if (c.attnOutputGate) {
        m_qGated.resize(2 * m_q.size());
        m_attnGate.resize(m_q.size());
    }
    m_gate.resize(c.ffn);
    m_up.resize(c.ffn);
    m_scores.resize(int64_t(c.heads) * context);
    m_k.resize(size_t(m_kvWidth));
    m_v.resize(size_t(m_kvWidth));
    const size_t cacheElements = size_t(attentionLayers) * context * m_kvWidth;
    if (kvType == KvCacheType::F32) {
        m_keys.assign(cacheElements, 0.0f);
        m_values.assign(cacheElements, 0.0f);
    } else {
        m_keys16.assign(cacheElements, 0);
        m_values16.assign(cacheElements, 0);
    }
    m_logits.resize(c.vocabSize);
}

StateBytes CpuSession::stateBytes() const {
    StateBytes b;
    b.kvCache = (m_keys.size() + m_values.size()) * sizeof(float) +
                (m_keys16.size() + m_values16.size()) * sizeof(uint16_t);
    for (const std::vector<float>* v : {&m_x, &m_xb, &m_q, &m_attnOut, &m_qGated, &m_attnGate, &m_gate, &m_up,
                                        &m_scores, &m_k, &m_v, &m_logits})
        b.workspace += v->size() * sizeof(float);
    b.recurrentState = CpuDeltaNet::stateBytes(m_config);
    b.workspace += CpuDeltaNet::workspaceBytes(m_config);
    return b;
}

void CpuSession::storeKv(int32_t kvLayer, int32_t pos) {
    const size_t at = (size_t(kvLayer) * m_context + pos) * size_t(m_kvWidth);
    switch (m_kvType) {
    case KvCacheType::F32:
        std::copy(m_k.begin(), m_k.end(), m_keys.begin() + at);
        std::copy(m_v.begin(), m_v.end(), m_values.begin() + at);
        return;
    case KvCacheType::F16:
        for (int64_t i = 0; i < m_kvWidth; ++i) {
            m_keys16[at + i] = floatToHalf(m_k[i]);
            m_values16[at + i] = floatToHalf(m_v[i]);
        }
        return;
    case KvCacheType::BF16:
        for (int64_t i = 0; i < m_kvWidth; ++i) {
            m_keys16[at + i] = floatToBf16(m_k[i]);
            m_values16[at + i] = floatToBf16(m_v[i]);
        }
        return;
    }
}

// Scores of the query heads against every cached position, softmax, weighted sum of values.
void CpuSession::attend(int32_t kvLayer, int32_t pos) {
    const size_t layer = size_t(kvLayer) * m_context * size_t(m_kvWidth);
    switch (m_kvType) {
    case KvCacheType::F32:
        attendTyped(m_keys.data() + layer, m_values.data() + layer, [](float x) { return x; }, pos);
        return;
    case KvCacheType::F16: {
        const float* table = halfTable();
        attendTyped(m_keys16.data() + layer, m_values16.data() + layer, [table](uint16_t h) { return table[h]; }, pos);
        return;
    }
    case KvCacheType::BF16:
        attendTyped(m_keys16.data() + layer, m_values16.data() + layer, [](uint16_t b) {
            const uint32_t word = uint32_t(b) << 16; // bf16 is the top half of an f32
            float f;
            std::memcpy(&f, &word, sizeof f);
            return f;
        }, pos);
        return;
    }
}

template <typename T, typename Widen>
void CpuSession::attendTyped(const T* keys, const T* values, Widen widen, int32_t pos) {
    const ModelConfig& c = m_config;
    const int group = c.heads / c.kvHeads;
    const float scale = 1.0f / std::sqrt(float(c.headDim));
    const int parts = int(std::max<int64_t>(1, int64_t(c.heads) * (pos + 1) * c.headDim / 32768));
    m_pool.parallelFor(c.heads, [&](int64_t begin, int64_t end) {
        for (int64_t h = begin; h < end; ++h) {
            const float* q = m_q.data() + h * c.headDim;
            const int64_t kvOffset = (h / group) * c.headDim;
            float* scores = m_scores.data() + h * m_context;
            for (int32_t t = 0; t <= pos; ++t) {
                const T* k = keys + t * m_kvWidth + kvOffset;
                float dot = 0.0f;
                for (int i = 0; i < c.headDim; ++i) dot += q[i] * widen(k[i]);
                scores[t] = dot * scale;
            }
            cpu::softmax(scores, pos + 1);
            float* out = m_attnOut.data() + h * c.headDim;
            std::fill(out, out + c.headDim, 0.0f);
            for (int32_t t = 0; t <= pos; ++t) {
                const T* v = values + t * m_kvWidth + kvOffset;
                for (int i = 0; i < c.headDim; ++i) out[i] += scores[t] * widen(v[i]);
            }
        }
    }, parts);
}

// Norm, q/k/v (+bias), per-head q/k norm, RoPE, cache, attend, project, residual.
void CpuSession::attentionBlock(const AttentionWeights& w, int32_t kvLayer, int32_t pos) {
    const ModelConfig& c = m_config;
    float* k = m_k.data();
    float* v = m_v.data();
    rmsnorm(m_xb.data(), m_x.data(), w.norm.data(), c.hidden, c.rmsEps);
    if (c.attnOutputGate) { // per head: headDim query rows, then headDim gate rows
        matvec(m_qGated.data(), w.q, m_xb.data());
        for (int h = 0; h < c.heads; ++h) {
            const float* pair = m_qGated.data() + size_t(h) * 2 * c.headDim;
            std::copy(pair, pair + c.headDim, m_q.begin() + ptrdiff_t(h) * c.headDim);
            std::copy(pair + c.headDim, pair + 2 * c.headDim, m_attnGate.begin() + ptrdiff_t(h) * c.headDim);
        }
    } else {
        matvec(m_q.data(), w.q, m_xb.data());
    }
    matvec(k, w.k, m_xb.data());
    matvec(v, w.v, m_xb.data());
    if (c.attnBias) {
        for (size_t i = 0; i < m_q.size(); ++i) m_q[i] += w.qBias[i];
        for (int64_t i = 0; i < m_kvWidth; ++i) k[i] += w.kBias[i], v[i] += w.vBias[i];
    }
    if (c.qkNorm) {
        for (int h = 0; h < c.heads; ++h)
            rmsnorm(&m_q[size_t(h) * c.headDim], &m_q[size_t(h) * c.headDim], w.qNorm.data(), c.headDim, c.rmsEps);
        for (int h = 0; h < c.kvHeads; ++h)
            rmsnorm(k + size_t(h) * c.headDim, k + size_t(h) * c.headDim, w.kNorm.data(), c.headDim, c.rmsEps);
    }
    cpu::applyRope(m_q.data(), c.heads, c.headDim, pos, c.rope, m_rope);
    cpu::applyRope(k, c.kvHeads, c.headDim, pos, c.rope, m_rope);
    storeKv(kvLayer, pos);
    attend(kvLayer, pos);
    if (c.attnOutputGate)
        for (size_t i = 0; i < m_attnOut.size(); ++i) m_attnOut[i] *= cpu::sigmoid(m_attnGate[i]);
    matvec(m_xb.data(), w.o, m_attnOut.data());
    for (int i = 0; i < c.hidden; ++i) m_x[i] += m_xb[i];
}

// Norm, SwiGLU, project, residual.
void CpuSession::ffnBlock(const FfnWeights& w) {
    const ModelConfig& c = m_config;
    rmsnorm(m_xb.data(), m_x.data(), w.norm.data(), c.hidden, c.rmsEps);
    matvec(m_gate.data(), w.gate, m_xb.data());
    matvec(m_up.data(), w.up, m_xb.data());
    for (int i = 0; i < c.ffn; ++i) m_gate[i] = cpu::silu(m_gate[i]) * m_up[i];
    matvec(m_xb.data(), w.down, m_gate.data());
    for (int i = 0; i < c.hidden; ++i) m_x[i] += m_xb[i];
}

Status CpuSession::forward(int32_t token, int32_t pos, float* logits) {
    const ModelConfig& c = m_config;
    const ModelWeights& w = m_model.weights;
    if (pos < 0 || pos >= m_context)
        return invalidArgument("position " + std::to_string(pos) + " is outside the context of " +
                               std::to_string(m_context) + " tokens");
    if (token < 0 || token >= c.vocabSize)
        return invalidArgument("token id " + std::to_string(token) + " is outside the vocabulary of " +
                               std::to_string(c.vocabSize));
    if (m_deltaNet.active() && pos != m_deltaNet.position()) // a recurrent state cannot skip or repeat tokens
        return invalidArgument("position " + std::to_string(pos) + ": the recurrent state holds " +
                               std::to_string(m_deltaNet.position()) + " tokens (rewind first)");
    dequantizeRow(w.tokenEmbedding.type, w.tokenEmbedding.row(token), m_x.data(), c.hidden);
    for (int32_t layer = 0; layer < c.layers; ++layer) {
        const LayerWeights& l = w.layers[size_t(layer)];
        switch (l.mixer) {
        case Mixer::Attention: attentionBlock(l.attention, m_kvLayer[size_t(layer)], pos); break;
        case Mixer::GatedDeltaNet:
            rmsnorm(m_xb.data(), m_x.data(), l.deltaNet.norm.data(), c.hidden, c.rmsEps);
            m_deltaNet.forward(m_kvLayer[size_t(layer)], l.deltaNet, m_xb.data(), m_xb.data(),
                               [this](float* y, const WeightMatrix& m, const float* x) { matvec(y, m, x); });
            for (int i = 0; i < c.hidden; ++i) m_x[i] += m_xb[i];
            break;
        }
        ffnBlock(l.ffn);
    }
    m_deltaNet.setPosition(pos + 1);
    if (!logits) return Status::ok();
    rmsnorm(m_xb.data(), m_x.data(), w.outputNorm.data(), c.hidden, c.rmsEps);
    matvec(logits, w.output, m_xb.data());
    return Status::ok();
}

Result<int32_t> CpuSession::prefill(std::span<const int32_t> tokens, int32_t start, LogitsWanted which,
                                    std::vector<float>& logits, const std::atomic<bool>* cancel) {
    const size_t vocab = size_t(m_config.vocabSize);
    if (which == LogitsWanted::All) logits.resize(tokens.size() * vocab);
    if (which == LogitsWanted::Last) logits.resize(vocab);
    for (size_t i = 0; i < tokens.size(); ++i) {
        if (cancel && cancel->load(std::memory_order_relaxed)) return int32_t(i);
        float* out = which == LogitsWanted::All                                  ? logits.data() + i * vocab
                     : which == LogitsWanted::Last && i + 1 == tokens.size()    ? logits.data()
                                                                                 : nullptr;
        HEARTH_TRY(forward(tokens[i], start + int32_t(i), out));
    }
    return int32_t(tokens.size());
}

Result<int32_t> CpuSession::decode(int32_t token, int32_t pos, Sampler& sampler, std::vector<float>* logits) {
    HEARTH_TRY(forward(token, pos, m_logits.data()));
    if (logits) *logits = m_logits;
    return sampler.sample(m_logits);
}

class CpuDeviceModel final : public DeviceModel {
public:
    CpuDeviceModel(const LoadedModel& model, int32_t threads, bool fastKernels)
        : m_model(model), m_threads(threads), m_fastKernels(fastKernels) {}
    DeviceKind kind() const override { return DeviceKind::Cpu; }
    std::string deviceName() const override { return "cpu: " + deviceInfo().name; }
    DeviceInfo deviceInfo() const override { return probeCpuNow(); }
    // The weights stay in the mapped file (or the buffers a preset made): nothing is copied.
    uint64_t weightBytes() const override { return m_model.weights.totalBytes(); }
    Result<std::unique_ptr<BackendSession>> createSession(const SessionConfig& config) const override;

private:
    const LoadedModel& m_model;
    int32_t m_threads;
    bool m_fastKernels;
};

Result<std::unique_ptr<BackendSession>> CpuDeviceModel::createSession(const SessionConfig& config) const {
    const ModelConfig& c = m_model.config;
    const int32_t context = config.contextLength > 0 ? config.contextLength : std::min(c.contextLength, 4096);
    if (context <= 0) return invalidArgument("context length must be positive");
    const uint64_t kvBytes = cpuSessionBytes(c, context, config.kvType).kvCache;
    const uint64_t available = probeCpuNow().freeBytes;
    if (available > 0 && kvBytes > available)
        return outOfMemory("the KV cache for " + std::to_string(context) + " tokens needs " +
                           std::to_string(kvBytes >> 20) + " MiB, but only " + std::to_string(available >> 20) +
                           " MiB of memory is available");
    try {
        return std::unique_ptr<BackendSession>(new CpuSession(m_model, m_threads, m_fastKernels, context, config.kvType));
    } catch (const std::bad_alloc&) {
        return outOfMemory("not enough memory for the CPU backend's buffers");
    }
}

} // namespace

uint64_t kvCacheElementBytes(KvCacheType type) { return type == KvCacheType::F32 ? 4 : 2; }

StateBytes cpuSessionBytes(const ModelConfig& c, int32_t context, KvCacheType kvType) {
    const uint64_t kvWidth = uint64_t(c.kvHeads) * c.headDim, qWidth = uint64_t(c.heads) * c.headDim;
    StateBytes b;
    b.kvCache = 2ull * uint64_t(c.attentionLayerCount()) * uint64_t(context) * kvWidth * kvCacheElementBytes(kvType);
    // CpuSession's buffers: x, xb, q, attnOut, (qGated, attnGate,) gate, up, scores, k, v, logits.
    const uint64_t floats = 2ull * c.hidden + 2 * qWidth + (c.attnOutputGate ? 3 * qWidth : 0) + 2ull * c.ffn +
                            uint64_t(c.heads) * uint64_t(context) + 2 * kvWidth + uint64_t(c.vocabSize);
    b.workspace = floats * sizeof(float) + CpuDeltaNet::workspaceBytes(c);
    b.recurrentState = CpuDeltaNet::stateBytes(c);
    return b;
}

Result<std::unique_ptr<DeviceModel>> createCpuDeviceModel(const LoadedModel& model, int32_t threads, bool fastKernels) {
    if (threads < 0) return invalidArgument("threads must be >= 0");
    return std::unique_ptr<DeviceModel>(new CpuDeviceModel(model, threads, fastKernels));
}

} // namespace hearth
