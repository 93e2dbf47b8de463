#include "backend/cuda/cuda_session.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "backend/cuda/cuda_status.h"
#include "backend/cuda_memory_plan.h"
#include "backend/cuda/prefill_gemm.h"
#include "backend/cuda/device_health.h"
#include "backend/cuda/gemv_tuning.h"
#include "backend/cuda/process_memory.h"

namespace hearth::cuda {
namespace {

using kernels::GemvType;

// Hands out aligned pieces of one allocation; a first pass with base == null only sums sizes.
struct Carver {
    uint8_t* base = nullptr;
    uint64_t used = 0;
    template <typename T>
    T* take(uint64_t count) {
        T* p = base ? reinterpret_cast<T*>(base + used) : nullptr;
        used += cudaAligned(count * sizeof(T));
        return p;
    }
};

} // namespace

Result<std::unique_ptr<CudaSession>> CudaSession::create(const DeviceWeights& weights,
                                                         const HearthCudaSessionDesc& desc) {
    std::unique_ptr<CudaSession> s(new CudaSession(weights));
    HEARTH_TRY(s->allocate(desc));
    HEARTH_TRY(s->tuneGemvs());
    return s;
}

CudaSession::~CudaSession() {
    if (m_stream) cudaStreamSynchronize(m_stream);
    if (m_graphExec) cudaGraphExecDestroy(m_graphExec);
    if (m_graph) cudaGraphDestroy(m_graph);
    if (m_blas) cublasDestroy(m_blas);
    if (m_arena) {
        cudaFree(m_arena);
        addAllocatedBytes(-int64_t(m_kvBytes + m_state.deviceBytes() + m_workspaceBytes));
    }
    if (m_pinned) cudaFreeHost(m_pinned);
    if (m_pinnedLogits) cudaFreeHost(m_pinnedLogits);
    if (m_stream) cudaStreamDestroy(m_stream);
}

Status CudaSession::allocate(const HearthCudaSessionDesc& desc) {
    const ModelShape& s = m_w.shape();
    if (desc.contextLength <= 0 || desc.prefillChunk <= 0)
        return invalidArgument("the context and the prefill chunk must be positive");
    switch (desc.kvType) {
    case HEARTH_CUDA_KV_F32: m_kvType = kernels::KvType::F32; break;
    case HEARTH_CUDA_KV_F16: m_kvType = kernels::KvType::F16; break;
    case HEARTH_CUDA_KV_BF16: m_kvType = kernels::KvType::BF16; break;
    default: return invalidArgument("unknown KV cache type " + std::to_string(desc.kvType));
    }
    const char* graphs = std::getenv("HEARTH_CUDA_GRAPHS");
    m_useGraphs = !(graphs && std::strcmp(graphs, "0") == 0);
    // Programmatic dependent launch (sm_90+): a GEMV streams its weights while the kernel before
    // it finishes. HEARTH_KERNELS=portable keeps to what every supported GPU runs.
    const char* kernelsEnv = std::getenv("HEARTH_KERNELS");
    const bool portable = kernelsEnv && std::strcmp(kernelsEnv, "portable") == 0;
    int major = 0;
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, m_w.device());
    m_gemvLaunch.pdl = !portable && major >= 9;
    // Two projection runs of different types in one launch (launchGemvPair) where the tuning
    // measured it faster; HEARTH_GEMV_PAIRS=0|1 forces it (tests, A/B runs).
    if (const char* pairs = std::getenv("HEARTH_GEMV_PAIRS"); pairs && *pairs) {
        if (std::strcmp(pairs, "0") != 0 && std::strcmp(pairs, "1") != 0)
            return invalidArgument(std::string("HEARTH_GEMV_PAIRS must be 0 or 1, not '") + pairs + "'");
        m_pairMode = pairs[0] == '1' ? PairMode::On : PairMode::Off;
    }
    // Sizes and split factors come from the memory plan the estimate uses (backend/
    // cuda_memory_plan.h), so that `inspect` and the allocation cannot drift apart.
    m_sortScratchBytes = kernels::sortScratchBytes(s.vocab);
    CudaModelShape shape{s.vocab, s.hidden, s.attentionLayers, s.heads, s.kvHeads, s.headDim, s.ffn};
    shape.gatedAttention = s.gatedAttention;
    shape.gdnLayers = s.gdnLayers, shape.gdnKeyHeads = s.gdnKeyHeads, shape.gdnValueHeads = s.gdnValueHeads;
    shape.gdnKeyDim = s.gdnKeyDim, shape.gdnValueDim = s.gdnValueDim, shape.gdnConvKernel = s.gdnConvKernel;
    const CudaSessionPlan plan = planCudaSession(shape, prefillTileElements(m_w), desc.contextLength,
                                                 desc.prefillChunk, uint32_t(kernels::kvTypeBytes(m_kvType)),
                                                 m_sortScratchBytes);
    m_context = plan.context;
    m_chunk = plan.chunk;
    m_splitKeys = plan.splitKeys;
    m_decodeSplits = plan.decodeSplits;
    m_logitRows = plan.logitRows;
    m_tileElements = plan.tileElements;
    m_kvBytes = plan.kvCacheBytes;
    m_projRows = int(shape.projectionRows());
    int attention = 0, gdn = 0;
    for (const DeviceLayer& l : m_w.layers()) m_mixerIndex.push_back(l.mixer == LayerMixer::Attention ? attention++ : gdn++);

