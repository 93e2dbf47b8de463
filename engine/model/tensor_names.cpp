#include "model/tensor_names.h"

namespace hearth {
namespace {

struct RoleNames {
    TensorRole role;
    const char* gguf; // after "blk.N." for per-layer roles
    const char* hf;   // after "model.layers.N." for per-layer roles
};

constexpr RoleNames kNames[] = {
    {TensorRole::TokenEmbedding, "token_embd.weight", "model.embed_tokens.weight"},
    {TensorRole::OutputNorm, "output_norm.weight", "model.norm.weight"},
    {TensorRole::Output, "output.weight", "lm_head.weight"},
    {TensorRole::RopeFreqs, "rope_freqs.weight", ""},
    {TensorRole::AttnNorm, "attn_norm.weight", "input_layernorm.weight"},
    {TensorRole::Q, "attn_q.weight", "self_attn.q_proj.weight"},
    {TensorRole::K, "attn_k.weight", "self_attn.k_proj.weight"},
    {TensorRole::V, "attn_v.weight", "self_attn.v_proj.weight"},
    {TensorRole::O, "attn_output.weight", "self_attn.o_proj.weight"},
    {TensorRole::QBias, "attn_q.bias", "self_attn.q_proj.bias"},
    {TensorRole::KBias, "attn_k.bias", "self_attn.k_proj.bias"},
    {TensorRole::VBias, "attn_v.bias", "self_attn.v_proj.bias"},
    {TensorRole::QNorm, "attn_q_norm.weight", "self_attn.q_norm.weight"},
    {TensorRole::KNorm, "attn_k_norm.weight", "self_attn.k_norm.weight"},
    {TensorRole::FfnNorm, "ffn_norm.weight", "post_attention_layernorm.weight"},
    {TensorRole::Gate, "ffn_gate.weight", "mlp.gate_proj.weight"},
    {TensorRole::Up, "ffn_up.weight", "mlp.up_proj.weight"},
    {TensorRole::Down, "ffn_down.weight", "mlp.down_proj.weight"},
    {TensorRole::PostAttnNorm, "post_attention_norm.weight", "post_attention_layernorm.weight"},
    {TensorRole::DeltaQkv, "attn_qkv.weight", "linear_attn.in_proj_qkv.weight"},
    {TensorRole::DeltaGate, "attn_gate.weight", "linear_attn.in_proj_z.weight"},
    {TensorRole::DeltaBeta, "ssm_beta.weight", "linear_attn.in_proj_b.weight"},
    {TensorRole::DeltaAlpha, "ssm_alpha.weight", "linear_attn.in_proj_a.weight"},
    {TensorRole::DeltaOut, "ssm_out.weight", "linear_attn.out_proj.weight"},
    {TensorRole::DeltaConv, "ssm_conv1d.weight", "linear_attn.conv1d.weight"},
    {TensorRole::DeltaDtBias, "ssm_dt.bias", "linear_attn.dt_bias"},
    {TensorRole::DeltaA, "ssm_a", "linear_attn.A_log"}, // GGUF: -exp(A_log); HF: A_log
    {TensorRole::DeltaNorm, "ssm_norm.weight", "linear_attn.norm.weight"},
};

} // namespace

std::string tensorName(TensorRole role, ModelFormat format, int layer) {
    for (const RoleNames& n : kNames) {
        if (n.role != role) continue;
        const bool gguf = format == ModelFormat::Gguf;
        const std::string name = gguf ? n.gguf : n.hf;
        if (layer < 0 || name.empty()) return name;
        return (gguf ? "blk." : "model.layers.") + std::to_string(layer) + "." + name;
    }
    return {};
}

TensorRole ffnNormRole(const ModelConfig& config) {
    return config.arch == Architecture::Qwen35 ? TensorRole::PostAttnNorm : TensorRole::FfnNorm;
}

} // namespace hearth
