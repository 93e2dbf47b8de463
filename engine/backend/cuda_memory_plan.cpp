#include "backend/cuda_memory_plan.h"

#include <algorithm>

#include "backend/cuda_module_abi.h"
#include "hearth_kernels/shape_limits.h"

namespace hearth {
namespace {

// The kernels' own size rules (kernels/include/hearth_kernels): the X8 activation layout, 96
// bytes per 64 values (gemvX8Bytes), and attention's partials, headDim + 2 floats per query
// head and split (attentionPartialBytes). Restated here because those headers need CUDA.
uint64_t x8Bytes(int64_t k) { return uint64_t((k + 63) >> 6) * 96; }
uint64_t attentionPartialBytes(int64_t tokens, int64_t heads, int64_t headDim, int64_t splits) {
    return uint64_t(tokens) * uint64_t(heads) * uint64_t(splits) * uint64_t(headDim + 2) * sizeof(float);
}

} // namespace

int64_t CudaModelShape::projectionRows() const {
    const int64_t attention = layers > 0 ? (gatedAttention ? 2 : 1) * heads * headDim + 2 * kvHeads * headDim : 0;
    const int64_t gdn = gdnLayers > 0 ? gdnChannels() + gdnValueWidth() + 2 * gdnValueHeads : 0;
    return std::max(attention, gdn);
}

int64_t CudaModelShape::widestInput() const {
    return std::max({hidden, heads * headDim, ffn, gdnLayers > 0 ? gdnValueWidth() : 0});
}

uint64_t CudaModelShape::gdnLayerStateBytes() const {
    return (uint64_t(gdnValueHeads * gdnKeyDim * gdnValueDim) + uint64_t((gdnConvKernel - 1) * gdnChannels())) *
           sizeof(float);
}

uint64_t cudaPrefillTileElements(const std::vector<CudaMatrixShape>& matrices) {
    uint64_t widest = 0, largest = 0;
    for (const CudaMatrixShape& m : matrices) {
        widest = std::max(widest, uint64_t(m.k));
        largest = std::max(largest, uint64_t(m.n) * uint64_t(m.k));
    }
    return std::max(widest, std::min(largest, kCudaPrefillTileTarget));
}

uint64_t cudaSortScratchEstimate(int64_t vocab) {
    return cudaAligned(uint64_t(vocab) * sizeof(int32_t)) + cudaAligned(2 * uint64_t(vocab) * 8 + (1ull << 20));
}

CudaSessionPlan planCudaSession(const CudaModelShape& s, uint64_t tileElements, int32_t context, int32_t prefillChunk,
                                uint32_t kvElementBytes, uint64_t sortScratchBytes) {
    CudaSessionPlan p;
    if (context <= 0 || prefillChunk <= 0) return p;
    p.context = context;
    p.chunk = std::min(prefillChunk, context);
    p.splitKeys = std::max(64, (context + 127) / 128 + 63) / 64 * 64;
    p.decodeSplits = (context + p.splitKeys - 1) / p.splitKeys;
    p.logitRows = std::min(p.chunk, kCudaLogitRowsPerPass);
    p.tileElements = tileElements;

    const uint64_t hq = uint64_t(s.heads * s.headDim), kvW = uint64_t(s.kvHeads * s.headDim);
    const uint64_t widest = uint64_t(s.widestInput()), proj = uint64_t(s.projectionRows());
    const uint64_t gatedHq = s.gatedAttention ? hq : 0;
    const uint64_t c = uint64_t(p.chunk), f = sizeof(float), i = sizeof(int32_t), h = 2; // fp16
    auto sum = [](std::initializer_list<uint64_t> pieces) {
        uint64_t total = 0;
        for (uint64_t bytes : pieces) total += cudaAligned(bytes);
        return total;
    };
    p.kvCacheBytes = 2ull * uint64_t(s.layers) * uint64_t(context) * kvW * kvElementBytes;
    p.recurrentStateBytes = uint64_t(s.gdnLayers) * cudaAligned(s.gdnLayerStateBytes());
    p.blasWorkspaceBytes = cudaAligned(kCudaBlasWorkspaceBytes);
    // token+position, sampled id, x, delta, normed x, X8 x, the projections (one piece), the
    // gated query and its gate, attention out, act, gate, up, logits
    p.decodeBytes = sum({2 * i, i, s.hidden * f, s.hidden * f, widest * f, x8Bytes(int64_t(widest)), proj * f,
                         gatedHq * f, gatedHq * f, hq * f, s.ffn * f, s.ffn * f, s.ffn * f, s.vocab * f});
    p.partialBytes = cudaAligned(std::max(attentionPartialBytes(1, s.heads, s.headDim, p.decodeSplits),
                                          attentionPartialBytes(p.chunk, s.heads, s.headDim, 1)));
    // penalised logits, sorted logits, sorted ids, penalty ids, the sort's scratch
    p.samplingBytes = sum({s.vocab * f, s.vocab * f, s.vocab * i, HEARTH_CUDA_MAX_PENALTY_IDS * i, sortScratchBytes});
    // tokens, x, delta, normed x (fp32 and fp16), q (| gate), k, v, the gated query and its gate,
    // attention out, gate, up, LM-head rows
    const uint64_t qRows = (s.gatedAttention ? 2 : 1) * hq;
    p.prefillBytes = sum({c * i, c * s.hidden * f, c * s.hidden * f, c * widest * f, c * widest * h, c * qRows * f,
                          c * kvW * f, c * kvW * f, c * gatedHq * f, c * gatedHq * f, c * hq * f, c * s.ffn * f,
                          c * s.ffn * f, uint64_t(p.logitRows) * s.vocab * f});
    if (s.gdnLayers > 0) {
        const uint64_t channels = uint64_t(s.gdnChannels()), vw = uint64_t(s.gdnValueWidth()),
                       vh = uint64_t(s.gdnValueHeads);
        p.gdnDecodeBytes = sum({kernels::gdnDecodeScratchBytes(s.gdnKeyHeads, s.gdnValueHeads)});
        // qkv, z, b, a, conv output, gates, outputs
        p.gdnPrefillBytes = sum({c * channels * f, c * vw * f, c * vh * f, c * vh * f, c * channels * f,
                                 c * 2 * vh * f, c * vw * f});
    }
    p.tileBytes = cudaAligned(tileElements * h);
    return p;
}

std::string cudaUnsupportedReason(const CudaModelShape& s) {
    if (s.layers > 0 && !kernels::attentionSupports(s.heads, s.kvHeads, s.headDim))
        return "attention heads of " + std::to_string(s.headDim) + " values, " + std::to_string(s.heads) + " query / " +
               std::to_string(s.kvHeads) + " KV heads";
    if (s.gdnLayers > 0 &&
        !kernels::gdnSupports(s.gdnKeyHeads, s.gdnValueHeads, s.gdnKeyDim, s.gdnValueDim, s.gdnConvKernel))
        return "Gated DeltaNet heads of " + std::to_string(s.gdnKeyDim) + " (key) and " +
               std::to_string(s.gdnValueDim) + " (value) values, conv of " + std::to_string(s.gdnConvKernel);
    return {};
}

uint64_t cudaWeightArenaBytes(const std::vector<uint64_t>& tensorBytes, int32_t ropeDims) {
    uint64_t total = 0;
    for (uint64_t bytes : tensorBytes) total += cudaAligned(bytes);
    return total + cudaAligned(uint64_t(std::max(1, ropeDims / 2)) * sizeof(float));
}

} // namespace hearth