    const uint64_t hq = uint64_t(s.heads) * s.headDim, kvW = uint64_t(s.kvHeads) * s.headDim;
    const uint64_t widest = uint64_t(shape.widestInput()), gatedHq = s.gatedAttention ? hq : 0;
    const uint64_t qRows = uint64_t(s.queryRows());
    const uint64_t C = uint64_t(m_chunk);
    const uint64_t channels = uint64_t(s.gdnChannels()), vW = uint64_t(s.gdnValueWidth()), vh = uint64_t(s.gdnValueHeads);
    const bool hasGdn = s.gdnLayers > 0;
    const uint64_t gdnScratchBytes = hasGdn ? kernels::gdnDecodeScratchBytes(s.gdnKeyHeads, s.gdnValueHeads) : 0;
    const size_t partial = std::max(kernels::attentionPartialBytes(1, s.heads, s.headDim, m_decodeSplits),
                                    kernels::attentionPartialBytes(m_chunk, s.heads, s.headDim, 1));

    uint8_t* blasWorkspace = nullptr;
    uint8_t* state = nullptr;
    const uint64_t layerStateBytes = shape.gdnLayerStateBytes();
    auto carve = [&](Carver& c) {
        m_kv = c.take<uint8_t>(m_kvBytes);
        for (int l = 0; l < s.gdnLayers; ++l) {
            uint8_t* piece = c.take<uint8_t>(layerStateBytes);
            if (l == 0) state = piece;
        }
        blasWorkspace = c.take<uint8_t>(kCudaBlasWorkspaceBytes);
        d_tokenPos = c.take<int>(2);
        d_sampled = c.take<int>(1);
        d_x = c.take<float>(s.hidden);
        d_delta = c.take<float>(s.hidden);
        d_xn = c.take<float>(widest);
        d_x8 = c.take<uint8_t>(kernels::gemvX8Bytes(int(widest)));
        d_proj = c.take<float>(uint64_t(m_projRows));
        d_qGated = c.take<float>(gatedHq);
        d_attnGate = c.take<float>(gatedHq);
        d_attn = c.take<float>(hq);
        d_act = c.take<float>(s.ffn);
        d_gate = c.take<float>(s.ffn);
        d_up = c.take<float>(s.ffn);
        d_logits = c.take<float>(s.vocab);
        d_partial = c.take<uint8_t>(partial);
        d_slogits = c.take<float>(s.vocab);
        d_sorted = c.take<float>(s.vocab);
        d_sortedIds = c.take<int>(s.vocab);
        d_penaltyIds = c.take<int>(HEARTH_CUDA_MAX_PENALTY_IDS);
        d_sortScratch = c.take<uint8_t>(m_sortScratchBytes);
        p_tokens = c.take<int>(C);
        p_x = c.take<float>(C * s.hidden);
        p_delta = c.take<float>(C * s.hidden);
        p_xn = c.take<float>(C * widest);
        p_xh = c.take<__half>(C * widest);
        p_q = c.take<float>(C * qRows);
        p_k = c.take<float>(C * kvW);
        p_v = c.take<float>(C * kvW);
        p_qGated = c.take<float>(C * gatedHq);
        p_attnGate = c.take<float>(C * gatedHq);
        p_attn = c.take<float>(C * hq);
        p_gate = c.take<float>(C * s.ffn);
        p_up = c.take<float>(C * s.ffn);
        p_logits = c.take<float>(uint64_t(m_logitRows) * s.vocab);
        p_tile = c.take<__half>(m_tileElements);
        if (hasGdn) {
            d_gdnScratch = c.take<uint8_t>(gdnScratchBytes);
            p_gdnQkv = c.take<float>(C * channels);
            p_gdnZ = c.take<float>(C * vW);
            p_gdnB = c.take<float>(C * vh);
            p_gdnA = c.take<float>(C * vh);
            p_gdnConv = c.take<float>(C * channels);
            p_gdnGates = c.take<float>(C * 2 * vh);
            p_gdnOut = c.take<float>(C * vW);
        }
    };
    Carver sizes;
    carve(sizes);
    const uint64_t total = sizes.used;
    if (total != plan.totalBytes())
        return internalError("the session's buffers take " + std::to_string(total) + " bytes but its memory plan says " +
                             std::to_string(plan.totalBytes()) + ": the memory estimate would be wrong");
    m_workspaceBytes = total - m_kvBytes - plan.recurrentStateBytes;

