// Writing a loaded model (possibly re-typed by a quant preset) as a GGUF file that llama.cpp and
// other GGUF readers take: llama.cpp's tensor names, metadata keys and Q/K row order.
#pragma once

#include <string>

#include "hearth/status.h"
#include "io/gguf.h"
#include "model/model_loader.h"
#include "quant/presets.h"

namespace hearth {

// Builds the writer for `model`: general.* (architecture, name, file_type from `preset`,
// quantization_version 2 when any tensor is quantized, alignment 32), the %s.* hyperparameters
// as model/gguf_model.cpp reads them, tokenizer.ggml.* from the loaded tokenizer ("llama" for
// SentencePiece, "gpt2" with merges for byte-level BPE; other
// tokenizer.* and general.* keys copied verbatim from a GGUF source), and the tensors in
// llama.cpp's order. An HF llama's Q/K rows (and biases) are permuted from rotate-half to
// adjacent pairs, as llama.cpp's converter does. The writer refers to the model's memory
// (except permuted copies): `model` must outlive it.
Result<io::GgufWriter> buildGgufWriter(const LoadedModel& model, QuantPreset preset);

// buildGgufWriter + an atomic write (path.part, then rename): an error leaves no file at `path`.
Status exportGguf(const LoadedModel& model, QuantPreset preset, const std::string& path);

} // namespace hearth
