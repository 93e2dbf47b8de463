#include "backend/cuda/device_weights.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>

#include "backend/cuda/cuda_status.h"
#include "backend/cuda/device_health.h"
#include "backend/cuda/process_memory.h"
#include "backend/cuda/weight_quantize.h"
#include "backend/cuda/weight_upload.h"

namespace hearth::cuda {
namespace {

using kernels::GemvType;

constexpr uint64_t kAlign = 256;

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

// A layer's q, k and v (indices into the table, -1 when absent) and whether the module keeps
// them as one matrix: all three present with one device type and width.
struct QkvParts {
    int q = -1, k = -1, v = -1;
    bool fused = false;
    int rows(const HearthCudaModelDesc& d) const { return int(d.tensors[q].rows + d.tensors[k].rows + d.tensors[v].rows); }
    int kRow(const HearthCudaModelDesc& d) const { return int(d.tensors[q].rows); }
    int vRow(const HearthCudaModelDesc& d) const { return int(d.tensors[q].rows + d.tensors[k].rows); }
    uint64_t bytes(const HearthCudaModelDesc& d) const {
        uint64_t total = 0;
        for (int i : {q, k, v}) total += d.tensors[i].deviceRowBytes * uint64_t(d.tensors[i].rows);
        return total;
    }
};

std::vector<QkvParts> findQkv(const HearthCudaModelDesc& d) {
    std::vector<QkvParts> parts(size_t(d.layers));
    for (int32_t i = 0; i < d.tensorCount; ++i) {
        const HearthCudaTensor& t = d.tensors[i];
        if (t.layer < 0) continue;
        if (t.role == HEARTH_CUDA_ATTN_Q) parts[size_t(t.layer)].q = i;
        if (t.role == HEARTH_CUDA_ATTN_K) parts[size_t(t.layer)].k = i;
        if (t.role == HEARTH_CUDA_ATTN_V) parts[size_t(t.layer)].v = i;
    }
    for (QkvParts& p : parts) {
        if (p.q < 0 || p.k < 0 || p.v < 0) continue;
        const HearthCudaTensor &q = d.tensors[p.q], &k = d.tensors[p.k], &v = d.tensors[p.v];
        p.fused = q.deviceType == k.deviceType && k.deviceType == v.deviceType && q.cols == k.cols && k.cols == v.cols;
    }
    return parts;
}

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

    for (int32_t i = 0; i < d.tensorCount; ++i) {
        const HearthCudaTensor& t = d.tensors[i];
        if (t.role < 0 || t.role >= HEARTH_CUDA_ROLE_COUNT || t.layer < -1 || t.layer >= d.layers || !t.data)
            return invalidArgument("tensor " + std::to_string(i) + " of the table is malformed");
    }
    const std::vector<QkvParts> qkv = findQkv(d);

    // Plan: where every tensor goes in one arena (in its device type; a fused q|k|v as one
    // piece), the largest repack scratch, and what converts on the way.
    std::vector<uint64_t> offsets(size_t(d.tensorCount));
    uint64_t total = 0;
    WeightUploader::Plan plan;
    for (int32_t i = 0; i < d.tensorCount; ++i) {
        const HearthCudaTensor& t = d.tensors[i];
        const QkvParts* fused = t.layer >= 0 && qkv[size_t(t.layer)].fused ? &qkv[size_t(t.layer)] : nullptr;
        const bool stackedTail = fused && (i == fused->k || i == fused->v);
        const uint64_t bytes = fused && i == fused->q ? fused->bytes(d) : t.deviceRowBytes * uint64_t(t.rows);
        GemvType type;
        if (isMatrixRole(t.role)) {
            if (!gemvTypeOf(t.deviceType, type) || !kernels::gemvSupports(type, int(t.rows), int(t.cols)))
                return unsupported("a weight of type id " + std::to_string(t.deviceType) + " and shape " +
                                   std::to_string(t.rows) + "x" + std::to_string(t.cols) +
                                   " cannot run on the CUDA backend");
            if (kernels::gemvNeedsRepack(type)) plan.repackBytes = std::max(plan.repackBytes, bytes);
        } else if (t.type != 0 || t.deviceType != 0 || t.rows != 1) {
            return invalidArgument("vector tensors must be F32 rows");
        }
        if (t.deviceType != t.type) {
            if (!canQuantizeOnDevice(t.type, t.deviceType))
                return unsupported(describeTensor(t) + ": the GPU cannot convert type id " + std::to_string(t.type) +
                                   " to " + std::to_string(t.deviceType));
            ++plan.convertedTensors;
        } else if (t.deviceRowBytes != t.rowBytes) {
            return invalidArgument(describeTensor(t) + ": row sizes disagree without a conversion");
        }
        plan.sourceBytes += t.rowBytes * uint64_t(t.rows);
        if (stackedTail) continue; // placed right after the rows before it, below
        offsets[size_t(i)] = total;
        total += aligned(bytes);
    }
    for (const QkvParts& f : qkv) {
        if (!f.fused) continue;
        offsets[size_t(f.k)] = offsets[size_t(f.q)] + d.tensors[f.q].deviceRowBytes * uint64_t(d.tensors[f.q].rows);
        offsets[size_t(f.v)] = offsets[size_t(f.k)] + d.tensors[f.k].deviceRowBytes * uint64_t(d.tensors[f.k].rows);
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

    HEARTH_ASSIGN(std::unique_ptr<WeightUploader> uploader, WeightUploader::create(plan, d));
    m_layers.assign(size_t(d.layers), DeviceLayer{});
    bool haveOutput = false;
    for (int32_t i = 0; i < d.tensorCount; ++i) {
        const HearthCudaTensor& t = d.tensors[i];
        uint8_t* dst = arena + offsets[size_t(i)];
        GemvType type = GemvType::F32;
        if (isMatrixRole(t.role)) gemvTypeOf(t.deviceType, type);
        const QkvParts* fused = t.layer >= 0 && qkv[size_t(t.layer)].fused ? &qkv[size_t(t.layer)] : nullptr;
        const bool stacked = fused && (i == fused->q || i == fused->k || i == fused->v);
        if (stacked && kernels::gemvNeedsRepack(type)) { // one repack of all three, at q's turn
            if (i == fused->q)
                HEARTH_TRY(uploader->uploadStacked({&d.tensors[fused->q], &d.tensors[fused->k], &d.tensors[fused->v]},
                                                   type, dst));
        } else {
            HEARTH_TRY(uploader->upload(t, isMatrixRole(t.role), type, dst));
        }
        const auto* vec = reinterpret_cast<const float*>(dst);
        DeviceMatrix m;
        if (isMatrixRole(t.role)) {
            m.type = type;
            m.n = int(t.rows), m.k = int(t.cols), m.data = dst;
            if (stacked) { // a view of the fused matrix, which starts at q
                m.data = arena + offsets[size_t(fused->q)];
                m.rowOffset = i == fused->q ? 0 : i == fused->k ? fused->kRow(d) : fused->vRow(d);
                m.storedRows = fused->rows(d);
                m_layers[size_t(t.layer)].qkv = {type, fused->rows(d), int(t.cols), m.data};
            }
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
        HEARTH_TRY(uploader->copy(arena + freqOffset, d.ropeInvFreq, uint64_t(d.ropeDims / 2) * sizeof(float)));
    m_invFreq = reinterpret_cast<const float*>(arena + freqOffset);
    HEARTH_TRY(uploader->finish());
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
