// The CUDA backend on the engine's side: the backend contract (backend.h) over the module's C
// ABI (cuda_module_abi.h). A CudaDeviceModel describes the loaded model's tensors to the module,
// which uploads them; a CudaBackendSession runs prefill in chunks (checking cancellation between
// them) and decode, picking greedy tokens on the GPU and sampling others here from the logits.
#include <cstring>
#include <vector>

#include "backend/backend.h"
#include "backend/cuda_module.h"
#include "backend/cuda_tensor_table.h"
#include "model/model_loader.h"
#include "sampling/sampler.h"

namespace hearth {
namespace {

constexpr int32_t kPrefillChunk = 512;

Status fromModule(int code, const HearthCudaError& error) {
    if (code == 0) return Status::ok();
    return Status(StatusCode(code), error.message);
}

int32_t kvTypeCode(KvCacheType type) {
    switch (type) {
    case KvCacheType::F32: return HEARTH_CUDA_KV_F32;
    case KvCacheType::F16: return HEARTH_CUDA_KV_F16;
    case KvCacheType::BF16: return HEARTH_CUDA_KV_BF16;
    }
    return -1;
}

// The loaded model as the module's tensor table (pointers into the mapped file and buffers).
std::vector<HearthCudaTensor> tensorTable(const LoadedModel& model) {
    std::vector<HearthCudaTensor> tensors;
    for (const CudaTableEntry& e : cudaTensorTable(model.config, model.weights)) {
        const int32_t stacked = e.stacked ? 1 : 0;
        if (e.vector) {
            const uint64_t bytes = e.vector->size() * sizeof(float);
            tensors.push_back({e.role, e.layer, 0u, 1, int64_t(e.vector->size()), bytes, e.vector->data(), 0u, bytes, 0});
            continue;
        }
        const WeightMatrix& m = *e.matrix;
        if (m.deferredFrom) // the module quantizes these rows on the GPU
            tensors.push_back({e.role, e.layer, uint32_t(*m.deferredFrom), m.rows, m.cols, m.deferredRowBytes, m.data,
                               uint32_t(m.type), m.rowBytes, stacked});
        else
            tensors.push_back({e.role, e.layer, uint32_t(m.type), m.rows, m.cols, m.rowBytes, m.data, uint32_t(m.type),
                               m.rowBytes, stacked});
    }
    return tensors;
}

class CudaBackendSession final : public BackendSession {
public:
    CudaBackendSession(const CudaModelApi& api, HearthCudaSession* session, int32_t context, int32_t vocab)
        : m_api(api), m_session(session), m_context(context), m_vocab(vocab) {}
    ~CudaBackendSession() override { m_api.sessionFree(m_session); }

    int32_t contextLength() const override { return m_context; }

    Result<int32_t> prefill(std::span<const int32_t> tokens, int32_t start, LogitsWanted which,
                            std::vector<float>& logits, const std::atomic<bool>* cancel) override {
        const size_t vocab = size_t(m_vocab);
        if (which == LogitsWanted::All) logits.resize(tokens.size() * vocab);
        if (which == LogitsWanted::Last) logits.resize(vocab);
        for (size_t at = 0; at < tokens.size(); at += kPrefillChunk) {
            if (cancel && cancel->load(std::memory_order_relaxed)) return int32_t(at);
            const size_t n = std::min<size_t>(kPrefillChunk, tokens.size() - at);
            const bool last = at + n == tokens.size();
            int32_t mode = HEARTH_CUDA_LOGITS_NONE;
            float* out = nullptr;
            if (which == LogitsWanted::All) mode = HEARTH_CUDA_LOGITS_ALL, out = logits.data() + at * vocab;
            if (which == LogitsWanted::Last && last) mode = HEARTH_CUDA_LOGITS_LAST, out = logits.data();
            HearthCudaError error{};
            HEARTH_TRY(fromModule(m_api.prefill(m_session, tokens.data() + at, int32_t(n), start + int32_t(at), mode,
                                                out, &error),
                                  error));
        }
        return int32_t(tokens.size());
    }

