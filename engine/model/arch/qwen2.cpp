// Qwen2 / Qwen2.5: llama's layers with q/k/v biases, RoPE over rotate-half pairs in every format.
#include "model/arch/arch.h"

namespace hearth::arch {

Status qwen2Conventions(ModelConfig& c, ModelFormat, const nlohmann::json*, const std::string&) {
    c.attnBias = true;
    c.qkNorm = false;
    c.rope.pairing = RopePairing::RotateHalf;
    uniformAttentionLayers(c);
    return Status::ok();
}

} // namespace hearth::arch