    HEARTH_CUDA_CHECK(cudaSetDevice(m_w.device()));
    size_t freeBefore = 0, totalBytes = 0;
    HEARTH_CUDA_CHECK(cudaMemGetInfo(&freeBefore, &totalBytes));
    if (cudaMalloc(&m_arena, total) != cudaSuccess) {
        cudaGetLastError();
        m_arena = nullptr;
        return outOfMemory("the session needs " + std::to_string(total >> 20) + " MiB of GPU memory (KV cache " +
                           std::to_string(m_kvBytes >> 20) + " MiB for " + std::to_string(m_context) +
                           " tokens), but only " + std::to_string(freeBefore >> 20) + " MiB is free");
    }
    addAllocatedBytes(int64_t(total));
    Carver real{static_cast<uint8_t*>(m_arena), 0};
    carve(real);
    m_state.bind(state, s.gdnLayers, cudaAligned(layerStateBytes), layerStateBytes,
                 uint64_t(s.gdnValueHeads) * s.gdnKeyDim * s.gdnValueDim);
    HEARTH_CUDA_CHECK(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking));
    HEARTH_TRY(m_state.reset(m_stream));
    if (d_gdnScratch) // the DeltaNet decode kernel's counters start at zero; it leaves them so
        HEARTH_CUDA_CHECK(cudaMemsetAsync(d_gdnScratch, 0, gdnScratchBytes, m_stream));
    // token, pos, sampled, the penalty ids, the candidate ids; and the candidate logits.
    HEARTH_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&m_pinned),
                                    (4 + HEARTH_CUDA_MAX_PENALTY_IDS + HEARTH_CUDA_MAX_TOPK) * sizeof(int32_t),
                                    cudaHostAllocDefault));
    HEARTH_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&m_pinnedLogits), HEARTH_CUDA_MAX_TOPK * sizeof(float),
                                    cudaHostAllocDefault));
    size_t freeAfterArena = 0;
    HEARTH_CUDA_CHECK(cudaMemGetInfo(&freeAfterArena, &totalBytes));
    if (cublasCreate(&m_blas) != CUBLAS_STATUS_SUCCESS) return outOfMemory("cuBLAS could not start");
    if (cublasSetStream(m_blas, m_stream) != CUBLAS_STATUS_SUCCESS ||
        cublasSetWorkspace(m_blas, blasWorkspace, kCudaBlasWorkspaceBytes) != CUBLAS_STATUS_SUCCESS)
        return internalError("cuBLAS could not be set up");
    size_t freeAfterBlas = 0;
    HEARTH_CUDA_CHECK(cudaMemGetInfo(&freeAfterBlas, &totalBytes));
    m_libraryBytes = freeAfterArena > freeAfterBlas ? freeAfterArena - freeAfterBlas : 0;
    return Status::ok();
}

