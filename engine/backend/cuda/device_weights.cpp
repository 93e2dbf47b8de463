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
    case HEARTH_CUDA_FFN_DOWN:
    case HEARTH_CUDA_SSM_QKV:
    case HEARTH_CUDA_SSM_Z:
    case HEARTH_CUDA_SSM_BETA:
    case HEARTH_CUDA_SSM_ALPHA:
    case HEARTH_CUDA_SSM_OUT: return true;
    default: return false;
    }
}

// Where an input projection's rows start in its layer's projection buffer (-1: not one).
int projectionRow(int role, const ModelShape& s) {
    const int hq = s.heads * s.headDim, kvW = s.kvHeads * s.headDim;
    switch (role) {
    case HEARTH_CUDA_ATTN_Q: return 0;
    case HEARTH_CUDA_ATTN_K: return s.queryRows();
    case HEARTH_CUDA_ATTN_V: return s.queryRows() + kvW;
    case HEARTH_CUDA_SSM_QKV: return 0;
    case HEARTH_CUDA_SSM_Z: return s.gdnChannels();
    case HEARTH_CUDA_SSM_BETA: return s.gdnChannels() + s.gdnValueWidth();
    case HEARTH_CUDA_SSM_ALPHA: return s.gdnChannels() + s.gdnValueWidth() + s.gdnValueHeads;
    default: (void)hq; return -1;
    }
}

// How many values a DeltaNet vector holds (0: not one).
int64_t gdnVectorLength(int role, const ModelShape& s) {
    switch (role) {
    case HEARTH_CUDA_SSM_CONV: return int64_t(s.gdnChannels()) * s.gdnConvKernel;
    case HEARTH_CUDA_SSM_DT_BIAS:
    case HEARTH_CUDA_SSM_A: return s.gdnValueHeads;
    case HEARTH_CUDA_SSM_NORM: return s.gdnValueDim;
    default: return 0;
    }
}

// Runs of stacked tensors: first[i] is the table index of the run tensor i belongs to (itself
// when it starts one), with the run's rows and bytes at its first entry.
struct Runs {
    std::vector<int> first;
    std::vector<int64_t> rows;
    std::vector<uint64_t> bytes;
    std::vector<std::vector<const HearthCudaTensor*>> members;
};

