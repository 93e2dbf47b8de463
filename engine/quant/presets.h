// Quantization presets: which type each tensor gets (what `--quant` and the UI switch between).
// Single-type presets give every matrix the same type (llama.cpp's "--pure"); Q4_K_M and Q5_K_M
// follow llama.cpp's per-tensor rules. Norms and other 1-D tensors always stay F32. When a row
// length is not a whole number of blocks the documented fallback applies.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "quant/types.h"

namespace hearth {

enum class QuantPreset { F32, F16, BF16, Q8_0, Q4_0, Q5_0, Q4_K, Q5_K, Q6_K, Q4_K_M, Q5_K_M };

// "q4_k_m", "Q8_0", ... (case-insensitive); nullopt for an unknown name.
std::optional<QuantPreset> parseQuantPreset(const std::string& name);
const char* quantPresetName(QuantPreset preset);
// All preset names, comma-separated (for error messages and --help).
std::string quantPresetList();
// GGUF general.file_type (llama.cpp's llama_ftype) for files written with this preset.
uint32_t ggufFileType(QuantPreset preset);
// The type of 32/16-bit presets' matrices, or the default type of a quantized preset.
DType presetBaseType(QuantPreset preset);
bool presetIsQuantized(QuantPreset preset);

// use_more_bits(i, n) of llama.cpp: about half the layers, the first and last eighth always.
bool useMoreBits(int layer, int layers);

// The fallback for a row that the type's block does not divide: Q4_K, Q5_K → Q5_0; Q6_K → Q8_0;
// a 32-element-block type on a row that 32 does not divide → F16. Returns `type` if it fits.
DType fallbackForRow(DType type, int64_t rowLength);

// Decides tensor types for one model, tensor by tensor, in file order (the attn_v rule counts
// attn_v tensors as they come, as llama.cpp does).
class PresetPlanner {
public:
    PresetPlanner(QuantPreset preset, int layers, bool tiedEmbeddings);
    // `name`: the GGUF tensor name (llama.cpp naming); `dims`: 1 for vectors; `rowLength`: ne[0].
    DType typeFor(const std::string& name, int dims, int64_t rowLength);

private:
    QuantPreset m_preset;
    int m_layers;
    bool m_tied;
    int m_attnV = 0; // attn_v tensors seen so far
};

} // namespace hearth
