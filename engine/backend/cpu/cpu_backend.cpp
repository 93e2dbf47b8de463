// The reference forward pass: fp32 arithmetic, one token at a time, read top to bottom.
// llama / qwen2 / qwen3 differ only in the flags of ModelConfig (biases, q/k norm, RoPE pairing).
#include <algorithm>
#include <cmath>
#include <vector>

#include "backend/backend.h"
#include "backend/cpu/thread_pool.h"
#include "hearth/devices.h"
#include "model/model_loader.h"
#include "quant/dequantize.h"

namespace hearth {
namespace {

void rmsnorm(float* out, const float* x, const float* weight, int64_t n, float eps) {
    double sumSquares = 0.0; // double: the norm of a 5120-vector should not depend on order luck
    for (int64_t i = 0; i < n; ++i) sumSquares += double(x[i]) * x[i];
    const float scale = float(1.0 / std::sqrt(sumSquares / double(n) + eps));
    for (int64_t i = 0; i < n; ++i) out[i] = x[i] * scale * weight[i];
}

void softmax(float* x, int64_t n) {
    const float maxValue = *std::max_element(x, x + n);
    float sum = 0.0f;
    for (int64_t i = 0; i < n; ++i) {
        x[i] = std::exp(x[i] - maxValue);
        sum += x[i];
    }
    for (int64_t i = 0; i < n; ++i) x[i] /= sum;
}

float silu(float x) { return x / (1.0f + std::exp(-x)); }

class CpuBackend final : public Backend {
public:
    CpuBackend(const LoadedModel& model, int threads, int32_t context)
        : m_model(model), m_config(model.config), m_pool(threads), m_context(context),
          m_rope(computeRopeTable(model.config.rope)) {
        const ModelConfig& c = m_config;
        const int64_t kvWidth = int64_t(c.kvHeads) * c.headDim;
        m_x.resize(c.hidden);
        m_xb.resize(c.hidden);
        m_q.resize(int64_t(c.heads) * c.headDim);
        m_attnOut.resize(m_q.size());
        m_gate.resize(c.ffn);
        m_up.resize(c.ffn);
        m_scores.resize(int64_t(c.heads) * context);
        m_keys.assign(size_t(c.layers) * context * kvWidth, 0.0f);
        m_values.assign(m_keys.size(), 0.0f);
    }

    std::string deviceName() const override { return "cpu: " + probeDevices().devices.front().name; }
    int32_t contextLength() const override { return m_context; }

    Status forward(int32_t token, int32_t pos, std::span<float> logits) override;

private:
    // y[rows] = W x, rows split across threads (each dot product stays on one thread). Each
    // thread gets at least ~64 K weights, below which waking it costs more than it saves.
    void matvec(float* y, const WeightMatrix& w, const float* x) {
        const int parts = int(std::max<int64_t>(1, w.rows * w.cols / 65536));
        m_pool.parallelFor(w.rows, [&](int64_t begin, int64_t end) {
            for (int64_t r = begin; r < end; ++r) y[r] = dotRow(w.type, w.row(r), x, w.cols);
        }, parts);
    }
    void rope(float* vec, int heads, int32_t pos) const;
    void attention(int layer, int32_t pos);

