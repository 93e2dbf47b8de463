// Binding a Gated DeltaNet layer (Qwen3.5) from GGUF or Hugging Face names, with shape checks
// that name the tensor and the sizes the config implies.
#include <cmath>

#include "model/tensor_names.h"
#include "model/weights_binding.h"
#include "quant/dequantize.h"

namespace hearth {
namespace {

// The depthwise conv kernel: HF stores [channels, 1, kernel], GGUF ne [kernel, channels]; both are
// channels rows of `kernel` values. Bound without ScaleCheck::Skip's tables, which hold no data.
Result<std::vector<float>> bindConv(const DeltaNetDims& d, const TensorSource& source, const std::string& name,
                                    ScaleCheck scales) {
    const SourceTensor* t = source.find(name);
    if (!t) return notFound(source.fileName + ": missing tensor " + source.fileSpelling(name));
    const int64_t channels = d.convChannels();
    if (t->cols != d.convKernel || t->rows != channels || t->dimCount < 2 || t->dimCount > 3)
        return dataLoss(source.fileName + ": tensor " + source.fileSpelling(name) + " has shape " + t->shapeText +
                        ", expected " + (source.ggmlOrder ? "[" + std::to_string(d.convKernel) + "," + std::to_string(channels) + "]"
                                                          : "[" + std::to_string(channels) + ",1," + std::to_string(d.convKernel) + "]") +
                        " (" + std::to_string(channels) + " channels = 2 x " + std::to_string(d.keyWidth()) +
                        " query/key + " + std::to_string(d.valueWidth()) + " value)");
    if (t->type != DType::F32 && t->type != DType::F16 && t->type != DType::BF16)
        return unsupported(source.fileName + ": tensor " + source.fileSpelling(name) + " has type " + dtypeName(t->type) +
                           " (the conv kernel must be F32, F16 or BF16)");
    std::vector<float> out(size_t(channels * d.convKernel), 0.0f);
    if (scales == ScaleCheck::Validate) dequantizeRow(t->type, t->data, out.data(), int64_t(out.size()));
    return out;
}

} // namespace

Result<DeltaNetWeights> bindDeltaNet(const ModelConfig& c, const TensorSource& source, ModelFormat format,
                                     ScaleCheck scales, int layer) {
    const DeltaNetDims& d = c.deltaNet;
    auto name = [&](TensorRole role) { return tensorName(role, format, layer); };
    auto matrix = [&](TensorRole role, int64_t rows, int64_t cols) {
        return bindMatrix(scales, source, name(role), tensorName(role, ModelFormat::Gguf, layer), rows, cols);
    };
    DeltaNetWeights w;
    HEARTH_ASSIGN(w.norm, source.vector(name(TensorRole::AttnNorm), c.hidden));
    HEARTH_ASSIGN(w.qkv, matrix(TensorRole::DeltaQkv, d.convChannels(), c.hidden));
    HEARTH_ASSIGN(w.gate, matrix(TensorRole::DeltaGate, d.valueWidth(), c.hidden));
    HEARTH_ASSIGN(w.beta, matrix(TensorRole::DeltaBeta, d.valueHeads, c.hidden));
    HEARTH_ASSIGN(w.alpha, matrix(TensorRole::DeltaAlpha, d.valueHeads, c.hidden));
    HEARTH_ASSIGN(w.out, matrix(TensorRole::DeltaOut, c.hidden, d.valueWidth()));
    HEARTH_ASSIGN(w.conv, bindConv(d, source, name(TensorRole::DeltaConv), scales));
    HEARTH_ASSIGN(w.dtBias, source.vector(name(TensorRole::DeltaDtBias), d.valueHeads));
    HEARTH_ASSIGN(w.negExpA, source.vector(name(TensorRole::DeltaA), d.valueHeads));
    if (format == ModelFormat::HuggingFace) // A_log; GGUF already stores -exp(A_log)
        for (float& a : w.negExpA) a = -std::exp(a);
    HEARTH_ASSIGN(w.outNorm, source.vector(name(TensorRole::DeltaNorm), d.valueDim));
    return w;
}

} // namespace hearth
