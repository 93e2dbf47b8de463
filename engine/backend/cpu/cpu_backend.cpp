// The reference forward pass: fp32 arithmetic, read top to bottom. Each layer runs its mixer
// (attention, or Qwen3.5's Gated DeltaNet in cpu_deltanet.cpp) and its feed-forward block;
// llama / qwen2 / qwen3 / qwen35's attention differ only in ModelConfig's flags (biases, q/k norm,
// RoPE pairing, output gate). The KV cache and attention are cpu_kv_cache.cpp.
// A pass takes a run of tokens: a decode step is one; a prefill on the fast kernels takes chunks
// of kPrefillChunk, so that each matrix product reads its weights once for the whole chunk while
// attention and the recurrence still go token by token. The reference kernels prefill one token
// at a time. Each token's arithmetic is the same either way (the kernels are; simd_kernels.h).
#include <algorithm>
#include <cmath>
#include <vector>

#include "backend/backend.h"
#include "backend/cpu/cpu_deltanet.h"
#include "backend/cpu/cpu_kv_cache.h"
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

// Tokens per prefill pass on the fast kernels: enough that a weight read from memory serves many
// tokens, few enough that the chunk's activations stay in the caches.
constexpr int32_t kPrefillChunk = 64;

int32_t chunkFor(int32_t context, bool fastKernels) { return fastKernels ? std::min(kPrefillChunk, context) : 1; }

// The widest input of any matrix (the activation scratch of the fast kernels).
int64_t widestInput(const ModelConfig& c) {
    return std::max({int64_t(c.hidden), int64_t(c.ffn), int64_t(c.heads) * c.headDim,
                     c.deltaNetLayerCount() > 0 ? c.deltaNet.valueWidth() : 0});
}

// The per-token buffers of a pass, as floats: x, xb, q, attnOut, (qGated, attnGate,) gate, up, k, v,
// RoPE's cos and sin.
uint64_t tokenFloats(const ModelConfig& c) {
    const uint64_t kvWidth = uint64_t(c.kvHeads) * c.headDim, qWidth = uint64_t(c.heads) * c.headDim;
    return 2ull * c.hidden + 2 * qWidth + (c.attnOutputGate ? 3 * qWidth : 0) + 2ull * c.ffn + 2 * kvWidth +
           uint64_t(c.rope.dims / 2) * 2;
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
    // tokens (at most m_chunk) at positions pos, pos+1, ... through the model; `logits` (when
    // not null) gets [vocab] values for the last token, or for every token when `all`.
    Status forward(std::span<const int32_t> tokens, int32_t pos, float* logits, bool all);
    void attentionBlock(const AttentionWeights& w, int32_t kvLayer, int32_t pos, int n);
    void ffnBlock(const FfnWeights& w, int n);
    // y[t] = W x[t] for n tokens whose rows lie back to back: the fast SIMD kernels or the
    // reference (simd/fast_matvec.h). matmuls: products of the same x (x quantized once).
    void matmul(float* y, const WeightMatrix& w, const float* x, int n) { m_matvec.run(y, w.rows, w, x, w.cols, n); }
    void matmuls(std::initializer_list<cpu::MatVec::Product> products, const float* x, int n) {
        m_matvec.run(std::span(products.begin(), products.size()), x, products.begin()->w->cols, n);
    }

    const LoadedModel& m_model;
    const ModelConfig& m_config;
    ThreadPool m_pool;
    cpu::MatVec m_matvec;
    int32_t m_context;
    int32_t m_chunk;                    // tokens per pass
    CpuKvCache m_kv;                    // the attention layers' K and V
    CpuDeltaNet m_deltaNet;             // the Gated DeltaNet layers' state (none in other models)
    RopeTable m_rope;
    std::vector<float> m_ropeCos, m_ropeSin; // [token][rope.dims / 2] the pass's rotations (cpu_ops.h)
    std::vector<int32_t> m_kvLayer;     // [layers]: index into the KV cache, or the DeltaNet layer's index
    int64_t m_qWidth, m_kvWidth;        // heads * headDim, kvHeads * headDim
    // A pass's buffers, [token][width] for up to m_chunk tokens:
    std::vector<float> m_x;             // [hidden] the residual stream
    std::vector<float> m_xb;            // [hidden] normed input / block output
    std::vector<float> m_q;             // [heads * headDim]
    std::vector<float> m_attnOut;       // [heads * headDim]
    std::vector<float> m_qGated;        // [heads * 2 * headDim] q_proj's query|gate pairs (output gate only)
    std::vector<float> m_attnGate;      // [heads * headDim] the output gate's logits (output gate only)
    std::vector<float> m_gate, m_up;    // [ffn]
    std::vector<float> m_k, m_v;        // [kvHeads * headDim] the tokens' K and V before caching
    std::vector<float> m_logits;        // [vocab] decode's logits
};

