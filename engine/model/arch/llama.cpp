// Llama (1, 2, 3, 3.1): attention + SwiGLU, optional q/k/v biases (HF attention_bias).
#include "model/arch/arch.h"

namespace hearth::arch {

Status llamaConventions(ModelConfig& c, ModelFormat format, const nlohmann::json* hf, const std::string& where) {
    HEARTH_ASSIGN(c.attnBias, hfFlag(hf, "attention_bias", false, where));
    c.qkNorm = false;
    // llama.cpp's converter permutes llama's Q/K rows into adjacent pairs; HF keeps halves.
    c.rope.pairing = format == ModelFormat::Gguf ? RopePairing::Adjacent : RopePairing::RotateHalf;
    uniformAttentionLayers(c);
    return Status::ok();
}

} // namespace hearth::arch