    const LoadedModel& m_model;
    const ModelConfig& m_config;
    ThreadPool m_pool;
    int32_t m_context;
    RopeTable m_rope;
    std::vector<float> m_x, m_xb, m_q, m_attnOut, m_gate, m_up, m_scores;
    std::vector<float> m_keys, m_values; // [layer][pos][kvHeads * headDim]
};

void CpuBackend::rope(float* vec, int heads, int32_t pos) const {
    const int d = m_config.headDim;
    const int pairs = m_config.rope.dims / 2;
    const bool adjacent = m_config.rope.pairing == RopePairing::Adjacent;
    for (int h = 0; h < heads; ++h) {
        float* v = vec + int64_t(h) * d;
        for (int i = 0; i < pairs; ++i) {
            const float angle = float(pos) * m_rope.inverseFrequencies[i];
            const float c = std::cos(angle) * m_rope.magnitude;
            const float s = std::sin(angle) * m_rope.magnitude;
            const int a = adjacent ? 2 * i : i;
            const int b = adjacent ? 2 * i + 1 : i + pairs;
            const float x0 = v[a], x1 = v[b];
            v[a] = x0 * c - x1 * s;
            v[b] = x0 * s + x1 * c;
        }
    }
}

void CpuBackend::attention(int layer, int32_t pos) {
    const ModelConfig& c = m_config;
    const int64_t kvWidth = int64_t(c.kvHeads) * c.headDim;
    const float* keys = m_keys.data() + size_t(layer) * m_context * kvWidth;
    const float* values = m_values.data() + size_t(layer) * m_context * kvWidth;
    const int group = c.heads / c.kvHeads;
    const float scale = 1.0f / std::sqrt(float(c.headDim));
    const int parts = int(std::max<int64_t>(1, int64_t(c.heads) * (pos + 1) * c.headDim / 32768));
    m_pool.parallelFor(c.heads, [&](int64_t begin, int64_t end) {
        for (int64_t h = begin; h < end; ++h) {
            const float* q = m_q.data() + h * c.headDim;
            const int64_t kvOffset = (h / group) * c.headDim;
            float* scores = m_scores.data() + h * m_context;
            for (int32_t t = 0; t <= pos; ++t) {
                const float* k = keys + t * kvWidth + kvOffset;
                float dot = 0.0f;
                for (int i = 0; i < c.headDim; ++i) dot += q[i] * k[i];
                scores[t] = dot * scale;
            }
            softmax(scores, pos + 1);
            float* out = m_attnOut.data() + h * c.headDim;
            std::fill(out, out + c.headDim, 0.0f);
            for (int32_t t = 0; t <= pos; ++t) {
                const float* v = values + t * kvWidth + kvOffset;
                for (int i = 0; i < c.headDim; ++i) out[i] += scores[t] * v[i];
            }
        }
    }, parts);
}

Status CpuBackend::forward(int32_t token, int32_t pos, std::span<float> logits) {
    const ModelConfig& c = m_config;
    const ModelWeights& w = m_model.weights;
    if (pos < 0 || pos >= m_context)
        return invalidArgument("position " + std::to_string(pos) + " is outside the context of " +
                               std::to_string(m_context) + " tokens");
    if (token < 0 || token >= c.vocabSize)
        return invalidArgument("token id " + std::to_string(token) + " is outside the vocabulary of " +
                               std::to_string(c.vocabSize));
    if (!logits.empty() && int64_t(logits.size()) < c.vocabSize)
        return invalidArgument("logits buffer too small");

    const int64_t kvWidth = int64_t(c.kvHeads) * c.headDim;
    float* x = m_x.data();
    float* xb = m_xb.data();
    dequantizeRow(w.tokenEmbedding.type, w.tokenEmbedding.row(token), x, c.hidden);

    for (int layer = 0; layer < c.layers; ++layer) {
        const LayerWeights& l = w.layers[layer];
        float* k = m_keys.data() + (size_t(layer) * m_context + pos) * kvWidth;
        float* v = m_values.data() + (size_t(layer) * m_context + pos) * kvWidth;

        // Attention block: norm, q/k/v (+bias), per-head q/k norm, RoPE, cache, attend, project.
        rmsnorm(xb, x, l.attnNorm.data(), c.hidden, c.rmsEps);
        matvec(m_q.data(), l.wq, xb);
        matvec(k, l.wk, xb);
        matvec(v, l.wv, xb);
        if (c.attnBias) {
            for (size_t i = 0; i < m_q.size(); ++i) m_q[i] += l.qBias[i];
            for (int64_t i = 0; i < kvWidth; ++i) k[i] += l.kBias[i], v[i] += l.vBias[i];
        }
        if (c.qkNorm) {
            for (int h = 0; h < c.heads; ++h)
                rmsnorm(&m_q[size_t(h) * c.headDim], &m_q[size_t(h) * c.headDim], l.qNorm.data(), c.headDim, c.rmsEps);
            for (int h = 0; h < c.kvHeads; ++h)
                rmsnorm(k + size_t(h) * c.headDim, k + size_t(h) * c.headDim, l.kNorm.data(), c.headDim, c.rmsEps);
        }
        rope(m_q.data(), c.heads, pos);
        rope(k, c.kvHeads, pos);
        attention(layer, pos);
        matvec(xb, l.wo, m_attnOut.data());
        for (int i = 0; i < c.hidden; ++i) x[i] += xb[i];

        // Feed-forward block: norm, SwiGLU, project.
        rmsnorm(xb, x, l.ffnNorm.data(), c.hidden, c.rmsEps);
        matvec(m_gate.data(), l.wGate, xb);
        matvec(m_up.data(), l.wUp, xb);
        for (int i = 0; i < c.ffn; ++i) m_gate[i] = silu(m_gate[i]) * m_up[i];
        matvec(xb, l.wDown, m_gate.data());
        for (int i = 0; i < c.hidden; ++i) x[i] += xb[i];
    }

    if (logits.empty()) return Status::ok();
    rmsnorm(xb, x, w.outputNorm.data(), c.hidden, c.rmsEps);
    matvec(logits.data(), w.output, xb);
    return Status::ok();
}

} // namespace

Result<std::unique_ptr<Backend>> createCpuBackend(const LoadedModel& model, const CpuBackendParams& params) {
    int32_t context = params.contextLength > 0 ? params.contextLength : std::min(model.config.contextLength, 4096);
    if (context <= 0) return invalidArgument("context length must be positive");
    const ModelConfig& c = model.config;
    const uint64_t kvBytes = 2ull * c.layers * uint64_t(context) * c.kvHeads * c.headDim * sizeof(float);
    const uint64_t available = probeDevices().devices.front().freeBytes;
    if (available > 0 && kvBytes > available)
        return outOfMemory("the KV cache for " + std::to_string(context) + " tokens needs " +
                           std::to_string(kvBytes >> 20) + " MiB, but only " + std::to_string(available >> 20) +
                           " MiB of memory is available");
    try {
        return std::unique_ptr<Backend>(new CpuBackend(model, params.threads, context));
    } catch (const std::bad_alloc&) {
        return outOfMemory("not enough memory for the CPU backend's buffers");
    }
}

} // namespace hearth