CpuSession::CpuSession(const LoadedModel& model, int threads, bool fastKernels, int32_t context, KvCacheType kvType)
    : m_model(model), m_config(model.config), m_pool(threads), m_matvec(m_pool, fastKernels), m_context(context),
      m_chunk(chunkFor(context, fastKernels)),
      m_kv(model.config, context, kvType, m_pool, fastKernels ? &cpu::kernelsFor(cpu::simdTier()) : nullptr),
      m_deltaNet(model.config, m_pool, m_chunk), m_rope(computeRopeTable(model.config.rope)) {
    const ModelConfig& c = m_config;
    m_qWidth = int64_t(c.heads) * c.headDim;
    m_kvWidth = int64_t(c.kvHeads) * c.headDim;
    int32_t attentionLayers = 0, deltaNetLayers = 0;
    for (int32_t i = 0; i < c.layers; ++i) m_kvLayer.push_back(c.isAttention(i) ? attentionLayers++ : deltaNetLayers++);
    const size_t n = size_t(m_chunk);
    m_x.resize(n * c.hidden);
    m_xb.resize(n * c.hidden);
    m_q.resize(n * m_qWidth);
    m_attnOut.resize(m_q.size());
    if (c.attnOutputGate) {
        m_qGated.resize(2 * m_q.size());
        m_attnGate.resize(m_q.size());
    }
    m_gate.resize(n * c.ffn);
    m_up.resize(n * c.ffn);
    m_k.resize(n * m_kvWidth);
    m_v.resize(n * m_kvWidth);
    m_logits.resize(c.vocabSize);
    m_ropeCos.resize(n * size_t(c.rope.dims / 2));
    m_ropeSin.resize(m_ropeCos.size());
    m_matvec.reserve(widestInput(c), m_chunk);
}

StateBytes CpuSession::stateBytes() const {
    StateBytes b;
    b.kvCache = m_kv.cacheBytes();
    for (const std::vector<float>* v : {&m_x, &m_xb, &m_q, &m_attnOut, &m_qGated, &m_attnGate, &m_gate, &m_up, &m_k,
                                        &m_v, &m_logits, &m_ropeCos, &m_ropeSin})
        b.workspace += v->size() * sizeof(float);
    b.workspace += m_kv.workspaceBytes() + CpuDeltaNet::workspaceBytes(m_config, m_chunk) +
                   cpu::MatVec::scratchBytes(widestInput(m_config), m_chunk);
    b.recurrentState = CpuDeltaNet::stateBytes(m_config);
    return b;
}

