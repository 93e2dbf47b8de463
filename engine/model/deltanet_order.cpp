#include "model/deltanet_order.h"

#include <cstring>
#include <memory>

namespace hearth {
namespace {

using Bytes = std::vector<uint8_t>;

// Copies `m`, moving the `heads` blocks of `rowsPerHead` rows that start at `firstRow` from
// grouped to tiled order. Whole rows move, so any row type works.
std::shared_ptr<Bytes> permutedRows(const WeightMatrix& m, const DeltaNetDims& d, int64_t firstRow, int64_t rowsPerHead) {
    auto out = std::make_shared<Bytes>(m.data, m.data + m.bytes());
    const uint64_t block = uint64_t(rowsPerHead) * m.rowBytes;
    for (int32_t h = 0; h < d.valueHeads; ++h)
        std::memcpy(out->data() + (uint64_t(firstRow) * m.rowBytes + uint64_t(tiledHeadOf(d, h)) * block),
                    m.data + (uint64_t(firstRow) * m.rowBytes + uint64_t(h) * block), block);
    return out;
}

// The same for a float vector of heads of `perHead` values starting at `first`.
void permuteFloats(std::vector<float>& v, const DeltaNetDims& d, int64_t first, int64_t perHead) {
    const std::vector<float> old = v;
    for (int32_t h = 0; h < d.valueHeads; ++h)
        std::memcpy(v.data() + first + int64_t(tiledHeadOf(d, h)) * perHead, old.data() + first + int64_t(h) * perHead,
                    size_t(perHead) * sizeof(float));
}

// The value-head columns of `out` ([hidden, valueWidth]): each row's blocks of valueDim elements.
Result<std::shared_ptr<Bytes>> permutedColumns(const WeightMatrix& m, const DeltaNetDims& d, const std::string& where) {
    const uint64_t element = m.type == DType::F32 ? 4 : (m.type == DType::F16 || m.type == DType::BF16) ? 2 : 0;
    if (element == 0)
        return failedPrecondition(where + ": tensor " + m.name + " is " + dtypeName(m.type) +
                                  "; its value-head columns can be reordered only in F32, F16 or BF16");
    auto out = std::make_shared<Bytes>(m.bytes());
    const uint64_t block = uint64_t(d.valueDim) * element;
    for (int64_t r = 0; r < m.rows; ++r)
        for (int32_t h = 0; h < d.valueHeads; ++h)
            std::memcpy(out->data() + uint64_t(r) * m.rowBytes + uint64_t(tiledHeadOf(d, h)) * block,
                        m.row(r) + uint64_t(h) * block, block);
    return out;
}

} // namespace

int32_t tiledHeadOf(const DeltaNetDims& d, int32_t groupedHead) {
    const int32_t perKey = d.valueHeads / d.keyHeads;
    return (groupedHead % perKey) * d.keyHeads + groupedHead / perKey;
}

Status reorderValueHeadsToTiled(ModelConfig& c, ModelWeights& w, const std::string& where) {
    const DeltaNetDims& d = c.deltaNet;
    if (d.order == ValueHeadOrder::Tiled || c.deltaNetLayerCount() == 0) {
        c.deltaNet.order = ValueHeadOrder::Tiled;
        return Status::ok();
    }
    std::vector<std::pair<WeightMatrix*, std::shared_ptr<Bytes>>> moved; // applied when all succeed
    for (LayerWeights& l : w.layers) {
        if (l.mixer != Mixer::GatedDeltaNet) continue;
        DeltaNetWeights& n = l.deltaNet;
        HEARTH_ASSIGN(auto out, permutedColumns(n.out, d, where));
        moved.emplace_back(&n.out, std::move(out));
        moved.emplace_back(&n.qkv, permutedRows(n.qkv, d, 2 * d.keyWidth(), d.valueDim));
        moved.emplace_back(&n.gate, permutedRows(n.gate, d, 0, d.valueDim));
        moved.emplace_back(&n.beta, permutedRows(n.beta, d, 0, 1));
        moved.emplace_back(&n.alpha, permutedRows(n.alpha, d, 0, 1));
    }
    for (auto& [matrix, bytes] : moved) {
        matrix->data = bytes->data();
        w.storage.push_back(std::move(bytes));
    }
    for (LayerWeights& l : w.layers) {
        if (l.mixer != Mixer::GatedDeltaNet) continue;
        DeltaNetWeights& n = l.deltaNet;
        permuteFloats(n.conv, d, 2 * d.keyWidth() * d.convKernel, int64_t(d.valueDim) * d.convKernel);
        permuteFloats(n.dtBias, d, 0, 1);
        permuteFloats(n.negExpA, d, 0, 1);
    }
    c.deltaNet.order = ValueHeadOrder::Tiled;
    return Status::ok();
}

} // namespace hearth
