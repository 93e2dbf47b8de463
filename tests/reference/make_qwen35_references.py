#!/usr/bin/env python3
"""Make random-weight Qwen3.5 text models (qwen3_5_text) and transformers' own logits for them.

Each model is built with transformers' Qwen3_5TextConfig / Qwen3_5ForCausalLM, its weights
re-drawn so that activations are far from zero (Gated DeltaNet gates and decays included),
saved as a Hugging Face folder (config.json, model.safetensors, generation_config.json) plus a
small SentencePiece tokenizer.model (Hearth's loader wants one; transformers never reads it), and
run teacher-forced over a fixed sequence of SEQ_LEN ids. The float32 logits go to logits.npy
([SEQ_LEN, vocab], C order) and everything else to reference.json, as make_hf_references.py does.

The same logits are also computed a second way and the difference recorded: the first half of the
sequence as one pass (transformers' chunked gated delta rule), then the rest one token at a time
through the cache (its recurrent form), so the reference itself shows both forms agree.

Models (all with 3 Gated DeltaNet layers to each gated full-attention layer):
  qwen35-tiny        small widths, 6 value heads on 2 key heads (the real 3:1 grouping), tied
                     embeddings: about 1 MB, to be committed to tests/data/hf-reference/
  qwen35-heads       the real head counts and head sizes (24 query / 4 KV heads of 256, 16 key /
                     48 value heads of 128), hidden 512, 8 layers
  qwen35-27b-widths  the 27B's widths (hidden 5120, ffn 17408, the real heads), 4 layers, a
                     4096-token vocabulary; weights drawn in bfloat16 and saved as bfloat16 (about
                     3.1 GB), computed in float32 from exactly those values

Usage:  CUDA_VISIBLE_DEVICES= python3 make_qwen35_references.py OUT_DIR [--only NAME ...] [--threads N]
        (--threads: torch's CPU threads, 1 by default as in make_hf_references.py; more only
        shortens the 27b-widths model's minutes)

Needs transformers >= 5.17 (Qwen3.5), torch, numpy, safetensors. Deterministic on the CPU: one
thread, deterministic algorithms, eager attention, the torch fallback of the delta rule (flash-
linear-attention and causal-conv1d must not be used, as with CUDA hidden they are not).
The test that reads the output is tests/engine/test_qwen35_hf_reference.cpp.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_hf_references import tokenizer_model_bytes, write_npy_f32  # noqa: E402

SEQ_LEN = 256
SPLIT = SEQ_LEN // 2  # prefill this many, then decode the rest one at a time
BOS, EOS = 1, 2

MODELS = {
    "qwen35-tiny": dict(seed=3501, vocab=320, hidden=64, ffn=64, layers=4, heads=2, kv_heads=1, head_dim=32,
                        key_heads=2, value_heads=6, key_dim=16, value_dim=16, tie=True, weights="float32"),
    "qwen35-heads": dict(seed=3502, vocab=2048, hidden=512, ffn=1024, layers=8, heads=24, kv_heads=4, head_dim=256,
                         key_heads=16, value_heads=48, key_dim=128, value_dim=128, tie=False, weights="float32"),
    "qwen35-27b-widths": dict(seed=3503, vocab=4096, hidden=5120, ffn=17408, layers=4, heads=24, kv_heads=4,
                              head_dim=256, key_heads=16, value_heads=48, key_dim=128, value_dim=128, tie=False,
                              weights="bfloat16"),
}
ROPE_THETA = 10000000.0
ROTARY_FRACTION = 0.25
RMS_EPS = 1e-6
CONV_KERNEL = 4


def layer_types(layers):
    return ["full_attention" if (i + 1) % 4 == 0 else "linear_attention" for i in range(layers)]


def mrope_section(spec):
    """Interleaved mRoPE sections covering the rotated pairs ([11, 11, 10] for 64 of 256)."""
    pairs = int(spec["head_dim"] * ROTARY_FRACTION) // 2
    if pairs == 32:
        return [11, 11, 10]
    return [pairs - 2 * (pairs // 3), pairs // 3, pairs // 3]


def make_config(spec):
    import transformers as tf
    config = tf.Qwen3_5TextConfig(
        vocab_size=spec["vocab"], hidden_size=spec["hidden"], intermediate_size=spec["ffn"],
        num_hidden_layers=spec["layers"], num_attention_heads=spec["heads"], num_key_value_heads=spec["kv_heads"],
        head_dim=spec["head_dim"], hidden_act="silu", max_position_embeddings=4096, rms_norm_eps=RMS_EPS,
        tie_word_embeddings=spec["tie"], attention_bias=False, linear_conv_kernel_dim=CONV_KERNEL,
        linear_key_head_dim=spec["key_dim"], linear_value_head_dim=spec["value_dim"],
        linear_num_key_heads=spec["key_heads"], linear_num_value_heads=spec["value_heads"],
        layer_types=layer_types(spec["layers"]),
        rope_parameters={"rope_type": "default", "rope_theta": ROPE_THETA, "partial_rotary_factor": ROTARY_FRACTION,
                         "mrope_section": mrope_section(spec), "mrope_interleaved": True},
        bos_token_id=BOS, eos_token_id=EOS, pad_token_id=None, use_cache=True,
    )
    config._attn_implementation = "eager"
    return config


def reinitialise(model, seed, bf16):
    """Weights far from zero, scaled to the fan-in so that wide models stay in range:
    linear weights N(0, 1.6/sqrt(fan_in)) (0.2 at 64), embeddings N(0, 0.5), the zero-centred
    RMSNorm gains (used as 1 + w) N(0, 0.1), the DeltaNet's plain output-norm gain 1 + N(0, 0.1),
    A_log N(-0.5, 0.5) and dt_bias N(1, 0.3) (decays well inside (0, 1)), conv N(0, 0.4)."""
    import torch
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():  # tied weights appear once
            noise = torch.randn(p.shape, generator=gen, dtype=torch.float32)
            if name.endswith("linear_attn.norm.weight"):
                value = 1.0 + 0.1 * noise
            elif name.endswith("norm.weight"):
                value = 0.1 * noise
            elif name.endswith("A_log"):
                value = -0.5 + 0.5 * noise
            elif name.endswith("dt_bias"):
                value = 1.0 + 0.3 * noise
            elif "conv1d" in name:
                value = 0.4 * noise
            elif "embed_tokens" in name:
                value = 0.5 * noise
            else:
                value = (1.6 / p.shape[-1] ** 0.5) * noise
            if bf16:
                value = value.to(torch.bfloat16).to(torch.float32)  # saved exactly as bf16
            p.copy_(value)


def check_shapes(model, spec):
    layer = model.model.layers[0].linear_attn
    assert layer.num_v_heads == spec["value_heads"] and layer.num_k_heads == spec["key_heads"], "GDN heads"
    attn = model.model.layers[3].self_attn
    assert attn.q_proj.out_features == 2 * spec["heads"] * spec["head_dim"], "q_proj holds query and gate"
    rot = model.model.rotary_emb
    assert rot.inv_freq.numel() == int(spec["head_dim"] * ROTARY_FRACTION) // 2, "partial rotary"


def input_ids(spec):
    import torch
    gen = torch.Generator().manual_seed(spec["seed"] + 1)
    ids = torch.randint(3, spec["vocab"], (SEQ_LEN,), generator=gen)
    ids[0] = BOS
    return [int(x) for x in ids]


def recurrent_logits(model, ids):
    """The first SPLIT ids as one pass, then one id at a time through the cache."""
    import torch
    with torch.no_grad():
        out = model(input_ids=ids[:, :SPLIT], use_cache=True)
        cache, rows = out.past_key_values, [out.logits[0, -1]]
        for t in range(SPLIT, ids.shape[1] - 1):
            out = model(input_ids=ids[:, t:t + 1], past_key_values=cache, use_cache=True)
            cache = out.past_key_values
            rows.append(out.logits[0, -1])
        states = [float(s.float().norm()) for s in getattr(cache, "recurrent_states", []) if s is not None]
    return torch.stack(rows).float(), states


def relative_rows(a, b):
    import numpy as np
    return float(np.max(np.linalg.norm(a - b, axis=1) / np.linalg.norm(b, axis=1)))


def make_model(name, spec, out_dir):
    import numpy as np
    import torch
    import transformers

    folder = os.path.join(out_dir, name)
    os.makedirs(folder, exist_ok=True)
    torch.manual_seed(spec["seed"])
    bf16 = spec["weights"] == "bfloat16"
    config = make_config(spec)
    model = transformers.Qwen3_5ForCausalLM(config).to(torch.float32).eval()
    reinitialise(model, spec["seed"], bf16)
    check_shapes(model, spec)

    ids_list = input_ids(spec)
    ids = torch.tensor([ids_list], dtype=torch.long)
    with torch.no_grad():
        logits = model(input_ids=ids, use_cache=False).logits[0].to(torch.float32).cpu().numpy()
    assert logits.shape == (SEQ_LEN, spec["vocab"]), logits.shape
    stepped, state_norms = recurrent_logits(model, ids)
    decode_diff = relative_rows(stepped.cpu().numpy(), logits[SPLIT - 1:SEQ_LEN - 1])

    (model.to(torch.bfloat16) if bf16 else model).save_pretrained(folder, safe_serialization=True)
    with open(os.path.join(folder, "tokenizer.model"), "wb") as f:
        f.write(tokenizer_model_bytes(spec["vocab"]))
    if not os.path.exists(os.path.join(folder, "generation_config.json")):
        transformers.GenerationConfig(bos_token_id=BOS, eos_token_id=EOS).save_pretrained(folder)
    write_npy_f32(os.path.join(folder, "logits.npy"), logits)

    reloaded = transformers.Qwen3_5ForCausalLM.from_pretrained(folder, dtype=torch.float32).eval()
    reloaded.config._attn_implementation = "eager"
    with torch.no_grad():
        again = reloaded(input_ids=ids, use_cache=False).logits[0].float().cpu().numpy()
    reload_diff = float(np.abs(again - logits).max())

    top2 = np.sort(logits, axis=1)[:, -2:]
    record = {
        "model": name, "architecture": "qwen35", "transformers_version": transformers.__version__,
        "torch_version": torch.__version__, "numpy_version": np.__version__, "seed": spec["seed"],
        "weights_dtype": spec["weights"], "compute_dtype": "float32", "attn_implementation": "eager",
        "spec": spec, "layer_types": layer_types(spec["layers"]),
        "input_ids": ids_list, "logits_file": "logits.npy", "logits_shape": list(logits.shape),
        "logits_rms": float(np.sqrt((logits.astype(np.float64) ** 2).mean())),
        "argmax": [int(x) for x in logits.argmax(axis=1)],
        "top2_margin": [float(x) for x in (top2[:, 1] - top2[:, 0])],
        "decode_vs_prefill_max_relative": decode_diff, "decode_from": SPLIT,
        "recurrent_state_norms": state_norms, "reload_max_abs_diff": reload_diff,
        "rope": {"inv_freq": [float(x) for x in model.model.rotary_emb.inv_freq.float().cpu()],
                 "attention_scaling": float(getattr(model.model.rotary_emb, "attention_scaling", 1.0))},
    }
    with open(os.path.join(folder, "reference.json"), "w") as f:
        json.dump(record, f, indent=1)
        f.write("\n")
    size = sum(os.path.getsize(os.path.join(folder, x)) for x in os.listdir(folder))
    print("%-18s logits rms %.3f  decode vs prefill %.2e  reload %.2e  folder %.2f MB" %
          (name, record["logits_rms"], decode_diff, reload_diff, size / 1e6))
    print("  files:", sorted(os.listdir(folder)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("--only", nargs="*", default=None, help="model names (default: all)")
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    args = ap.parse_args()
    names = args.only or list(MODELS)
    for name in names:
        if name not in MODELS:
            raise SystemExit("unknown model %s (have: %s)" % (name, ", ".join(MODELS)))
    import torch
    import transformers
    if os.environ.get("CUDA_VISIBLE_DEVICES", None) != "":
        print("note: run with CUDA_VISIBLE_DEVICES= so that the CPU computes the reference")
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(args.threads)
    print("transformers", transformers.__version__, "torch", torch.__version__, "python", sys.version.split()[0])
    for name in names:
        make_model(name, MODELS[name], args.out_dir)


if __name__ == "__main__":
    main()