// One token through the model, reading the token and position from d_tokenPos; ends with the
// logits in d_logits and their argmax in d_sampled. Each block ends in residualGemv: its output
// added to x and the next norm.
Status CudaSession::enqueueDecode() {
    const ModelShape& s = m_w.shape();
    const DeviceMatrix& emb = m_w.embedding();
    HEARTH_CUDA_CHECK(kernels::launchEmbed(emb.type, emb.data, emb.n, emb.k, d_tokenPos, 1, d_x, m_stream));
    HEARTH_CUDA_CHECK(kernels::launchRmsNorm(d_x, nullptr, m_w.layers()[0].attnNorm, s.hidden, 1, s.rmsEps, normOut(),
                                             m_stream, m_gemvLaunch.pdl));
    for (int i = 0; i < s.layers; ++i) {
        const DeviceLayer& l = m_w.layers()[size_t(i)];
        HEARTH_TRY(projectionsDecode(l));
        if (l.mixer == LayerMixer::Attention) HEARTH_TRY(attentionDecode(l, m_mixerIndex[size_t(i)]));
        else HEARTH_TRY(deltaNetDecode(l, m_mixerIndex[size_t(i)]));
        const float* nextNorm = i + 1 < s.layers ? m_w.layers()[size_t(i) + 1].attnNorm : m_w.outputNorm();
        HEARTH_TRY(ffnDecode(l, nextNorm));
    }
    HEARTH_TRY(gemv(m_w.output(), d_logits));
    HEARTH_CUDA_CHECK(kernels::launchArgmax(d_logits, s.vocab, d_sampled, m_stream, m_gemvLaunch.pdl));
    return Status::ok();
}

// HEARTH_FAULT's step faults (device_health.h): each as the real failure would come.
Status CudaSession::injectStepFault() {
    switch (injectedFault()) {
    case Fault::OomStep: return outOfMemory("(injected by HEARTH_FAULT=oom-step) a workspace allocation failed");
    case Fault::NonSticky:
        HEARTH_CUDA_CHECK(cudaMemcpyAsync(nullptr, d_x, 4, cudaMemcpyDeviceToDevice, m_stream));
        return Status::ok();
    case Fault::Sticky:
        HEARTH_CUDA_CHECK(kernels::launchFaultIllegalAddress(m_stream));
        HEARTH_CUDA_CHECK(cudaStreamSynchronize(m_stream));
        return Status::ok();
    default: return Status::ok();
    }
}

// The penalty on a copy of the logits, then the argmax or the sorted vocabulary's best topK,
// copied into the pinned buffers (read after the stream's sync).
Status CudaSession::sampleOnDevice(const HearthCudaSampling& sp) {
    const int vocab = m_w.shape().vocab;
    const float* source = d_logits;
    if (sp.penaltyCount > 0 && sp.penalty != 1.0f) {
        std::memcpy(m_pinned + 4, sp.penaltyIds, size_t(sp.penaltyCount) * sizeof(int32_t));
        HEARTH_CUDA_CHECK(cudaMemcpyAsync(d_penaltyIds, m_pinned + 4, size_t(sp.penaltyCount) * sizeof(int32_t),
                                          cudaMemcpyHostToDevice, m_stream));
    }
    if ((sp.penaltyCount > 0 && sp.penalty != 1.0f) || sp.topK > 0) {
        HEARTH_CUDA_CHECK(kernels::launchPenalise(d_logits, vocab, d_penaltyIds,
                                                  sp.penalty != 1.0f ? sp.penaltyCount : 0, sp.penalty, d_slogits,
                                                  m_stream));
        source = d_slogits;
    }
    if (sp.greedy) {
        if (source != d_logits) {
            HEARTH_CUDA_CHECK(kernels::launchArgmax(source, vocab, d_sampled, m_stream));
            HEARTH_CUDA_CHECK(cudaMemcpyAsync(m_pinned + 2, d_sampled, sizeof(int32_t), cudaMemcpyDeviceToHost, m_stream));
        }
        return Status::ok();
    }
    if (sp.topK <= 0) return Status::ok();
    HEARTH_CUDA_CHECK(kernels::launchSortDescending(source, vocab, d_sorted, d_sortedIds, d_sortScratch,
                                                    m_sortScratchBytes, m_stream));
    const size_t k = size_t(std::min(sp.topK, vocab));
    int32_t* ids = m_pinned + 4 + HEARTH_CUDA_MAX_PENALTY_IDS;
    HEARTH_CUDA_CHECK(cudaMemcpyAsync(ids, d_sortedIds, k * sizeof(int32_t), cudaMemcpyDeviceToHost, m_stream));
    HEARTH_CUDA_CHECK(cudaMemcpyAsync(m_pinnedLogits, d_sorted, k * sizeof(float), cudaMemcpyDeviceToHost, m_stream));
    return Status::ok();
}