    Result<int32_t> decode(int32_t token, int32_t pos, Sampler& sampler, std::vector<float>* logits) override {
        // The CPU sampler's chain split where the data is: the penalty and the argmax or the top-k
        // on the GPU, softmax/top-p/min-p/draw on the k candidates here. Only top-k off (the whole
        // vocabulary is a candidate) or a penalty window beyond the device's list copies the
        // logits back and samples here.
        const std::vector<int32_t>& penalised = sampler.penaltyTokens();
        const bool greedy = !(sampler.params().temperature > 0.0f); // NaN: greedy, as the Sampler
        // top-k at least the vocabulary: the CPU draws over all tokens in id order, so here too.
        const int32_t topK = sampler.deviceTopK();
        const bool onDevice = penalised.size() <= HEARTH_CUDA_MAX_PENALTY_IDS &&
                              (greedy || (topK > 0 && topK <= HEARTH_CUDA_MAX_TOPK && topK < m_vocab));
        HearthCudaSampling sp{};
        sp.penalty = sampler.penalty();
        if (onDevice) {
            sp.greedy = greedy ? 1 : 0;
            sp.topK = greedy ? 0 : topK;
            sp.penaltyIds = penalised.data();
            sp.penaltyCount = int32_t(penalised.size());
            m_candidateIds.resize(size_t(sp.topK));
            m_candidateLogits.resize(size_t(sp.topK));
            sp.candidateIds = m_candidateIds.data();
            sp.candidateLogits = m_candidateLogits.data();
            sp.candidateCount = &m_candidateCount;
        }
        const bool needLogits = logits || !onDevice;
        if (needLogits) m_logits.resize(size_t(m_vocab));
        int32_t sampled = -1;
        HearthCudaError error{};
        HEARTH_TRY(fromModule(m_api.decode(m_session, token, pos, &sp, &sampled, needLogits ? m_logits.data() : nullptr,
                                           &error),
                              error));
        if (logits) *logits = m_logits;
        if (!onDevice) return sampler.sample(m_logits);
        if (greedy) return sampled;
        return sampler.sampleCandidates(std::span<const int32_t>(m_candidateIds.data(), size_t(m_candidateCount)),
                                        std::span<const float>(m_candidateLogits.data(), size_t(m_candidateCount)));
    }

    void checkpoint(int32_t pos) override {
        HearthCudaError error{};
        m_api.checkpoint(m_session, pos, &error); // a failed copy only loses a shortcut: rewind re-runs more
    }

    int32_t rewindTo(int32_t pos) override {
        HearthCudaError error{};
        int32_t restored = 0;
        // On failure the module marks its state lost, and the next prefill or decode says why.
        if (m_api.rewind(m_session, pos, &restored, &error) != 0) return 0;
        return restored;
    }

    StateBytes stateBytes() const override {
        HearthCudaMemory m{};
        m_api.sessionMemory(m_session, &m);
        StateBytes b;
        b.kvCache = m.kvCache;
        b.recurrentState = m.recurrentState;
        b.workspace = m.workspace;
        return b;
    }

private:
    const CudaModelApi& m_api;
    HearthCudaSession* m_session;
    int32_t m_context;
    int32_t m_vocab;
    std::vector<float> m_logits;
    std::vector<int32_t> m_candidateIds;
    std::vector<float> m_candidateLogits;
    int32_t m_candidateCount = 0;
};

class CudaDeviceModel final : public DeviceModel {
public:
    CudaDeviceModel(const CudaModelApi& api, HearthCudaModel* model, const LoadedModel& loaded, int32_t gpu)
        : m_api(api), m_model(model), m_loaded(loaded), m_gpu(gpu) {}
    ~CudaDeviceModel() override { m_api.modelFree(m_model); }

