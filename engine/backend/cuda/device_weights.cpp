#include "backend/cuda/device_weights.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>

#include "backend/cuda/cuda_status.h"
#include "backend/cuda/device_health.h"
#include "backend/cuda/process_memory.h"

namespace hearth::cuda {
namespace {

using kernels::GemvType;

constexpr uint64_t kAlign = 256;
constexpr size_t kStagingBytes = 64ull << 20; // per pinned buffer; two alternate

uint64_t aligned(uint64_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

bool isMatrixRole(int role) {
    switch (role) {
    case HEARTH_CUDA_TOKEN_EMBD:
    case HEARTH_CUDA_OUTPUT:
    case HEARTH_CUDA_ATTN_Q:
    case HEARTH_CUDA_ATTN_K:
    case HEARTH_CUDA_ATTN_V:
    case HEARTH_CUDA_ATTN_O:
    case HEARTH_CUDA_FFN_GATE:
    case HEARTH_CUDA_FFN_UP:
    case HEARTH_CUDA_FFN_DOWN: return true;
    default: return false;
    }
}

// Frees what a load allocated for itself (staging, scratch, stream) on every path out.
struct LoadScratch {
    void* staging[2] = {nullptr, nullptr};
    cudaEvent_t copied[2] = {nullptr, nullptr};
    void* repack = nullptr;
    cudaStream_t stream = nullptr;
    ~LoadScratch() {
        if (stream) cudaStreamSynchronize(stream);
        for (int i = 0; i < 2; ++i) {
            if (copied[i]) cudaEventDestroy(copied[i]);
            if (staging[i]) cudaFreeHost(staging[i]);
        }
        if (repack) cudaFree(repack);
        if (stream) cudaStreamDestroy(stream);
    }
};

} // namespace

bool gemvTypeOf(uint32_t ggmlType, GemvType& type) {
    switch (ggmlType) {
    case 0: type = GemvType::F32; return true;
    case 1: type = GemvType::F16; return true;
    case 2: type = GemvType::Q4_0; return true;
    case 6: type = GemvType::Q5_0; return true;
    case 8: type = GemvType::Q8_0; return true;
    case 12: type = GemvType::Q4_K; return true;
    case 13: type = GemvType::Q5_K; return true;
    case 14: type = GemvType::Q6_K; return true;
    case 30: type = GemvType::BF16; return true;
    default: return false;
    }
}

Result<std::unique_ptr<DeviceWeights>> DeviceWeights::load(const HearthCudaModelDesc& desc) {
    std::unique_ptr<DeviceWeights> w(new DeviceWeights());
    HEARTH_TRY(w->upload(desc));
    return w;
}

DeviceWeights::~DeviceWeights() {
    if (m_arena) {
        cudaFree(m_arena);
        addAllocatedBytes(-int64_t(m_bytes));
    }
}

Status DeviceWeights::upload(const HearthCudaModelDesc& d) {
    m_device = d.device;
    m_shape = {d.vocab, d.hidden, d.layers, d.heads, d.kvHeads, d.headDim, d.ffn, d.rmsEps, d.ropeDims,
               d.ropeAdjacent != 0, d.ropeMagnitude};
    if (d.layers <= 0 || d.heads <= 0 || d.kvHeads <= 0 || d.heads % d.kvHeads != 0 || d.headDim <= 0 ||
        d.ropeDims < 0 || d.ropeDims > d.headDim || d.ropeDims % 2 != 0 || (d.ropeDims > 0 && !d.ropeInvFreq))
        return invalidArgument("the model's shape cannot run on the CUDA backend");
    for (int32_t l = 0; l < d.layers; ++l)
        if (d.layerMixers && d.layerMixers[l] != 0)
            return unsupported("layer " + std::to_string(l) + " has a mixer the CUDA backend cannot run yet");
    HEARTH_CUDA_CHECK(cudaSetDevice(d.device));

    // Plan: where every tensor goes in one arena, and the largest repack scratch.
    std::vector<uint64_t> offsets(size_t(d.tensorCount));
    uint64_t total = 0, repackBytes = 0;
    for (int32_t i = 0; i < d.tensorCount; ++i) {
        const HearthCudaTensor& t = d.tensors[i];
        if (t.role < 0 || t.role >= HEARTH_CUDA_ROLE_COUNT || t.layer < -1 || t.layer >= d.layers || !t.data)
            return invalidArgument("tensor " + std::to_string(i) + " of the table is malformed");
        const uint64_t bytes = t.rowBytes * uint64_t(t.rows);
        GemvType type;
        if (isMatrixRole(t.role)) {
            if (!gemvTypeOf(t.type, type) || !kernels::gemvSupports(type, int(t.rows), int(t.cols)))
                return unsupported("a weight of type id " + std::to_string(t.type) + " and shape " +
                                   std::to_string(t.rows) + "x" + std::to_string(t.cols) +
                                   " cannot run on the CUDA backend");
            if (kernels::gemvNeedsRepack(type)) repackBytes = std::max(repackBytes, bytes);
        } else if (t.type != 0 || t.rows != 1) {
            return invalidArgument("vector tensors must be F32 rows");
        }
        offsets[size_t(i)] = total;
        total += aligned(bytes);
    }
    const uint64_t freqOffset = total;
    total += aligned(uint64_t(std::max(1, d.ropeDims / 2)) * sizeof(float));

    size_t freeBytes = 0, totalBytes = 0;
    HEARTH_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
    if (cudaMalloc(&m_arena, total) != cudaSuccess) {
        cudaGetLastError();
        m_arena = nullptr;
        return outOfMemory("the weights need " + std::to_string(total >> 20) + " MiB of GPU memory, but only " +
                           std::to_string(freeBytes >> 20) + " MiB is free");
    }
    m_bytes = total;
    addAllocatedBytes(int64_t(total));
    auto* arena = static_cast<uint8_t*>(m_arena);

    LoadScratch s;
    HEARTH_CUDA_CHECK(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
    for (int i = 0; i < 2; ++i) {
        HEARTH_CUDA_CHECK(cudaHostAlloc(&s.staging[i], kStagingBytes, cudaHostAllocDefault));
        HEARTH_CUDA_CHECK(cudaEventCreateWithFlags(&s.copied[i], cudaEventDisableTiming));
    }
    if (repackBytes) {
        if (cudaMalloc(&s.repack, repackBytes) != cudaSuccess) {
            cudaGetLastError();
            s.repack = nullptr;
            return outOfMemory("repacking the weights needs " + std::to_string(repackBytes >> 20) +
                               " MiB of GPU memory beyond the weights' " + std::to_string(total >> 20) + " MiB");
        }
    }

    // Stream each tensor through the pinned buffers: while the GPU copies one, the CPU fills the
    // other from the mapped file.
    uint64_t done = 0, chunkIndex = 0;
    auto copyIn = [&](uint8_t* dst, const uint8_t* src, uint64_t bytes) -> Status {
        for (uint64_t at = 0; at < bytes; at += kStagingBytes, ++chunkIndex) {
            const size_t n = size_t(std::min<uint64_t>(kStagingBytes, bytes - at));
            const int b = int(chunkIndex & 1);
            HEARTH_CUDA_CHECK(cudaEventSynchronize(s.copied[b]));
            std::memcpy(s.staging[b], src + at, n);
            HEARTH_CUDA_CHECK(cudaMemcpyAsync(dst + at, s.staging[b], n, cudaMemcpyHostToDevice, s.stream));
            HEARTH_CUDA_CHECK(cudaEventRecord(s.copied[b], s.stream));
            done += n;
            if (d.progress && d.progress(d.progressUser, float(double(done) / double(std::max<uint64_t>(total, 1)))))
                return cancelled("loading was cancelled");
        }
        return Status::ok();
    };

    m_layers.assign(size_t(d.layers), DeviceLayer{});
    bool haveOutput = false;
    for (int32_t i = 0; i < d.tensorCount; ++i) {
        const HearthCudaTensor& t = d.tensors[i];
        uint8_t* dst = arena + offsets[size_t(i)];
        const uint64_t bytes = t.rowBytes * uint64_t(t.rows);
        const auto* src = static_cast<const uint8_t*>(t.data);
        if (!isMatrixRole(t.role)) {
            HEARTH_TRY(copyIn(dst, src, bytes));
        } else {
            GemvType type;
            gemvTypeOf(t.type, type);
            if (kernels::gemvNeedsRepack(type)) {
                HEARTH_TRY(copyIn(static_cast<uint8_t*>(s.repack), src, bytes));
                HEARTH_CUDA_CHECK(kernels::launchGemvRepack(type, s.repack, dst, int(t.rows), int(t.cols), s.stream));
            } else {
                HEARTH_TRY(copyIn(dst, src, bytes));
            }
        }
        const auto* vec = reinterpret_cast<const float*>(dst);
        DeviceMatrix m;
        if (isMatrixRole(t.role)) {
            gemvTypeOf(t.type, m.type);
            m.n = int(t.rows), m.k = int(t.cols), m.data = dst;
            if (t.role != HEARTH_CUDA_TOKEN_EMBD) (m.takesX8() ? m_anyX8 : m_anyF32) = true;
        }
        DeviceLayer* layer = t.layer >= 0 ? &m_layers[size_t(t.layer)] : nullptr;
        if (t.layer < 0 && t.role != HEARTH_CUDA_TOKEN_EMBD && t.role != HEARTH_CUDA_OUTPUT &&
            t.role != HEARTH_CUDA_OUTPUT_NORM)
            return invalidArgument("a per-layer tensor has no layer");
        switch (t.role) {
        case HEARTH_CUDA_TOKEN_EMBD: m_embedding = m; break;
        case HEARTH_CUDA_OUTPUT: m_output = m, haveOutput = true; break;
        case HEARTH_CUDA_OUTPUT_NORM: m_outputNorm = vec; break;
        case HEARTH_CUDA_ATTN_NORM: layer->attnNorm = vec; break;
        case HEARTH_CUDA_ATTN_Q: layer->q = m; break;
        case HEARTH_CUDA_ATTN_K: layer->k = m; break;
        case HEARTH_CUDA_ATTN_V: layer->v = m; break;
        case HEARTH_CUDA_ATTN_O: layer->o = m; break;
        case HEARTH_CUDA_ATTN_Q_BIAS: layer->qBias = vec; break;
        case HEARTH_CUDA_ATTN_K_BIAS: layer->kBias = vec; break;
        case HEARTH_CUDA_ATTN_V_BIAS: layer->vBias = vec; break;
        case HEARTH_CUDA_ATTN_Q_NORM: layer->qNorm = vec; break;
        case HEARTH_CUDA_ATTN_K_NORM: layer->kNorm = vec; break;
        case HEARTH_CUDA_FFN_NORM: layer->ffnNorm = vec; break;
        case HEARTH_CUDA_FFN_GATE: layer->gate = m; break;
        case HEARTH_CUDA_FFN_UP: layer->up = m; break;
        case HEARTH_CUDA_FFN_DOWN: layer->down = m; break;
        default: break;
        }
    }
    if (!haveOutput) {
        m_output = m_embedding;
        (m_output.takesX8() ? m_anyX8 : m_anyF32) = true;
    }
    if (d.ropeDims > 0)
        HEARTH_CUDA_CHECK(cudaMemcpyAsync(arena + freqOffset, d.ropeInvFreq, size_t(d.ropeDims / 2) * sizeof(float),
                                          cudaMemcpyHostToDevice, s.stream));
    m_invFreq = reinterpret_cast<const float*>(arena + freqOffset);
    HEARTH_CUDA_CHECK(cudaStreamSynchronize(s.stream));
    if (injectedFault() == Fault::OomLoad) // after everything was allocated: the cleanup is what is tested
        return outOfMemory("(injected by HEARTH_FAULT=oom-load) the weights did not fit");

    if (!m_embedding.data || !m_outputNorm || m_embedding.n != d.vocab || m_embedding.k != d.hidden)
        return invalidArgument("the token embedding or the output norm is missing or misshapen");
    for (size_t l = 0; l < m_layers.size(); ++l) {
        const DeviceLayer& L = m_layers[l];
        if (!L.attnNorm || !L.ffnNorm || !L.q.data || !L.k.data || !L.v.data || !L.o.data || !L.gate.data ||
            !L.up.data || !L.down.data || (L.qNorm == nullptr) != (L.kNorm == nullptr))
            return invalidArgument("layer " + std::to_string(l) + " lacks a tensor the forward pass needs");
    }
    if (d.progress) d.progress(d.progressUser, 1.0f);
    return Status::ok();
}

} // namespace hearth::cuda
