#!/usr/bin/env python3
"""Make tiny random-weight Hugging Face models and transformers' own logits for them.

Each model is created with transformers' own config and model classes, its weights re-drawn so
that activations are far from zero, saved as a Hugging Face folder (config.json,
model.safetensors, generation_config.json) plus a small SentencePiece tokenizer.model (Hearth's
loader wants one beside every HF model; transformers does not read it), and run once, teacher
forced, on a fixed list of input ids. The float32 logits go to logits.npy ([len, vocab], C order)
and everything else the test needs to reference.json.

Usage:  CUDA_VISIBLE_DEVICES= python3 make_hf_references.py OUT_DIR [--only NAME ...]
        python3 make_hf_references.py OUT_DIR --tokenizer-only   (no torch needed)

The test that reads the output is tests/engine/test_hf_reference.cpp; the committed output
lives in tests/data/hf-reference/ (its README.md says how it was made).
"""
import argparse
import inspect
import json
import os
import struct
import sys

VOCAB = 320
HIDDEN = 128
INTERMEDIATE = 192  # 256 in the first plan: 192 keeps all six models under 8 MB together
LAYERS = 2
HEADS = 4
KV_HEADS = 2
HEAD_DIM = 32
BOS, EOS = 1, 2
# Teacher-forced input: BOS, then fixed ids spread over the vocabulary (normal and byte tokens).
INPUT_IDS = [1, 291, 17, 305, 88, 4, 263, 142, 319, 57, 200, 266, 33, 129, 310, 76]

