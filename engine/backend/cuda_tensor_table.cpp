#include "backend/cuda_tensor_table.h"

namespace hearth {
namespace {

struct TableBuilder {
    std::vector<CudaTableEntry> entries;
    void matrix(int32_t role, int32_t layer, const WeightMatrix& m) { entries.push_back({role, layer, &m, nullptr}); }
    void vector(int32_t role, int32_t layer, const std::vector<float>& v) {
        if (!v.empty()) entries.push_back({role, layer, nullptr, &v});
    }
    // A layer's input projections, in output order: each one of the previous one's type and
    // width joins its run.
    void projections(int32_t layer, std::initializer_list<std::pair<int32_t, const WeightMatrix*>> parts) {
        const WeightMatrix* previous = nullptr;
        for (const auto& [role, m] : parts) {
            matrix(role, layer, *m);
            entries.back().stacked = previous && previous->type == m->type && previous->cols == m->cols;
            previous = m;
        }
    }
};

} // namespace

uint64_t CudaTableEntry::deviceBytes() const {
    return matrix ? matrix->bytes() : uint64_t(vector->size()) * sizeof(float);
}

std::vector<CudaTableEntry> cudaTensorTable(const ModelConfig& c, const ModelWeights& w) {
    TableBuilder t;
    t.matrix(HEARTH_CUDA_TOKEN_EMBD, -1, w.tokenEmbedding);
    if (!c.tiedEmbeddings) t.matrix(HEARTH_CUDA_OUTPUT, -1, w.output);
    t.vector(HEARTH_CUDA_OUTPUT_NORM, -1, w.outputNorm);
    for (size_t i = 0; i < w.layers.size(); ++i) {
        const int32_t l = int32_t(i);
        const LayerWeights& layer = w.layers[i];
        if (layer.mixer == Mixer::GatedDeltaNet) {
            const DeltaNetWeights& d = layer.deltaNet;
            t.vector(HEARTH_CUDA_ATTN_NORM, l, d.norm);
            t.projections(l, {{HEARTH_CUDA_SSM_QKV, &d.qkv},
                              {HEARTH_CUDA_SSM_Z, &d.gate},
                              {HEARTH_CUDA_SSM_BETA, &d.beta},
                              {HEARTH_CUDA_SSM_ALPHA, &d.alpha}});
            t.matrix(HEARTH_CUDA_SSM_OUT, l, d.out);
            t.vector(HEARTH_CUDA_SSM_CONV, l, d.conv);
            t.vector(HEARTH_CUDA_SSM_DT_BIAS, l, d.dtBias);
            t.vector(HEARTH_CUDA_SSM_A, l, d.negExpA);
            t.vector(HEARTH_CUDA_SSM_NORM, l, d.outNorm);
        } else {
            const AttentionWeights& a = layer.attention;
            t.vector(HEARTH_CUDA_ATTN_NORM, l, a.norm);
            t.projections(l, {{HEARTH_CUDA_ATTN_Q, &a.q}, {HEARTH_CUDA_ATTN_K, &a.k}, {HEARTH_CUDA_ATTN_V, &a.v}});
            t.matrix(HEARTH_CUDA_ATTN_O, l, a.o);
            t.vector(HEARTH_CUDA_ATTN_Q_BIAS, l, a.qBias);
            t.vector(HEARTH_CUDA_ATTN_K_BIAS, l, a.kBias);
            t.vector(HEARTH_CUDA_ATTN_V_BIAS, l, a.vBias);
            t.vector(HEARTH_CUDA_ATTN_Q_NORM, l, a.qNorm);
            t.vector(HEARTH_CUDA_ATTN_K_NORM, l, a.kNorm);
        }
        const FfnWeights& f = layer.ffn;
        t.vector(HEARTH_CUDA_FFN_NORM, l, f.norm);
        t.matrix(HEARTH_CUDA_FFN_GATE, l, f.gate);
        t.matrix(HEARTH_CUDA_FFN_UP, l, f.up);
        t.matrix(HEARTH_CUDA_FFN_DOWN, l, f.down);
    }
    return t.entries;
}

std::vector<uint64_t> cudaArenaPieces(const std::vector<CudaTableEntry>& table) {
    std::vector<uint64_t> pieces;
    for (const CudaTableEntry& e : table) {
        if (e.stacked && !pieces.empty()) pieces.back() += e.deviceBytes();
        else pieces.push_back(e.deviceBytes());
    }
    return pieces;
}

} // namespace hearth