Result<Runs> findRuns(const HearthCudaModelDesc& d, const ModelShape& shape) {
    Runs r;
    r.first.resize(size_t(d.tensorCount));
    r.rows.assign(size_t(d.tensorCount), 0);
    r.bytes.assign(size_t(d.tensorCount), 0);
    r.members.resize(size_t(d.tensorCount));
    for (int32_t i = 0; i < d.tensorCount; ++i) {
        const HearthCudaTensor& t = d.tensors[i];
        if (t.stacked) {
            const HearthCudaTensor* prev = i > 0 ? &d.tensors[i - 1] : nullptr;
            const int prevRow = prev ? projectionRow(prev->role, shape) : -1, row = projectionRow(t.role, shape);
            if (!prev || prev->layer != t.layer || prev->deviceType != t.deviceType || prev->cols != t.cols ||
                prevRow < 0 || row != prevRow + int(prev->rows))
                return invalidArgument(describeTensor(t) + " is marked as stacked on a tensor it cannot join");
            r.first[size_t(i)] = r.first[size_t(i - 1)];
        } else {
            r.first[size_t(i)] = i;
        }
        const size_t f = size_t(r.first[size_t(i)]);
        r.rows[f] += t.rows;
        r.bytes[f] += t.deviceRowBytes * uint64_t(t.rows);
        r.members[f].push_back(&t);
    }
    return r;
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
    ModelShape& sh = m_shape;
    sh = {d.vocab, d.hidden, d.layers, d.heads, d.kvHeads, d.headDim, d.ffn, d.rmsEps, d.ropeDims,
          d.ropeAdjacent != 0, d.ropeMagnitude};
    sh.gatedAttention = d.attnOutputGate != 0;
    sh.gdnKeyHeads = d.gdnKeyHeads, sh.gdnValueHeads = d.gdnValueHeads, sh.gdnKeyDim = d.gdnKeyDim;
    sh.gdnValueDim = d.gdnValueDim, sh.gdnConvKernel = d.gdnConvKernel, sh.gdnTiled = d.gdnTiledHeads != 0;
    if (d.layers <= 0 || d.heads <= 0 || d.kvHeads <= 0 || d.heads % d.kvHeads != 0 || d.headDim <= 0 ||
        d.ropeDims < 0 || d.ropeDims > d.headDim || d.ropeDims % 2 != 0 || (d.ropeDims > 0 && !d.ropeInvFreq))
        return invalidArgument("the model's shape cannot run on the CUDA backend");
    m_layers.assign(size_t(d.layers), DeviceLayer{});
    for (int32_t l = 0; l < d.layers; ++l) {
        const int mixer = d.layerMixers ? d.layerMixers[l] : 0;
        if (mixer != 0 && mixer != 1)
            return unsupported("layer " + std::to_string(l) + " has a mixer the CUDA backend cannot run");
        m_layers[size_t(l)].mixer = LayerMixer(mixer);
        (mixer == 0 ? sh.attentionLayers : sh.gdnLayers) += 1;
    }
    if (sh.gdnLayers > 0) {
        HEARTH_TRY(kernels::gdnSupports(sh.gdnKeyHeads, sh.gdnValueHeads, sh.gdnKeyDim, sh.gdnValueDim, sh.gdnConvKernel)
                       ? Status::ok()
                       : unsupported("the Gated DeltaNet's sizes (" + std::to_string(sh.gdnKeyHeads) + " key heads of " +
                                     std::to_string(sh.gdnKeyDim) + ", " + std::to_string(sh.gdnValueHeads) +
                                     " value heads of " + std::to_string(sh.gdnValueDim) + ", conv " +
                                     std::to_string(sh.gdnConvKernel) + ") cannot run on the CUDA backend"));
    }
    HEARTH_CUDA_CHECK(cudaSetDevice(d.device));

    for (int32_t i = 0; i < d.tensorCount; ++i) {
        const HearthCudaTensor& t = d.tensors[i];
        if (t.role < 0 || t.role >= HEARTH_CUDA_ROLE_COUNT || t.layer < -1 || t.layer >= d.layers || !t.data)
            return invalidArgument("tensor " + std::to_string(i) + " of the table is malformed");
        if (const int64_t n = gdnVectorLength(t.role, sh); n > 0 && t.cols != n)
            return invalidArgument(describeTensor(t) + " has " + std::to_string(t.cols) + " values where the shape needs " +
                                   std::to_string(n));
    }
    HEARTH_ASSIGN(const Runs runs, findRuns(d, sh));

    // Plan: where every tensor goes in one arena (in its device type; a stacked run as one
    // piece), the largest repack scratch, and what converts on the way.
    std::vector<uint64_t> offsets(size_t(d.tensorCount));
    uint64_t total = 0;
    WeightUploader::Plan plan;
    for (int32_t i = 0; i < d.tensorCount; ++i) {
        const HearthCudaTensor& t = d.tensors[i];
        const int first = runs.first[size_t(i)];
        GemvType type;
        if (isMatrixRole(t.role)) {
            if (!gemvTypeOf(t.deviceType, type) ||
                !kernels::gemvSupports(type, int(runs.rows[size_t(first)]), int(t.cols)))
                return unsupported("a weight of type id " + std::to_string(t.deviceType) + " and shape " +
                                   std::to_string(t.rows) + "x" + std::to_string(t.cols) +
                                   " cannot run on the CUDA backend");
            if (kernels::gemvNeedsRepack(type)) plan.repackBytes = std::max(plan.repackBytes, runs.bytes[size_t(first)]);
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
        if (first != i) { // right below the rows before it
            offsets[size_t(i)] = offsets[size_t(i - 1)] + d.tensors[i - 1].deviceRowBytes * uint64_t(d.tensors[i - 1].rows);
            continue;
        }
        offsets[size_t(i)] = total;
        total += aligned(runs.bytes[size_t(i)]);
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
    bool haveOutput = false;
    for (int32_t i = 0; i < d.tensorCount; ++i) {
        const HearthCudaTensor& t = d.tensors[i];
        uint8_t* dst = arena + offsets[size_t(i)];
        GemvType type = GemvType::F32;
        if (isMatrixRole(t.role)) gemvTypeOf(t.deviceType, type);
        const int first = runs.first[size_t(i)];
        const std::vector<const HearthCudaTensor*>& members = runs.members[size_t(first)];
        const bool stacked = members.size() > 1;
        if (stacked && kernels::gemvNeedsRepack(type)) { // one repack of the whole run, at its first
            if (first == i) HEARTH_TRY(uploader->uploadStacked(members, type, dst));
        } else {
            HEARTH_TRY(uploader->upload(t, isMatrixRole(t.role), type, dst));
        }
        const auto* vec = reinterpret_cast<const float*>(dst);
        DeviceMatrix m;
        DeviceLayer* layer = t.layer >= 0 ? &m_layers[size_t(t.layer)] : nullptr;
        if (isMatrixRole(t.role)) {
            m.type = type;
            m.n = int(t.rows), m.k = int(t.cols), m.data = dst;
            if (stacked) { // a view of the run, which starts at its first tensor
                m.data = arena + offsets[size_t(first)];
                m.rowOffset = int((offsets[size_t(i)] - offsets[size_t(first)]) / t.deviceRowBytes);
                m.storedRows = int(runs.rows[size_t(first)]);
            }
            const int outRow = projectionRow(t.role, sh);
            if (outRow >= 0 && layer && first == i)
                layer->projections.push_back({{type, int(runs.rows[size_t(i)]), int(t.cols), dst}, outRow});
            if (t.role != HEARTH_CUDA_TOKEN_EMBD) (m.takesX8() ? m_anyX8 : m_anyF32) = true;
        }
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
        case HEARTH_CUDA_SSM_QKV: layer->ssmQkv = m; break;
        case HEARTH_CUDA_SSM_Z: layer->ssmZ = m; break;
        case HEARTH_CUDA_SSM_BETA: layer->ssmBeta = m; break;
        case HEARTH_CUDA_SSM_ALPHA: layer->ssmAlpha = m; break;
        case HEARTH_CUDA_SSM_OUT: layer->ssmOut = m; break;
        case HEARTH_CUDA_SSM_CONV: layer->conv = vec; break;
        case HEARTH_CUDA_SSM_DT_BIAS: layer->dtBias = vec; break;
        case HEARTH_CUDA_SSM_A: layer->negExpA = vec; break;
        case HEARTH_CUDA_SSM_NORM: layer->ssmNorm = vec; break;
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
    for (size_t l = 0; l < m_layers.size(); ++l) HEARTH_TRY(checkLayer(int(l)));
    if (d.progress) d.progress(d.progressUser, 1.0f);
    return Status::ok();
}

// Every tensor the layer's forward pass reads is there, of the shape it reads.
Status DeviceWeights::checkLayer(int index) const {
    const DeviceLayer& L = m_layers[size_t(index)];
    const ModelShape& s = m_shape;
    const auto lacks = [&](const char* what) {
        return invalidArgument("layer " + std::to_string(index) + " lacks " + what + " or has it misshapen");
    };
    if (!L.attnNorm || !L.ffnNorm || !L.gate.data || !L.up.data || !L.down.data) return lacks("a norm or the feed-forward block");
    int projected = 0;
    for (const ProjectionRun& r : L.projections) projected += r.matrix.n;
    if (L.mixer == LayerMixer::Attention) {
        if (!L.q.data || !L.k.data || !L.v.data || !L.o.data || (L.qNorm == nullptr) != (L.kNorm == nullptr) ||
            L.q.n != s.queryRows() || L.k.n != s.kvHeads * s.headDim || L.v.n != L.k.n ||
            projected != s.queryRows() + 2 * L.k.n)
            return lacks("an attention tensor");
        return Status::ok();
    }
    if (!L.ssmQkv.data || !L.ssmZ.data || !L.ssmBeta.data || !L.ssmAlpha.data || !L.ssmOut.data || !L.conv ||
        !L.dtBias || !L.negExpA || !L.ssmNorm || L.ssmQkv.n != s.gdnChannels() || L.ssmZ.n != s.gdnValueWidth() ||
        L.ssmBeta.n != s.gdnValueHeads || L.ssmAlpha.n != s.gdnValueHeads || L.ssmOut.k != s.gdnValueWidth() ||
        projected != s.gdnChannels() + s.gdnValueWidth() + 2 * s.gdnValueHeads)
        return lacks("a Gated DeltaNet tensor");
    return Status::ok();
}

std::shared_ptr<const GemvTuning> DeviceWeights::gemvTuning() const {
    const std::lock_guard lock(m_tuningMutex);
    return m_tuning;
}

void DeviceWeights::keepGemvTuning(std::shared_ptr<const GemvTuning> tuning) const {
    const std::lock_guard lock(m_tuningMutex);
    m_tuning = std::move(tuning);
}

} // namespace hearth::cuda