# name -> (family, seed, extra config). rope: (rope_theta, scaling dict or None).
MODELS = {
    "llama-plain": dict(family="llama", seed=1001, rope_theta=10000.0, scaling=None,
                        tie=False, max_pos=256, rms_eps=1e-5),
    "llama3-scaled": dict(family="llama", seed=1002, rope_theta=500000.0,
                          scaling={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                   "high_freq_factor": 4.0, "original_max_position_embeddings": 64},
                          tie=True, max_pos=512, rms_eps=1e-5),
    "llama-linear": dict(family="llama", seed=1003, rope_theta=10000.0,
                         scaling={"rope_type": "linear", "factor": 2.0},
                         tie=False, max_pos=256, rms_eps=1e-5),
    "qwen2": dict(family="qwen2", seed=1004, rope_theta=1000000.0, scaling=None,
                  tie=True, max_pos=256, rms_eps=1e-6),
    # max_position_embeddings = factor * original, as real YaRN checkpoints have it
    # (transformers may derive the factor from that ratio).
    "qwen2-yarn": dict(family="qwen2", seed=1005, rope_theta=1000000.0,
                       scaling={"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32},
                       tie=True, max_pos=128, rms_eps=1e-6),
    "qwen3": dict(family="qwen3", seed=1006, rope_theta=1000000.0, scaling=None,
                  tie=False, max_pos=256, rms_eps=1e-6),
}


# ---- tokenizer.model: a SentencePiece ModelProto written by hand (proto2 wire format) ----------

def _varint(value):
    if value < 0:
        value += 1 << 64  # int32/int64 negatives take ten bytes
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _key(number, wire):
    return _varint((number << 3) | wire)


def _int_field(number, value):
    return _key(number, 0) + _varint(value)


def _bytes_field(number, data):
    if isinstance(data, str):
        data = data.encode("utf-8")
    return _key(number, 2) + _varint(len(data)) + data


def _float_field(number, value):
    return _key(number, 5) + struct.pack("<f", value)


def tokenizer_model_bytes(vocab=VOCAB):
    """<unk>, <s>, </s>, the 256 byte pieces, then simple normal pieces up to `vocab`."""
    NORMAL, UNKNOWN, CONTROL, BYTE = 1, 2, 3, 6
    pieces = [("<unk>", 0.0, UNKNOWN), ("<s>", 0.0, CONTROL), ("</s>", 0.0, CONTROL)]
    pieces += [("<0x%02X>" % b, 0.0, BYTE) for b in range(256)]
    letters = "etaoinshrdlucmfwypvbgkjqxz"
    normal = ["\u2581"] + ["\u2581" + c for c in letters] + list(letters)
    for extra in ["th", "he", "in", "er", "an", "re", "on", "at", "en", "nd", "ti", "es", "or"]:
        normal.append(extra)
    # Larger vocabularies: word-start and inner letter pairs, then triples, after the pieces above
    # (so a small vocabulary's file is unchanged).
    seen = set(normal)
    for more in (["\u2581" + a + b for a in letters for b in letters] + [a + b for a in letters for b in letters] +
                 [a + b + c for a in letters for b in letters for c in letters]):
        if len(normal) >= vocab - len(pieces):
            break
        if more not in seen:
            seen.add(more)
            normal.append(more)
    normal = normal[: vocab - len(pieces)]
    if len(pieces) + len(normal) != vocab:
        raise SystemExit("tokenizer: not enough pieces for vocab %d" % vocab)
    pieces += [(p, -1.0 - 0.1 * i, NORMAL) for i, p in enumerate(normal)]

    out = bytearray()
    for text, score, kind in pieces:
        msg = _bytes_field(1, text) + _float_field(2, score) + _int_field(3, kind)
        out += _bytes_field(1, msg)
    trainer = (_int_field(3, 1)          # model_type UNIGRAM
               + _int_field(4, vocab)    # vocab_size
               + _int_field(35, 1)       # byte_fallback
               + _int_field(40, 0)       # unk_id
               + _int_field(41, BOS)     # bos_id
               + _int_field(42, EOS)     # eos_id
               + _int_field(43, -1))     # pad_id
    out += _bytes_field(2, trainer)
    normalizer = (_bytes_field(1, "identity") + _int_field(3, 1)   # add_dummy_prefix
                  + _int_field(4, 0) + _int_field(5, 1))          # remove_extra_ws, escape_ws
    out += _bytes_field(3, normalizer)
    return bytes(out)


def write_tokenizer(folder):
    with open(os.path.join(folder, "tokenizer.model"), "wb") as f:
        f.write(tokenizer_model_bytes())


# ---- .npy ----------------------------------------------------------------------------------------

def write_npy_f32(path, array):
    """'<f4', C order: the format the C++ test reads."""
    import numpy as np
    np.save(path, np.ascontiguousarray(array, dtype="<f4"), allow_pickle=False)


# ---- models --------------------------------------------------------------------------------------

def _classes(family):
    import transformers as tf
    if family == "llama":
        return tf.LlamaConfig, tf.LlamaForCausalLM
    if family == "qwen2":
        return tf.Qwen2Config, tf.Qwen2ForCausalLM
    if family == "qwen3":
        return tf.Qwen3Config, tf.Qwen3ForCausalLM
    raise ValueError(family)


def _accepts(cls, name):
    try:
        return name in inspect.signature(cls.__init__).parameters
    except (TypeError, ValueError):
        return False


def make_config(spec):
    config_cls, _ = _classes(spec["family"])
    kwargs = dict(
        vocab_size=VOCAB, hidden_size=HIDDEN, intermediate_size=INTERMEDIATE,
        num_hidden_layers=LAYERS, num_attention_heads=HEADS, num_key_value_heads=KV_HEADS,
        head_dim=HEAD_DIM, max_position_embeddings=spec["max_pos"], rms_norm_eps=spec["rms_eps"],
        tie_word_embeddings=spec["tie"], hidden_act="silu", bos_token_id=BOS, eos_token_id=EOS,
        pad_token_id=None, use_cache=False,
    )
    if spec["family"] == "llama":
        kwargs.update(attention_bias=False, mlp_bias=False)
    if spec["family"] == "qwen3":
        kwargs.update(attention_bias=False)
    if spec["family"] in ("qwen2", "qwen3"):
        kwargs.update(use_sliding_window=False)
    scaling = spec["scaling"]
    if _accepts(config_cls, "rope_parameters"):  # transformers 5
        params = {"rope_type": "default", "rope_theta": spec["rope_theta"]}
        if scaling:
            params.update(scaling)
        kwargs["rope_parameters"] = params
    else:  # transformers 4
        kwargs["rope_theta"] = spec["rope_theta"]
        kwargs["rope_scaling"] = dict(scaling) if scaling else None
    params = inspect.signature(config_cls.__init__).parameters
    if not any(p.kind == inspect.Parameter.VAR_KEYWORD for p in params.values()):
        dropped = sorted(k for k in kwargs if k not in params)
        if dropped:
            print("  note: %s takes no %s" % (config_cls.__name__, dropped))
        kwargs = {k: v for k, v in kwargs.items() if k in params}
    config = config_cls(**kwargs)
    try:
        config._attn_implementation = "eager"
    except Exception as e:  # noqa: BLE001 - informative only
        print("  note: could not pick eager attention:", e)
    return config


def reinitialise(model, seed):
    """Weights far from zero: matrices and biases N(0, 0.2), norms 1 + N(0, 0.1)."""
    import torch
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():  # tied weights appear once
            noise = torch.randn(p.shape, generator=gen, dtype=torch.float32)
            if "norm" in name:
                p.copy_(1.0 + 0.1 * noise)
            else:
                p.copy_(0.2 * noise)


def rotary_info(model):
    rot = getattr(model.model, "rotary_emb", None)
    if rot is None:
        return None
    info = {}
    inv = getattr(rot, "inv_freq", None)
    if inv is not None:
        info["inv_freq"] = [float(x) for x in inv.detach().float().cpu()]
    for key in ("attention_scaling", "rope_type"):
        if hasattr(rot, key):
            v = getattr(rot, key)
            info[key] = float(v) if isinstance(v, (int, float)) else str(v)
    return info


def yarn_probe(spec):
    """What transformers does with a YaRN config whose max_position_embeddings is not
    factor * original_max_position_embeddings (recorded only, for the loader's authors)."""
    probe = dict(spec, max_pos=1000)
    try:
        config = make_config(probe)
        _, model_cls = _classes(spec["family"])
        model = model_cls(config)
        return {"max_position_embeddings": 1000, "rope": rotary_info(model)}
    except Exception as e:  # noqa: BLE001 - informative only
        return {"error": repr(e)}


def save_folder(model, folder):
    kwargs = {}
    if _accepts(type(model).save_pretrained, "safe_serialization"):
        kwargs["safe_serialization"] = True
    model.save_pretrained(folder, **kwargs)
    if not os.path.exists(os.path.join(folder, "generation_config.json")):
        from transformers import GenerationConfig
        GenerationConfig(bos_token_id=BOS, eos_token_id=EOS).save_pretrained(folder)


def make_model(name, spec, out_dir):
    import numpy as np
    import torch
    import transformers

    folder = os.path.join(out_dir, name)
    os.makedirs(folder, exist_ok=True)
    torch.manual_seed(spec["seed"])
    config = make_config(spec)
    _, model_cls = _classes(spec["family"])
    model = model_cls(config).to(torch.float32).eval()
    reinitialise(model, spec["seed"])
    tied = model.lm_head.weight.data_ptr() == model.model.embed_tokens.weight.data_ptr()
    if spec["tie"] and not tied:
        print("  note: lm_head was not tied after init; tying now")
        model.tie_weights()
        tied = model.lm_head.weight.data_ptr() == model.model.embed_tokens.weight.data_ptr()
    assert tied == spec["tie"], "tie_word_embeddings=%s but tied=%s" % (spec["tie"], tied)
    save_folder(model, folder)
    write_tokenizer(folder)

    ids = torch.tensor([INPUT_IDS], dtype=torch.long)
    with torch.no_grad():
        out = model(input_ids=ids, position_ids=torch.arange(len(INPUT_IDS))[None, :], use_cache=False)
    logits = out.logits[0].to(torch.float32).cpu().numpy()
    assert logits.shape == (len(INPUT_IDS), VOCAB), logits.shape
    write_npy_f32(os.path.join(folder, "logits.npy"), logits)

    # Reload from disk and run again: the saved folder must be what was run.
    reloaded = model_cls.from_pretrained(folder).to(torch.float32).eval()
    with torch.no_grad():
        again = reloaded(input_ids=ids, use_cache=False).logits[0].float().cpu().numpy()
    reload_diff = float(np.abs(again - logits).max())

    top2 = np.sort(logits, axis=1)[:, -2:]
    record = {
        "model": name,
        "architecture": spec["family"],
        "transformers_version": transformers.__version__,
        "torch_version": torch.__version__,
        "numpy_version": np.__version__,
        "seed": spec["seed"],
        "dtype": "float32",
        "attn_implementation": getattr(config, "_attn_implementation", None),
        "input_ids": INPUT_IDS,
        "logits_file": "logits.npy",
        "logits_shape": list(logits.shape),
        "logits_rms": float(np.sqrt((logits.astype(np.float64) ** 2).mean())),
        "argmax": [int(x) for x in logits.argmax(axis=1)],
        "top2_margin": [float(x) for x in (top2[:, 1] - top2[:, 0])],
        "reload_max_abs_diff": reload_diff,
        "rope": rotary_info(model),
        "requested_rope": {"rope_theta": spec["rope_theta"], "scaling": spec["scaling"]},
    }
    if spec["scaling"] and spec["scaling"].get("rope_type") == "yarn":
        record["yarn_probe"] = yarn_probe(spec)
    with open(os.path.join(folder, "reference.json"), "w") as f:
        json.dump(record, f, indent=1)
        f.write("\n")
    with open(os.path.join(folder, "config.json")) as f:
        cfg = json.load(f)
    rope_keys = {k: v for k, v in cfg.items() if "rope" in k or k == "max_position_embeddings"}
    print("%-14s logits rms %.3f  reload diff %.2e  config rope keys %s" %
          (name, record["logits_rms"], reload_diff, json.dumps(rope_keys)))
    print("  rotary:", json.dumps({k: v for k, v in (record["rope"] or {}).items() if k != "inv_freq"}))
    print("  files:", sorted(os.listdir(folder)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("--only", nargs="*", default=None, help="model names (default: all)")
    ap.add_argument("--tokenizer-only", action="store_true", help="write only tokenizer.model files")
    args = ap.parse_args()
    names = args.only or list(MODELS)
    for name in names:
        if name not in MODELS:
            raise SystemExit("unknown model %s (have: %s)" % (name, ", ".join(MODELS)))
    if args.tokenizer_only:
        for name in names:
            folder = os.path.join(args.out_dir, name)
            os.makedirs(folder, exist_ok=True)
            write_tokenizer(folder)
        return

    import torch
    import transformers
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)  # fixed reduction order
    print("transformers", transformers.__version__, "torch", torch.__version__, "python", sys.version.split()[0])
    for name in names:
        make_model(name, MODELS[name], args.out_dir)


if __name__ == "__main__":
    main()
