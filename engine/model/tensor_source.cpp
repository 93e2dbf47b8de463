#include "model/tensor_source.h"

#include "quant/dequantize.h"

namespace hearth {

std::string TensorSource::fileSpelling(const std::string& name) const {
    if (modelPrefix.empty() || name.rfind("model.", 0) != 0) return name;
    return modelPrefix + name.substr(6);
}

const SourceTensor* TensorSource::find(const std::string& name) const {
    auto it = tensors.find(name);
    return it == tensors.end() ? nullptr : &it->second;
}

std::string TensorSource::shapeText(int64_t rows, int64_t cols) const {
    return ggmlOrder ? "[" + std::to_string(cols) + "," + std::to_string(rows) + "]"
                     : "[" + std::to_string(rows) + "," + std::to_string(cols) + "]";
}

Result<const SourceTensor*> TensorSource::matrix(const std::string& name, int64_t rows,
                                                 int64_t cols) const {
    const SourceTensor* t = find(name);
    if (!t) return notFound(fileName + ": missing tensor " + fileSpelling(name));
    if (!isComputeSupported(t->type))
        return unsupported(fileName + ": tensor " + fileSpelling(name) + " has type " + dtypeName(t->type) +
                           ", which Hearth does not support");
    if (t->dimCount != 2 || t->rows != rows || t->cols != cols)
        return dataLoss(fileName + ": tensor " + fileSpelling(name) + " has shape " + t->shapeText +
                        ", expected " + shapeText(rows, cols));
    return t;
}

Result<std::vector<float>> TensorSource::vector(const std::string& name, int64_t length) const {
    const SourceTensor* t = find(name);
    if (!t) return notFound(fileName + ": missing tensor " + fileSpelling(name));
    if (!isComputeSupported(t->type))
        return unsupported(fileName + ": tensor " + fileSpelling(name) + " has type " + dtypeName(t->type) +
                           ", which Hearth does not support");
    if (t->rows * t->cols != length || t->dimCount > 2 || (t->dimCount == 2 && t->rows != 1))
        return dataLoss(fileName + ": tensor " + fileSpelling(name) + " has shape " + t->shapeText +
                        ", expected [" + std::to_string(length) + "]");
    std::vector<float> out(length);
    dequantizeRow(t->type, t->data, out.data(), length);
    return out;
}

uint64_t TensorSource::parameterCount() const {
    uint64_t total = 0;
    for (const auto& [name, t] : tensors) total += uint64_t(t.rows) * uint64_t(t.cols);
    return total;
}

std::map<std::string, int> TensorSource::typeCounts() const {
    std::map<std::string, int> counts;
    for (const auto& [name, t] : tensors) counts[dtypeName(t.type)]++;
    return counts;
}

} // namespace hearth