Status CudaSession::decode(int32_t token, int32_t pos, const HearthCudaSampling& sp, int32_t* sampled,
                           float* logits) {
    const ModelShape& s = m_w.shape();
    if (sp.topK < 0 || sp.topK > HEARTH_CUDA_MAX_TOPK || sp.penaltyCount < 0 ||
        sp.penaltyCount > HEARTH_CUDA_MAX_PENALTY_IDS || (sp.penaltyCount > 0 && !sp.penaltyIds) ||
        !(sp.penalty > 0.0f) || (sp.topK > 0 && (!sp.candidateIds || !sp.candidateLogits || !sp.candidateCount)))
        return invalidArgument("bad sampling request");
    if (injectedFault() != Fault::None && injectedFault() != Fault::OomLoad && faultStepNow()) HEARTH_TRY(injectStepFault());
    if (pos < 0 || pos >= m_context)
        return invalidArgument("position " + std::to_string(pos) + " is outside the context of " +
                               std::to_string(m_context) + " tokens");
    if (token < 0 || token >= s.vocab)
        return invalidArgument("token id " + std::to_string(token) + " is outside the vocabulary of " +
                               std::to_string(s.vocab));
    HEARTH_TRY(m_state.checkStart(pos));
    m_pinned[0] = token;
    m_pinned[1] = pos;
    if (m_useGraphs && !m_graphExec) {
        HEARTH_CUDA_CHECK(cudaStreamBeginCapture(m_stream, cudaStreamCaptureModeThreadLocal));
        cudaMemcpyAsync(d_tokenPos, m_pinned, 2 * sizeof(int32_t), cudaMemcpyHostToDevice, m_stream);
        const Status st = enqueueDecode();
        cudaMemcpyAsync(m_pinned + 2, d_sampled, sizeof(int32_t), cudaMemcpyDeviceToHost, m_stream);
        const cudaError_t end = cudaStreamEndCapture(m_stream, &m_graph);
        HEARTH_TRY(st);
        HEARTH_CUDA_CHECK(end);
        HEARTH_CUDA_CHECK(cudaGraphInstantiate(&m_graphExec, m_graph, 0));
    }
    if (m_graphExec) {
        HEARTH_CUDA_CHECK(cudaGraphLaunch(m_graphExec, m_stream));
    } else {
        HEARTH_CUDA_CHECK(cudaMemcpyAsync(d_tokenPos, m_pinned, 2 * sizeof(int32_t), cudaMemcpyHostToDevice, m_stream));
        HEARTH_TRY(enqueueDecode());
        HEARTH_CUDA_CHECK(cudaMemcpyAsync(m_pinned + 2, d_sampled, sizeof(int32_t), cudaMemcpyDeviceToHost, m_stream));
    }
    HEARTH_TRY(sampleOnDevice(sp));
    if (logits)
        HEARTH_CUDA_CHECK(cudaMemcpyAsync(logits, d_logits, size_t(s.vocab) * sizeof(float), cudaMemcpyDeviceToHost,
                                          m_stream));
    HEARTH_CUDA_CHECK(cudaStreamSynchronize(m_stream));
    m_state.advanceTo(pos + 1);
    if (sampled) *sampled = sp.greedy ? m_pinned[2] : -1;
    if (!sp.greedy && sp.topK > 0) {
        // The best pairs, up to the first -inf (NaN became -inf): the CPU's candidates.
        const int k = std::min(sp.topK, s.vocab);
        const int32_t* ids = m_pinned + 4 + HEARTH_CUDA_MAX_PENALTY_IDS;
        int count = 0;
        while (count < k && m_pinnedLogits[count] > -std::numeric_limits<float>::infinity()) {
            sp.candidateIds[count] = ids[count];
            sp.candidateLogits[count] = m_pinnedLogits[count];
            ++count;
        }
        *sp.candidateCount = count;
    }
    return Status::ok();
}

