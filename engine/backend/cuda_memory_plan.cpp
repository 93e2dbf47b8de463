#include "backend/cuda_memory_plan.h"

#include <algorithm>

#include "backend/cuda_module_abi.h"

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
    const uint64_t widest = std::max({uint64_t(s.hidden), hq, uint64_t(s.ffn)});
    const uint64_t c = uint64_t(p.chunk), f = sizeof(float), i = sizeof(int32_t), h = 2; // fp16
    auto sum = [](std::initializer_list<uint64_t> pieces) {
        uint64_t total = 0;
        for (uint64_t bytes : pieces) total += cudaAligned(bytes);
        return total;
    };
    p.kvCacheBytes = 2ull * uint64_t(s.layers) * uint64_t(context) * kvW * kvElementBytes;
    p.blasWorkspaceBytes = cudaAligned(kCudaBlasWorkspaceBytes);
    // token+position, sampled id, x, delta, normed x, X8 x, q|k|v (one piece), attention out, act,
    // gate, up, logits
    p.decodeBytes = sum({2 * i, i, s.hidden * f, s.hidden * f, widest * f, x8Bytes(int64_t(widest)),
                         (hq + 2 * kvW) * f, hq * f, s.ffn * f, s.ffn * f, s.ffn * f, s.vocab * f});
    p.partialBytes = cudaAligned(std::max(attentionPartialBytes(1, s.heads, s.headDim, p.decodeSplits),
                                          attentionPartialBytes(p.chunk, s.heads, s.headDim, 1)));
    // penalised logits, sorted logits, sorted ids, penalty ids, the sort's scratch
    p.samplingBytes = sum({s.vocab * f, s.vocab * f, s.vocab * i, HEARTH_CUDA_MAX_PENALTY_IDS * i, sortScratchBytes});
    // tokens, x, delta, normed x (fp32 and fp16), q, k, v, attention out, gate, up, LM-head rows
    p.prefillBytes = sum({c * i, c * s.hidden * f, c * s.hidden * f, c * widest * f, c * widest * h, c * hq * f,
                          c * kvW * f, c * kvW * f, c * hq * f, c * s.ffn * f, c * s.ffn * f,
                          uint64_t(p.logitRows) * s.vocab * f});
    p.tileBytes = cudaAligned(tileElements * h);
    return p;
}

uint64_t cudaWeightArenaBytes(const std::vector<uint64_t>& tensorBytes, int32_t ropeDims) {
    uint64_t total = 0;
    for (uint64_t bytes : tensorBytes) total += cudaAligned(bytes);
    return total + cudaAligned(uint64_t(std::max(1, ropeDims / 2)) * sizeof(float));
}

} // namespace hearth