// Norm, q/k/v (+bias), per-head q/k norm, RoPE, cache, attend, project, residual.
void CpuSession::attentionBlock(const AttentionWeights& w, int32_t kvLayer, int32_t pos, int n) {
    const ModelConfig& c = m_config;
    for (int t = 0; t < n; ++t) rmsnorm(&m_xb[size_t(t) * c.hidden], &m_x[size_t(t) * c.hidden], w.norm.data(), c.hidden, c.rmsEps);
    // q (with the output gate: per head, headDim query rows then headDim gate rows), k, v
    float* qOut = c.attnOutputGate ? m_qGated.data() : m_q.data();
    matmuls({{qOut, w.q.rows, &w.q}, {m_k.data(), w.k.rows, &w.k}, {m_v.data(), w.v.rows, &w.v}}, m_xb.data(), n);
    if (c.attnOutputGate) {
        for (int64_t th = 0; th < int64_t(n) * c.heads; ++th) { // (token, head) pairs in order
            const float* pair = m_qGated.data() + th * 2 * c.headDim;
            std::copy(pair, pair + c.headDim, m_q.begin() + th * c.headDim);
            std::copy(pair + c.headDim, pair + 2 * c.headDim, m_attnGate.begin() + th * c.headDim);
        }
    }
    for (int t = 0; t < n; ++t) {
        float* q = m_q.data() + t * m_qWidth;
        float* k = m_k.data() + t * m_kvWidth;
        float* v = m_v.data() + t * m_kvWidth;
        if (c.attnBias) {
            for (int64_t i = 0; i < m_qWidth; ++i) q[i] += w.qBias[size_t(i)];
            for (int64_t i = 0; i < m_kvWidth; ++i) k[i] += w.kBias[size_t(i)], v[i] += w.vBias[size_t(i)];
        }
        if (c.qkNorm) {
            for (int h = 0; h < c.heads; ++h)
                rmsnorm(q + h * c.headDim, q + h * c.headDim, w.qNorm.data(), c.headDim, c.rmsEps);
            for (int h = 0; h < c.kvHeads; ++h)
                rmsnorm(k + h * c.headDim, k + h * c.headDim, w.kNorm.data(), c.headDim, c.rmsEps);
        }
        const float* cos = m_ropeCos.data() + size_t(t) * (c.rope.dims / 2);
        const float* sin = m_ropeSin.data() + size_t(t) * (c.rope.dims / 2);
        cpu::rotate(q, c.heads, c.headDim, c.rope, cos, sin);
        cpu::rotate(k, c.kvHeads, c.headDim, c.rope, cos, sin);
    }
    m_kv.store(kvLayer, pos, n, m_k.data(), m_v.data());
    m_kv.attend(kvLayer, pos, n, m_q.data(), m_attnOut.data());
    if (c.attnOutputGate)
        for (size_t i = 0; i < size_t(n) * m_qWidth; ++i) m_attnOut[i] *= cpu::sigmoid(m_attnGate[i]);
    matmul(m_xb.data(), w.o, m_attnOut.data(), n);
    for (size_t i = 0; i < size_t(n) * c.hidden; ++i) m_x[i] += m_xb[i];
}

// Norm, SwiGLU, project, residual.
void CpuSession::ffnBlock(const FfnWeights& w, int n) {
    const ModelConfig& c = m_config;
    for (int t = 0; t < n; ++t) rmsnorm(&m_xb[size_t(t) * c.hidden], &m_x[size_t(t) * c.hidden], w.norm.data(), c.hidden, c.rmsEps);
    m_matvec.runSwiGlu(m_gate.data(), c.ffn, w.gate, w.up, m_up.data(), m_xb.data(), c.hidden, n); // silu(gate)·up
    matmul(m_xb.data(), w.down, m_gate.data(), n);
    for (size_t i = 0; i < size_t(n) * c.hidden; ++i) m_x[i] += m_xb[i];
}

