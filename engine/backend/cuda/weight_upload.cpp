#include "backend/cuda/weight_upload.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstring>

#include "backend/cuda/cuda_status.h"
#include "backend/cuda/weight_quantize.h"

namespace hearth::cuda {
namespace {

constexpr size_t kStagingBytes = 64ull << 20; // per pinned buffer; two alternate

const char* roleName(int role) {
    switch (role) {
    case HEARTH_CUDA_TOKEN_EMBD: return "token_embd";
    case HEARTH_CUDA_OUTPUT: return "output";
    case HEARTH_CUDA_OUTPUT_NORM: return "output_norm";
    case HEARTH_CUDA_ATTN_NORM: return "attn_norm";
    case HEARTH_CUDA_ATTN_Q: return "attn_q";
    case HEARTH_CUDA_ATTN_K: return "attn_k";
    case HEARTH_CUDA_ATTN_V: return "attn_v";
    case HEARTH_CUDA_ATTN_O: return "attn_output";
    case HEARTH_CUDA_ATTN_Q_BIAS: return "attn_q.bias";
    case HEARTH_CUDA_ATTN_K_BIAS: return "attn_k.bias";
    case HEARTH_CUDA_ATTN_V_BIAS: return "attn_v.bias";
    case HEARTH_CUDA_ATTN_Q_NORM: return "attn_q_norm";
    case HEARTH_CUDA_ATTN_K_NORM: return "attn_k_norm";
    case HEARTH_CUDA_FFN_NORM: return "ffn_norm";
    case HEARTH_CUDA_FFN_GATE: return "ffn_gate";
    case HEARTH_CUDA_FFN_UP: return "ffn_up";
    case HEARTH_CUDA_FFN_DOWN: return "ffn_down";
    case HEARTH_CUDA_SSM_QKV: return "attn_qkv";
    case HEARTH_CUDA_SSM_Z: return "attn_gate";
    case HEARTH_CUDA_SSM_BETA: return "ssm_beta";
    case HEARTH_CUDA_SSM_ALPHA: return "ssm_alpha";
    case HEARTH_CUDA_SSM_OUT: return "ssm_out";
    case HEARTH_CUDA_SSM_CONV: return "ssm_conv1d";
    case HEARTH_CUDA_SSM_DT_BIAS: return "ssm_dt.bias";
    case HEARTH_CUDA_SSM_A: return "ssm_a";
    case HEARTH_CUDA_SSM_NORM: return "ssm_norm";
    default: return "tensor";
    }
}

} // namespace

std::string describeTensor(const HearthCudaTensor& t) {
    return t.layer >= 0 ? "layer " + std::to_string(t.layer) + " " + roleName(t.role) : std::string(roleName(t.role));
}

Result<std::unique_ptr<WeightUploader>> WeightUploader::create(const Plan& plan, const HearthCudaModelDesc& desc) {
    std::unique_ptr<WeightUploader> u(new WeightUploader());
    u->m_desc = &desc;
    u->m_plan = plan;
    HEARTH_CUDA_CHECK(cudaStreamCreateWithFlags(&u->m_stream, cudaStreamNonBlocking));
    for (int i = 0; i < 2; ++i) {
        HEARTH_CUDA_CHECK(cudaHostAlloc(&u->m_staging[i], kStagingBytes, cudaHostAllocDefault));
        HEARTH_CUDA_CHECK(cudaEventCreateWithFlags(&u->m_copied[i], cudaEventDisableTiming));
    }
    auto scratch = [](void** p, uint64_t bytes, const char* what) -> Status {
        if (cudaMalloc(p, bytes) == cudaSuccess) return Status::ok();
        cudaGetLastError();
        *p = nullptr;
        return outOfMemory(std::string(what) + " needs " + std::to_string(bytes >> 20) +
                           " MiB of GPU memory beyond the weights");
    };
    if (plan.repackBytes) HEARTH_TRY(scratch(&u->m_repack, plan.repackBytes, "repacking the weights"));
    if (plan.convertedTensors > 0) {
        for (int i = 0; i < 2; ++i) HEARTH_TRY(scratch(&u->m_source[i], kStagingBytes, "quantizing on the GPU"));
        const uint64_t flagBytes = uint64_t(plan.convertedTensors) * sizeof(unsigned long long);
        HEARTH_TRY(scratch(reinterpret_cast<void**>(&u->m_badRows), flagBytes, "quantizing on the GPU"));
        HEARTH_CUDA_CHECK(cudaMemsetAsync(u->m_badRows, 0xff, flagBytes, u->m_stream)); // ULLONG_MAX: none
    }
    return u;
}

WeightUploader::~WeightUploader() {
    if (m_stream) cudaStreamSynchronize(m_stream);
    for (int i = 0; i < 2; ++i) {
        if (m_copied[i]) cudaEventDestroy(m_copied[i]);
        if (m_staging[i]) cudaFreeHost(m_staging[i]);
        if (m_source[i]) cudaFree(m_source[i]);
    }
    if (m_repack) cudaFree(m_repack);
    if (m_badRows) cudaFree(m_badRows);
    if (m_stream) cudaStreamDestroy(m_stream);
}

Status WeightUploader::stage(const uint8_t* src, uint64_t bytes, void* deviceDst) {
    const int b = int(m_chunk++ & 1);
    HEARTH_CUDA_CHECK(cudaEventSynchronize(m_copied[b])); // the GPU has finished reading buffer b
    std::memcpy(m_staging[b], src, size_t(bytes));
    HEARTH_CUDA_CHECK(cudaMemcpyAsync(deviceDst, m_staging[b], size_t(bytes), cudaMemcpyHostToDevice, m_stream));
    HEARTH_CUDA_CHECK(cudaEventRecord(m_copied[b], m_stream));
    m_done += bytes;
    const double fraction = double(m_done) / double(std::max<uint64_t>(m_plan.sourceBytes, 1));
    if (m_desc->progress && m_desc->progress(m_desc->progressUser, float(std::min(fraction, 1.0))))
        return cancelled("loading was cancelled");
    return Status::ok();
}

Status WeightUploader::copy(void* dst, const void* src, uint64_t bytes) {
    auto* out = static_cast<uint8_t*>(dst);
    const auto* in = static_cast<const uint8_t*>(src);
    for (uint64_t at = 0; at < bytes; at += kStagingBytes)
        HEARTH_TRY(stage(in + at, std::min<uint64_t>(kStagingBytes, bytes - at), out + at));
    return Status::ok();
}

Status WeightUploader::upload(const HearthCudaTensor& t, bool isMatrix, kernels::GemvType type, void* dst) {
    const bool repack = isMatrix && kernels::gemvNeedsRepack(type);
    void* target = repack ? m_repack : dst;
    if (t.deviceType != t.type) {
        HEARTH_TRY(convert(t, target));
    } else {
        HEARTH_TRY(copy(target, t.data, t.rowBytes * uint64_t(t.rows)));
    }
    if (repack) HEARTH_CUDA_CHECK(kernels::launchGemvRepack(type, m_repack, dst, int(t.rows), int(t.cols), m_stream));
    return Status::ok();
}

Status WeightUploader::uploadStacked(const std::vector<const HearthCudaTensor*>& parts, kernels::GemvType type,
                                     void* dst) {
    uint64_t at = 0;
    int64_t rows = 0;
    for (const HearthCudaTensor* t : parts) {
        void* target = static_cast<uint8_t*>(m_repack) + at;
        if (t->deviceType != t->type) {
            HEARTH_TRY(convert(*t, target));
        } else {
            HEARTH_TRY(copy(target, t->data, t->rowBytes * uint64_t(t->rows)));
        }
        at += t->deviceRowBytes * uint64_t(t->rows);
        rows += t->rows;
    }
    HEARTH_CUDA_CHECK(kernels::launchGemvRepack(type, m_repack, dst, int(rows), int(parts.front()->cols), m_stream));
    return Status::ok();
}

// Slices of whole rows go up through staging into a device source buffer, and are quantized from
// there straight into their place: no full-size copy of the 16-bit source ever sits on the GPU.
Status WeightUploader::convert(const HearthCudaTensor& t, void* dst) {
    if (t.rowBytes > kStagingBytes) return unsupported(describeTensor(t) + ": a row is too long to convert on the GPU");
    const int slot = int(m_converted.size());
    if (slot >= m_plan.convertedTensors) return internalError("more tensors to convert than planned");
    m_converted.push_back(&t);
    const int64_t sliceRows = int64_t(kStagingBytes / t.rowBytes);
    const auto* src = static_cast<const uint8_t*>(t.data);
    auto* out = static_cast<uint8_t*>(dst);
    for (int64_t r0 = 0; r0 < t.rows; r0 += sliceRows) {
        const int64_t rows = std::min(sliceRows, t.rows - r0);
        void* source = m_source[m_chunk & 1]; // stage() alternates the same way
        HEARTH_TRY(stage(src + uint64_t(r0) * t.rowBytes, uint64_t(rows) * t.rowBytes, source));
        HEARTH_CUDA_CHECK(launchQuantizeRows(t.type, source, t.rowBytes, t.deviceType, out + uint64_t(r0) * t.deviceRowBytes,
                                             t.deviceRowBytes, rows, t.cols, r0, m_badRows + slot, m_stream));
    }
    return Status::ok();
}

Status WeightUploader::finish() {
    HEARTH_CUDA_CHECK(cudaStreamSynchronize(m_stream));
    if (m_converted.empty()) return Status::ok();
    std::vector<unsigned long long> bad(m_converted.size());
    HEARTH_CUDA_CHECK(cudaMemcpy(bad.data(), m_badRows, bad.size() * sizeof bad[0], cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < bad.size(); ++i)
        if (bad[i] != ULLONG_MAX)
            return dataLoss(describeTensor(*m_converted[i]) + ": row " + std::to_string(bad[i]) +
                            " holds a NaN or infinite value; it cannot be quantized");
    return Status::ok();
}

} // namespace hearth::cuda
