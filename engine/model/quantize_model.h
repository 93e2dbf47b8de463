// Applying a quant preset to a loaded model: every matrix gets the type the preset's planner
// chooses (llama.cpp's rules and row fallbacks) and is converted into buffers the weights own.
// Used at load time (`run --quant`) and by `hearth-cli quantize` before writing a GGUF.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "hearth/status.h"
#include "model/model_loader.h"
#include "quant/presets.h"

namespace hearth {

// One matrix of the model with the type a preset gives it.
struct PlannedTensor {
    WeightMatrix* matrix = nullptr; // inside the planned ModelWeights
    DType from = DType::F32;
    DType to = DType::F32;
};

// The matrices of a model in llama.cpp's GGUF file order (token_embd, then per layer attn_q,
// attn_k, attn_v, attn_output, ffn_gate, ffn_up, ffn_down, then output unless tied), which
// is the order the attn_v counter of the mixed presets counts in. A tied LM head is not listed
// (it is token_embd).
std::vector<WeightMatrix*> matricesInFileOrder(ModelWeights& weights, bool tied);

// The type of every matrix under `preset`, without converting anything. The weights may be
// bound with ScaleCheck::Skip (inspect plans from the tensor table without reading the file).
std::vector<PlannedTensor> planPreset(ModelWeights& weights, QuantPreset preset);

// Bytes the weights would occupy after planning (ModelWeights::totalBytes' definition).
uint64_t plannedWeightBytes(const ModelWeights& weights, const std::vector<PlannedTensor>& plan);

// Tensor type counts (every tensor of the file, `typeCounts` before) after the plan is applied.
std::map<std::string, int> plannedTypeCounts(std::map<std::string, int> typeCounts,
                                             const std::vector<PlannedTensor>& plan);

// Progress of applyPreset: onMatrix(done, total) after each converted matrix (on the calling
// thread); `cancel` is checked before each one (then Cancelled, the model as it was).
struct PresetProgress {
    std::function<void(int done, int total)> onMatrix;
    const std::atomic<bool>* cancel = nullptr;
};

// Converts the model's matrices to the preset's types. A matrix already of its planned type is
// kept as it is. Converting a quantized matrix (any type but F32/F16/BF16) to another type loses
// quality: FailedPrecondition naming the file and tensor unless `allowRequantize`. Rows are
// converted in parallel on `threads` threads (0 = all); the result does not depend on it.
// Tied embeddings stay one tensor shared by token_embd and the LM head.
Status applyPreset(LoadedModel& model, QuantPreset preset, bool allowRequantize, int threads,
                   const PresetProgress& progress = {});

// Plans the preset and marks every matrix it converts as deferred (WeightMatrix::deferredFrom):
// the device that uploads the weights converts them (the CUDA module, on the GPU). Same checks
// and errors as applyPreset. Returns false, changing nothing, when some conversion is a
// re-quantization (its source is block-quantized), which only applyPreset does.
Result<bool> deferPreset(LoadedModel& model, QuantPreset preset, bool allowRequantize);

// parseQuantPreset with an InvalidArgument listing the valid names.
Result<QuantPreset> parsePresetOrError(const std::string& name);

// Whether `type` is a block-quantized type (not F32/F16/BF16).
bool isBlockQuantized(DType type);

} // namespace hearth
