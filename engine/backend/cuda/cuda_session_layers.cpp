// A CUDA session's layers, for decode (one token, GEMVs, inside the step's graph) and prefill (a
// chunk of tokens, GEMMs): gated or plain attention over the KV cache, Qwen3.5's Gated DeltaNet
// over the recurrent state, and the SwiGLU block. Each reads the normed input its caller made; a
// decode block ends in residualGemv (its output, then the next norm adding it to x), a prefill
// block leaves its output in p_delta for the next norm's residual add.
#include "backend/cuda/cuda_session.h"

#include "backend/cuda/cuda_status.h"
#include "backend/cuda/gemv_tuning.h"
#include "backend/cuda/prefill_gemm.h"

namespace hearth::cuda {

kernels::QkvShape CudaSession::qkvShape() const {
    const ModelShape& s = m_w.shape();
    return {s.heads, s.kvHeads, s.headDim, s.ropeDims, s.ropeAdjacent, m_w.ropeInvFreq(), s.ropeMagnitude, s.rmsEps};
}

kernels::GdnShape CudaSession::gdnShape() const {
    const ModelShape& s = m_w.shape();
    return {s.gdnKeyHeads, s.gdnValueHeads, s.gdnKeyDim, s.gdnValueDim, s.gdnConvKernel, s.gdnTiled};
}

void* CudaSession::kCache(int kvLayer) const {
    const ModelShape& s = m_w.shape();
    const uint64_t perLayer = uint64_t(m_context) * s.kvHeads * s.headDim * kernels::kvTypeBytes(m_kvType);
    return m_kv + 2 * uint64_t(kvLayer) * perLayer;
}

void* CudaSession::vCache(int kvLayer) const {
    return static_cast<uint8_t*>(kCache(kvLayer)) +
           uint64_t(m_context) * m_w.shape().kvHeads * m_w.shape().headDim * kernels::kvTypeBytes(m_kvType);
}

kernels::NormOut CudaSession::normOut() const {
    return {m_w.anyTakesF32() ? d_xn : nullptr, nullptr, m_w.anyTakesX8() ? d_x8 : nullptr};
}

// y = W · (the decode's normed x): X8 or fp32, whichever the matrix reads.
Status CudaSession::gemv(const DeviceMatrix& m, float* y) const {
    if (m.isView()) return internalError("a GEMV was given a view of a stacked matrix");
    HEARTH_CUDA_CHECK(kernels::launchGemv(m.type, m.data, m.takesX8() ? d_x8 : static_cast<const void*>(d_xn), y,
                                          m.n, m.k, m_stream, gemvLaunch(m, false)));
    return Status::ok();
}

// One launch per run of stacked projections, or one for two runs of different types when the
// kernels pair them and that is faster (pairedProjections): Q4_K_M's Q6_K attn_v beside Q4_K
// q/k, and on half of Qwen3.5's layers its Q6_K DeltaNet qkv beside the Q4_K z, beta and alpha.
Status CudaSession::projectionsDecode(const DeviceLayer& l) const {
    const std::vector<ProjectionRun>& runs = l.projections;
    if (pairedProjections(l)) {
        const DeviceMatrix &a = runs[0].matrix, &b = runs[1].matrix;
        const kernels::GemvMatrix first{a.type, a.data, d_proj + runs[0].outRow, a.n, gemvLaunch(a, false).rowsPerBlock};
        const kernels::GemvMatrix second{b.type, b.data, d_proj + runs[1].outRow, b.n,
                                         gemvLaunch(b, false).rowsPerBlock};
        HEARTH_CUDA_CHECK(kernels::launchGemvPair(first, second, d_x8, a.k, m_stream, m_gemvLaunch.pdl));
        return Status::ok();
    }
    for (const ProjectionRun& run : runs) HEARTH_TRY(gemv(run.matrix, d_proj + run.outRow));
    return Status::ok();
}

// The norm fused into this GEMV and the ones after it was tried (docs/experiments/
// decode-fused-norm.patch); that measurement was spoiled by register pressure (docs/PERFORMANCE.md).
Status CudaSession::residualGemv(const DeviceMatrix& m, const void* inX8, const float* inF32, const float* nextNorm) {
    const ModelShape& s = m_w.shape();
    const void* in = m.takesX8() ? inX8 : static_cast<const void*>(inF32);
    HEARTH_CUDA_CHECK(kernels::launchGemv(m.type, m.data, in, d_delta, m.n, m.k, m_stream, gemvLaunch(m, false)));
    HEARTH_CUDA_CHECK(kernels::launchRmsNorm(d_x, d_delta, nextNorm, s.hidden, 1, s.rmsEps, normOut(), m_stream,
                                             m_gemvLaunch.pdl));
    return Status::ok();
}

// d_proj holds q (per head [query | gate] when gated) | k | v.
Status CudaSession::attentionDecode(const DeviceLayer& l, int kvLayer) {
    const ModelShape& s = m_w.shape();
    const kernels::QkvShape qkv = qkvShape();
    const float* k = d_proj + s.queryRows();
    const float* v = k + s.kvHeads * s.headDim;
    float* q = d_proj;
    if (s.gatedAttention) {
        q = d_qGated;
        HEARTH_CUDA_CHECK(kernels::launchGatedQkvToCache(d_proj, q, d_attnGate, k, v, l.qNorm, l.kNorm, qkv, 1,
                                                         d_tokenPos + 1, 0, m_kvType, kCache(kvLayer),
                                                         vCache(kvLayer), m_stream, m_gemvLaunch.pdl));
    } else {
        HEARTH_CUDA_CHECK(kernels::launchQkvToCache(q, k, v, l.qBias, l.kBias, l.vBias, l.qNorm, l.kNorm, qkv, 1,
                                                    d_tokenPos + 1, 0, m_kvType, kCache(kvLayer), vCache(kvLayer),
                                                    m_stream, m_gemvLaunch.pdl));
    }
    kernels::AttentionCall call{q,          kCache(kvLayer), vCache(kvLayer), d_attn,      s.heads,
                                s.kvHeads,  s.headDim,       1,               d_tokenPos + 1, 0,
                                m_decodeSplits, m_splitKeys, m_kvType,        d_partial,
                                m_gemvLaunch.pdl};
    // The output gate and o's X8 input come out of the attention's last kernel (no launch of their
    // own); heads whose size is not a multiple of 32 quantize in a kernel of their own.
    call.gate = s.gatedAttention ? d_attnGate : nullptr;
    const bool x8InCombine = l.o.takesX8() && s.headDim % 32 == 0;
    call.outX8 = x8InCombine ? d_x8 : nullptr;
    HEARTH_CUDA_CHECK(kernels::launchAttention(call, m_stream));
    if (l.o.takesX8() && !x8InCombine) HEARTH_CUDA_CHECK(kernels::launchQuantizeX8(d_attn, l.o.k, d_x8, m_stream));
    return residualGemv(l.o, d_x8, d_attn, l.ffnNorm);
}

// d_proj holds qkv | z | beta | alpha. The heads' normed outputs go to d_xn and, for a quantized
// ssm_out, straight to d_x8: ssm_out reads them as any GEMV reads its x.
Status CudaSession::deltaNetDecode(const DeviceLayer& l, int gdnLayer) {
    const kernels::GdnShape g = gdnShape();
    const float* z = d_proj + g.channels();
    const float* b = z + g.valueWidth();
    const kernels::GdnDecodeIo io{d_proj,
                                  z,
                                  b,
                                  b + g.valueHeads,
                                  m_state.history(gdnLayer),
                                  l.conv,
                                  l.dtBias,
                                  l.negExpA,
                                  m_state.matrices(gdnLayer),
                                  l.ssmNorm,
                                  d_xn,
                                  l.ssmOut.takesX8() ? d_x8 : nullptr,
                                  d_gdnScratch};
    HEARTH_CUDA_CHECK(kernels::launchGdnDecode(g, io, m_w.shape().rmsEps, m_stream, m_gemvLaunch.pdl));
    return residualGemv(l.ssmOut, d_x8, d_xn, l.ffnNorm);
}

Status CudaSession::ffnDecode(const DeviceLayer& l, const float* nextNorm) {
    const void* x = l.gate.takesX8() ? d_x8 : static_cast<const void*>(d_xn);
    if (l.gate.type == l.up.type) {
        HEARTH_CUDA_CHECK(kernels::launchGemvGateUp(l.gate.type, l.gate.data, l.up.data, x, d_act, l.gate.n, l.gate.k,
                                                    m_stream, gemvLaunch(l.gate, true)));
    } else {
        HEARTH_TRY(gemv(l.gate, d_gate));
        HEARTH_TRY(gemv(l.up, d_up));
        HEARTH_CUDA_CHECK(kernels::launchSiluMul(d_gate, d_up, size_t(l.gate.n), d_act, m_stream));
    }
    if (l.down.takesX8()) HEARTH_CUDA_CHECK(kernels::launchQuantizeX8(d_act, l.down.k, d_x8, m_stream));
    return residualGemv(l.down, d_x8, d_act, nextNorm);
}

Status CudaSession::attentionPrefill(const DeviceLayer& l, int kvLayer, const PrefillGemm& gemm, int count, int start) {
    const ModelShape& s = m_w.shape();
    const int hq = s.heads * s.headDim;
    const kernels::QkvShape qkv = qkvShape();
    HEARTH_TRY(gemm.run(l.q, p_xh, p_xn, count, p_q));
    HEARTH_TRY(gemm.run(l.k, p_xh, p_xn, count, p_k));
    HEARTH_TRY(gemm.run(l.v, p_xh, p_xn, count, p_v));
    float* q = p_q;
    if (s.gatedAttention) {
        q = p_qGated;
        HEARTH_CUDA_CHECK(kernels::launchGatedQkvToCache(p_q, q, p_attnGate, p_k, p_v, l.qNorm, l.kNorm, qkv, count,
                                                         nullptr, start, m_kvType, kCache(kvLayer), vCache(kvLayer),
                                                         m_stream));
    } else {
        HEARTH_CUDA_CHECK(kernels::launchQkvToCache(p_q, p_k, p_v, l.qBias, l.kBias, l.vBias, l.qNorm, l.kNorm, qkv,
                                                    count, nullptr, start, m_kvType, kCache(kvLayer), vCache(kvLayer),
                                                    m_stream));
    }
    kernels::AttentionCall call{q,       kCache(kvLayer), vCache(kvLayer), p_attn, s.heads,       s.kvHeads, s.headDim,
                                count,   nullptr,         start,           1,      start + count, m_kvType,  d_partial};
    HEARTH_CUDA_CHECK(kernels::launchAttention(call, m_stream));
    if (s.gatedAttention) HEARTH_CUDA_CHECK(kernels::launchSigmoidGate(p_attn, p_attnGate, size_t(count) * hq, m_stream));
    HEARTH_CUDA_CHECK(kernels::launchToHalf(p_attn, size_t(count) * hq, p_xh, m_stream));
    return gemm.run(l.o, p_xh, p_attn, count, p_delta);
}

// The projections as GEMMs, then the conv and gates over the chunk, the chunked recurrence and the
// gated norm, then ssm_out.
Status CudaSession::deltaNetPrefill(const DeviceLayer& l, int gdnLayer, const PrefillGemm& gemm, int count) {
    const kernels::GdnShape g = gdnShape();
    HEARTH_TRY(gemm.run(l.ssmQkv, p_xh, p_xn, count, p_gdnQkv));
    HEARTH_TRY(gemm.run(l.ssmZ, p_xh, p_xn, count, p_gdnZ));
    HEARTH_TRY(gemm.run(l.ssmBeta, p_xh, p_xn, count, p_gdnB));
    HEARTH_TRY(gemm.run(l.ssmAlpha, p_xh, p_xn, count, p_gdnA));
    HEARTH_CUDA_CHECK(kernels::launchGdnConv(g, count, p_gdnQkv, g.channels(), p_gdnB, g.valueHeads, p_gdnA,
                                             g.valueHeads, m_state.history(gdnLayer), l.conv, l.dtBias, l.negExpA,
                                             p_gdnConv, p_gdnGates, m_stream));
    HEARTH_CUDA_CHECK(
        kernels::launchGdnChunked(g, count, m_state.matrices(gdnLayer), p_gdnConv, p_gdnGates, p_gdnOut, m_stream));
    HEARTH_CUDA_CHECK(kernels::launchGdnGatedNorm(g, count, p_gdnOut, p_gdnZ, g.valueWidth(), l.ssmNorm,
                                                  m_w.shape().rmsEps, m_stream));
    HEARTH_CUDA_CHECK(kernels::launchToHalf(p_gdnOut, size_t(count) * g.valueWidth(), p_xh, m_stream));
    return gemm.run(l.ssmOut, p_xh, p_gdnOut, count, p_delta);
}

Status CudaSession::ffnPrefill(const DeviceLayer& l, const PrefillGemm& gemm, int count) {
    const int ffn = m_w.shape().ffn;
    HEARTH_TRY(gemm.run(l.gate, p_xh, p_xn, count, p_gate));
    HEARTH_TRY(gemm.run(l.up, p_xh, p_xn, count, p_up));
    HEARTH_CUDA_CHECK(kernels::launchSiluMul(p_gate, p_up, size_t(count) * ffn, p_gate, m_stream));
    HEARTH_CUDA_CHECK(kernels::launchToHalf(p_gate, size_t(count) * ffn, p_xh, m_stream));
    return gemm.run(l.down, p_xh, p_gate, count, p_delta);
}

} // namespace hearth::cuda