    DeviceKind kind() const override { return DeviceKind::Cuda; }
    std::string deviceName() const override { return "cuda:" + std::to_string(m_gpu) + ": " + deviceInfo().name; }
    DeviceInfo deviceInfo() const override {
        HearthCudaMemory m{};
        m_api.modelMemory(m_model, &m);
        DeviceInfo info;
        info.kind = DeviceKind::Cuda;
        info.index = m_gpu;
        info.name = m.deviceName;
        info.totalBytes = m.deviceTotal;
        info.freeBytes = m.deviceFree;
        for (const DeviceInfo& d : probeDevices().devices)
            if (d.kind == DeviceKind::Cuda && d.index == m_gpu) info.computeCapability = d.computeCapability;
        return info;
    }
    uint64_t deviceContextBytes() const override {
        HearthCudaMemory m{};
        m_api.modelMemory(m_model, &m);
        return m.deviceContext;
    }
    uint64_t weightBytes() const override {
        HearthCudaMemory m{};
        m_api.modelMemory(m_model, &m);
        return m.weights;
    }
    Result<std::unique_ptr<BackendSession>> createSession(const SessionConfig& config) const override {
        const ModelConfig& c = m_loaded.config;
        const int32_t context = config.contextLength > 0 ? config.contextLength : std::min(c.contextLength, 4096);
        if (context <= 0) return invalidArgument("context length must be positive");
        const HearthCudaSessionDesc desc{context, kvTypeCode(config.kvType), kPrefillChunk};
        HearthCudaSession* session = nullptr;
        HearthCudaError error{};
        HEARTH_TRY(fromModule(m_api.sessionCreate(m_model, &desc, &session, &error), error));
        return std::unique_ptr<BackendSession>(new CudaBackendSession(m_api, session, context, c.vocabSize));
    }

private:
    const CudaModelApi& m_api;
    HearthCudaModel* m_model;
    const LoadedModel& m_loaded;
    int32_t m_gpu;
};

struct ProgressRelay {
    const DeviceModelParams* params;
    static int call(void* user, float fraction) {
        const DeviceModelParams& p = *static_cast<ProgressRelay*>(user)->params;
        if (p.onProgress) p.onProgress(fraction);
        return p.cancel && p.cancel->load(std::memory_order_relaxed) ? 1 : 0;
    }
};

} // namespace

Result<std::unique_ptr<DeviceModel>> createCudaDeviceModel(const LoadedModel& model, const DeviceModelParams& params) {
    const CudaModule& module = CudaModule::instance();
    if (!module.usable()) return unsupported("the CUDA backend is not available: " + module.failureReason());
    const DeviceReport& report = probeDevices();
    int gpus = 0;
    for (const DeviceInfo& d : report.devices) gpus += d.kind == DeviceKind::Cuda;
    if (gpus == 0)
        return notFound("no CUDA device is usable: " +
                        (report.cudaUnavailableReason.empty() ? std::string("none was found") : report.cudaUnavailableReason));
    if (params.gpu < 0 || params.gpu >= gpus)
        return notFound("there is no CUDA device " + std::to_string(params.gpu) + ": this machine has " +
                        std::to_string(gpus) + " (0.." + std::to_string(gpus - 1) + ")");
    const ModelConfig& c = model.config;
    const RopeTable rope = computeRopeTable(c.rope);
    std::vector<int32_t> mixers;
    for (const LayerKind& k : c.layerKinds) mixers.push_back(int32_t(k.mixer));
    const std::vector<HearthCudaTensor> table = tensorTable(model);
    ProgressRelay relay{&params};
    HearthCudaModelDesc desc{};
    desc.device = params.gpu;
    desc.vocab = c.vocabSize, desc.hidden = c.hidden, desc.layers = c.layers, desc.heads = c.heads;
    desc.kvHeads = c.kvHeads, desc.headDim = c.headDim, desc.ffn = c.ffn;
    desc.rmsEps = c.rmsEps;
    desc.ropeDims = c.rope.dims;
    desc.ropeAdjacent = c.rope.pairing == RopePairing::Adjacent ? 1 : 0;
    desc.ropeInvFreq = rope.inverseFrequencies.data();
    desc.ropeMagnitude = rope.magnitude;
    desc.layerMixers = mixers.data();
    desc.attnOutputGate = c.attnOutputGate ? 1 : 0;
    if (c.deltaNetLayerCount() > 0) {
        const DeltaNetDims& d = c.deltaNet;
        desc.gdnKeyHeads = d.keyHeads, desc.gdnValueHeads = d.valueHeads, desc.gdnKeyDim = d.keyDim;
        desc.gdnValueDim = d.valueDim, desc.gdnConvKernel = d.convKernel;
        desc.gdnTiledHeads = d.order == ValueHeadOrder::Tiled ? 1 : 0;
    }
    desc.tensors = table.data();
    desc.tensorCount = int32_t(table.size());
    desc.progress = &ProgressRelay::call;
    desc.progressUser = &relay;
    HearthCudaModel* handle = nullptr;
    HearthCudaError error{};
    HEARTH_TRY(fromModule(module.api().modelLoad(&desc, &handle, &error), error));
    return std::unique_ptr<DeviceModel>(new CudaDeviceModel(module.api(), handle, model, params.gpu));
}

} // namespace hearth