Status CpuSession::forward(std::span<const int32_t> tokens, int32_t pos, float* logits, bool all) {
    const ModelConfig& c = m_config;
    const ModelWeights& w = m_model.weights;
    const int n = int(tokens.size());
    if (pos < 0 || pos + n > m_context)
        return invalidArgument("position " + std::to_string(pos < 0 ? pos : std::max(pos, m_context)) +
                               " is outside the context of " + std::to_string(m_context) + " tokens");
    for (const int32_t token : tokens)
        if (token < 0 || token >= c.vocabSize)
            return invalidArgument("token id " + std::to_string(token) + " is outside the vocabulary of " +
                                   std::to_string(c.vocabSize));
    if (m_deltaNet.active() && pos != m_deltaNet.position()) // a recurrent state cannot skip or repeat tokens
        return invalidArgument("position " + std::to_string(pos) + ": the recurrent state holds " +
                               std::to_string(m_deltaNet.position()) + " tokens (rewind first)");
    for (int t = 0; t < n; ++t)
        dequantizeRow(w.tokenEmbedding.type, w.tokenEmbedding.row(tokens[size_t(t)]), &m_x[size_t(t) * c.hidden], c.hidden);
    const size_t pairs = size_t(c.rope.dims / 2);
    for (int t = 0; t < n; ++t) // every head of every layer rotates by these
        cpu::ropeRotation(pos + t, c.rope, m_rope, m_ropeCos.data() + t * pairs, m_ropeSin.data() + t * pairs);
    for (int32_t layer = 0; layer < c.layers; ++layer) {
        const LayerWeights& l = w.layers[size_t(layer)];
        switch (l.mixer) {
        case Mixer::Attention: attentionBlock(l.attention, m_kvLayer[size_t(layer)], pos, n); break;
        case Mixer::GatedDeltaNet:
            for (int t = 0; t < n; ++t)
                rmsnorm(&m_xb[size_t(t) * c.hidden], &m_x[size_t(t) * c.hidden], l.deltaNet.norm.data(), c.hidden, c.rmsEps);
            m_deltaNet.forward(m_kvLayer[size_t(layer)], l.deltaNet, m_xb.data(), m_xb.data(), n, m_matvec);
            for (size_t i = 0; i < size_t(n) * c.hidden; ++i) m_x[i] += m_xb[i];
            break;
        }
        ffnBlock(l.ffn, n);
    }
    m_deltaNet.setPosition(pos + n);
    if (!logits) return Status::ok();
    const int first = all ? 0 : n - 1; // the tokens whose logits are wanted
    for (int t = first; t < n; ++t)
        rmsnorm(&m_xb[size_t(t) * c.hidden], &m_x[size_t(t) * c.hidden], w.outputNorm.data(), c.hidden, c.rmsEps);
    matmul(logits, w.output, &m_xb[size_t(first) * c.hidden], n - first);
    return Status::ok();
}

Result<int32_t> CpuSession::prefill(std::span<const int32_t> tokens, int32_t start, LogitsWanted which,
                                    std::vector<float>& logits, const std::atomic<bool>* cancel) {
    const size_t vocab = size_t(m_config.vocabSize);
    if (which == LogitsWanted::All) logits.resize(tokens.size() * vocab);
    if (which == LogitsWanted::Last) logits.resize(vocab);
    for (size_t i = 0; i < tokens.size(); i += size_t(m_chunk)) {
        if (cancel && cancel->load(std::memory_order_relaxed)) return int32_t(i);
        const size_t n = std::min(tokens.size() - i, size_t(m_chunk));
        float* out = which == LogitsWanted::All                                  ? logits.data() + i * vocab
                     : which == LogitsWanted::Last && i + n == tokens.size()    ? logits.data()
                                                                                 : nullptr;
        HEARTH_TRY(forward(tokens.subspan(i, n), start + int32_t(i), out, which == LogitsWanted::All));
    }
    return int32_t(tokens.size());
}

Result<int32_t> CpuSession::decode(int32_t token, int32_t pos, Sampler& sampler, std::vector<float>* logits) {
    HEARTH_TRY(forward(std::span<const int32_t>(&token, 1), pos, m_logits.data(), false));
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
    const uint64_t kvBytes = CpuKvCache::cacheBytes(c, context, config.kvType);
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

StateBytes cpuSessionBytes(const ModelConfig& c, int32_t context, KvCacheType kvType, bool fastKernels) {
    const int32_t chunk = chunkFor(context, fastKernels);
    StateBytes b;
    b.kvCache = CpuKvCache::cacheBytes(c, context, kvType);
    // CpuSession's buffers: a pass's per-token buffers for a chunk, decode's logits, the scores,
    // the DeltaNet layers' chunk buffers and the fast kernels' activation scratch.
    b.workspace = (tokenFloats(c) * uint64_t(chunk) + uint64_t(c.vocabSize)) * sizeof(float) +
                  CpuKvCache::workspaceBytes(c, context) + CpuDeltaNet::workspaceBytes(c, chunk) +
                  cpu::MatVec::scratchBytes(widestInput(c), chunk);
    b.recurrentState = CpuDeltaNet::stateBytes(c);
    return b;
}

Result<std::unique_ptr<DeviceModel>> createCpuDeviceModel(const LoadedModel& model, int32_t threads, bool fastKernels) {
    if (threads < 0) return invalidArgument("threads must be >= 0");
    return std::unique_ptr<DeviceModel>(new CpuDeviceModel(model, threads, fastKernels));
}

} // namespace hearth