Status CudaSession::prefill(const int32_t* tokens, int count, int start, int which, float* logits) {
    const ModelShape& s = m_w.shape();
    if (count <= 0 || count > m_chunk) return invalidArgument("a prefill call takes 1.." + std::to_string(m_chunk) + " tokens");
    if (start < 0 || start + count > m_context)
        return invalidArgument("positions " + std::to_string(start) + ".." + std::to_string(start + count - 1) +
                               " are outside the context of " + std::to_string(m_context) + " tokens");
    for (int i = 0; i < count; ++i)
        if (tokens[i] < 0 || tokens[i] >= s.vocab)
            return invalidArgument("token id " + std::to_string(tokens[i]) + " is outside the vocabulary of " +
                                   std::to_string(s.vocab));
    if (which != HEARTH_CUDA_LOGITS_NONE && !logits) return invalidArgument("no buffer for the logits");
    HEARTH_TRY(m_state.checkStart(start));
    HEARTH_TRY(enqueuePrefill(tokens, count, start, which, logits));
    HEARTH_CUDA_CHECK(cudaStreamSynchronize(m_stream));
    m_state.advanceTo(start + count);
    return Status::ok();
}

Status CudaSession::enqueuePrefill(const int32_t* tokens, int count, int start, int which, float* logits) {
    const ModelShape& s = m_w.shape();
    const PrefillGemm gemm(m_blas, m_stream, p_tile, m_tileElements);
    const kernels::NormOut norm{p_xn, p_xh, nullptr};
    HEARTH_CUDA_CHECK(cudaMemcpyAsync(p_tokens, tokens, size_t(count) * sizeof(int32_t), cudaMemcpyHostToDevice, m_stream));
    const DeviceMatrix& emb = m_w.embedding();
    HEARTH_CUDA_CHECK(kernels::launchEmbed(emb.type, emb.data, emb.n, emb.k, p_tokens, count, p_x, m_stream));
    for (int i = 0; i < s.layers; ++i) {
        const DeviceLayer& l = m_w.layers()[size_t(i)];
        HEARTH_CUDA_CHECK(
            kernels::launchRmsNorm(p_x, i ? p_delta : nullptr, l.attnNorm, s.hidden, count, s.rmsEps, norm, m_stream));
        if (l.mixer == LayerMixer::Attention) HEARTH_TRY(attentionPrefill(l, m_mixerIndex[size_t(i)], gemm, count, start));
        else HEARTH_TRY(deltaNetPrefill(l, m_mixerIndex[size_t(i)], gemm, count));
        HEARTH_CUDA_CHECK(kernels::launchRmsNorm(p_x, p_delta, l.ffnNorm, s.hidden, count, s.rmsEps, norm, m_stream));
        HEARTH_TRY(ffnPrefill(l, gemm, count));
    }
    if (which == HEARTH_CUDA_LOGITS_NONE) return Status::ok();
    const int first = which == HEARTH_CUDA_LOGITS_LAST ? count - 1 : 0;
    const int rows = count - first;
    const size_t off = size_t(first) * s.hidden;
    HEARTH_CUDA_CHECK(kernels::launchRmsNorm(p_x + off, p_delta + off, m_w.outputNorm(), s.hidden, rows, s.rmsEps,
                                             norm, m_stream));
    for (int r0 = 0; r0 < rows; r0 += m_logitRows) {
        const int n = std::min(m_logitRows, rows - r0);
        const size_t at = size_t(r0) * s.hidden;
        HEARTH_TRY(gemm.run(m_w.output(), p_xh + at, p_xn + at, n, p_logits));
        HEARTH_CUDA_CHECK(cudaMemcpyAsync(logits + size_t(r0) * s.vocab, p_logits, size_t(n) * s.vocab * sizeof(float),
                                          cudaMemcpyDeviceToHost, m_stream));
    }
    return Status::ok();
}

} // namespace hearth::cuda
