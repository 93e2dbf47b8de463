// Qwen3 (dense): no biases, a per-head RMSNorm of q and k before RoPE, rotate-half pairs.
#include "model/arch/arch.h"

namespace hearth::arch {

Status qwen3Conventions(ModelConfig& c, ModelFormat, const nlohmann::json*, const std::string&) {
    c.attnBias = false;
    c.qkNorm = true;
    c.rope.pairing = RopePairing::RotateHalf;
    uniformAttentionLayers(c);
    return Status::ok();
}

} // namespace hearth::arch
