#!/bin/sh
# Seed corpora for the fuzz targets, from real files: make_seeds.sh CLI DATA OUT, e.g.
#   tests/fuzz/make_seeds.sh build/engine/hearth-cli ../shared build-fuzz/corpus
# writes OUT/<target>/ for every target in tests/fuzz (see docs/FUZZING.md).
set -eu
cli=$1 data=$2 out=$3
src=$(cd "$(dirname "$0")/../.." && pwd)
stories=$data/models/stories260K
qwen=$data/models/qwen3-tokenizer
mkdir -p "$out/gguf" "$out/safetensors" "$out/config_json" "$out/tokenizer_json" "$out/chat_template" \
  "$out/chat_messages"

# GGUF: the real stories260K file, and synthetic models of tiny widths (SentencePiece vocabulary,
# several tensor types, two architectures).
cp "$stories/stories260K-f32.gguf" "$out/gguf/"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%s' '{"model_type": "MODEL", "vocab_size": 512, "hidden_size": 64, "intermediate_size": 128,
  "num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 32,
  "max_position_embeddings": 256, "rms_norm_eps": 1e-6, "rope_theta": 10000.0,
  "tie_word_embeddings": true, "hidden_act": "silu"}' > "$tmp/template.json"
for spec in llama:F32 llama:Q8_0 qwen2:Q4_0 qwen3:F16; do
  model=${spec%:*} quant=${spec#*:}
  sed "s/MODEL/$model/" "$tmp/template.json" > "$tmp/config.json"
  "$cli" synth --config "$tmp/config.json" --tokenizer "$stories/tok512.model" --quant "$quant" --seed 1 \
    "$out/gguf/synth-$model-$quant.gguf" > /dev/null
done

# safetensors and JSON configs from the Hugging Face folder; the templates' JSON files too.
cp "$stories/hf/model.safetensors" "$out/safetensors/"
for f in "$stories"/hf/*.json "$qwen/tokenizer_config.json" "$src"/tests/data/templates/*.json; do
  cp "$f" "$out/config_json/$(basename "$(dirname "$f")")-$(basename "$f")"
done

# tokenizer.json: Qwen3's, cut to its first 2000 tokens and the merges among them (the whole file
# is 11 MB, over libFuzzer's 1 MB input bound), every other part kept; then NUL, a text to encode, NUL, tokenizer_config.json.
python3 - "$qwen" "$out/tokenizer_json" <<'EOF'
import json, sys
qwen, out = sys.argv[1], sys.argv[2]
full = json.load(open(qwen + "/tokenizer.json", encoding="utf-8"))
config = open(qwen + "/tokenizer_config.json", encoding="utf-8").read()
texts = [json.loads(line)["text"] for line in open(qwen + "/vectors_public.jsonl", encoding="utf-8")]
model = full["model"]
vocab = {piece: i for piece, i in model["vocab"].items() if i < 2000}
merges = [m for m in model["merges"]
          if (m if isinstance(m, list) else m.split(" "))[0] in vocab
          and (m if isinstance(m, list) else m.split(" "))[1] in vocab
          and "".join(m if isinstance(m, list) else m.split(" ")) in vocab]
model["vocab"], model["merges"] = vocab, merges
for n, token in enumerate(full["added_tokens"]):
    token["id"] = 2000 + n
small = json.dumps(full, ensure_ascii=False)
for n, text in enumerate(t for t in texts if t):
    with open(f"{out}/qwen3-small-{n}", "w", encoding="utf-8") as f:
        f.write(small + "\0" + text + ("\0" + config if n % 2 else ""))
EOF

# Chat templates as code (the real ones and expected.json's own small ones), and expected.json's
# conversations as data for the real templates.
cp "$src"/tests/data/templates/*.jinja "$out/chat_template/"
python3 - "$src/tests/data/templates/expected.json" "$out/chat_messages" "$out/chat_template" <<'EOF'
import json, sys
for n, case in enumerate(json.load(open(sys.argv[1], encoding="utf-8"))["cases"]):
    if "source" in case: # a small template of its own (error cases, edge cases)
        with open(f"{sys.argv[3]}/case-{n}.jinja", "w", encoding="utf-8") as f:
            f.write(case["source"])
    options = case.get("options", {})
    record = {"messages": case.get("messages", []), "tools": options.get("tools"),
              "extra": options.get("extra", {})}
    with open(f"{sys.argv[2]}/case-{n}.json", "w", encoding="utf-8") as f:
        json.dump(record if n % 2 else record["messages"], f, ensure_ascii=False)
EOF

chmod -R u+w "$out" # copies of read-only shared files
