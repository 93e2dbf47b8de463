#!/usr/bin/env bash
# Screenshots of the real app for the README (docs/screenshots/), at 1280x800 and 1920x1080:
# the chat mid-stream (stats bar, VRAM meter), a reply with a code block, the model and quant
# picker, the settings, a chat's options (sampling from the model's generation_config.json),
# About, the app in Simplified Chinese, stories260K in completion mode, and a remote server
# (`hearth-cli serve` on loopback standing in for vLLM or SGLang): the picker's tab, the
# connection dialog and a chat through it. Each picture is
# taken QUIT_MS after the start model has loaded (hearth --screenshot), never during the load.
# The app renders offscreen (QT_QPA_PLATFORM=offscreen) and saves its own window (--screenshot),
# so no X server is needed. Scratch HOME: the user's settings and history are never touched.
#
# Prerequisites: a built tree (HEARTH_BUILD, default ./build) with `hearth` and `hearth-cli`;
# the test data (HEARTH_TEST_DATA, default ../shared: models/qwen3-tokenizer, models/stories260K);
# sqlite3 (the stored conversation with a code block); fonts-noto-cjk (the Chinese shots);
# optipng (optional: smaller PNGs).
#
# Usage: installer/screenshots.sh [OUT_DIR]   (default docs/screenshots)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${HEARTH_BUILD:-$root/build}
data=${HEARTH_TEST_DATA:-$root/../shared}
out=$(mkdir -p "${1:-$root/docs/screenshots}" && cd "${1:-$root/docs/screenshots}" && pwd)
hearth=$build/app/hearth
cli=$build/engine/hearth-cli
for f in "$hearth" "$cli" "$data/models/qwen3-tokenizer/tokenizer.json" "$data/models/stories260K/stories260K-f32.gguf"; do
    [[ -e $f ]] || { echo "screenshots: missing $f" >&2; exit 1; }
done
command -v sqlite3 >/dev/null || { echo "screenshots: sqlite3 is needed" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME=$work/home XDG_CONFIG_HOME=$work/home/.config XDG_DATA_HOME=$work/home/.local/share
export XDG_RUNTIME_DIR=$work/run QT_QPA_PLATFORM=offscreen
mkdir -p "$XDG_CONFIG_HOME/Hearth" "$XDG_DATA_HOME" "$XDG_RUNTIME_DIR" "$work/models"
chmod 700 "$XDG_RUNTIME_DIR"

# A Qwen3-shaped model small enough for the CPU, with the real Qwen3 tokenizer and template:
# random weights, so its words are random, but every part of the app sees a real Qwen3.
mkdir -p "$work/Qwen3-Demo" # the folder names the model
cat > "$work/Qwen3-Demo/config.json" <<'JSON'
{"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "vocab_size": 151936,
 "hidden_size": 256, "intermediate_size": 768, "num_hidden_layers": 4, "num_attention_heads": 4,
 "num_key_value_heads": 2, "head_dim": 64, "max_position_embeddings": 8192, "rope_theta": 1000000.0,
 "rms_norm_eps": 1e-6, "tie_word_embeddings": true}
JSON
# In a folder of its own with Qwen3's recommended sampling, which a generation_config.json beside
# a .gguf gives it (the chat options show them as the model's defaults).
mkdir -p "$work/models/Qwen3-Demo"
qwen=$work/models/Qwen3-Demo/Qwen3-Demo-Q8_0.gguf
cat > "$work/models/Qwen3-Demo/generation_config.json" <<'JSON'
{"do_sample": true, "temperature": 0.6, "top_k": 20, "top_p": 0.95, "min_p": 0.0}
JSON
"$cli" synth --config "$work/Qwen3-Demo/config.json" --quant Q8_0 --seed 7 \
    --tokenizer "$data/models/qwen3-tokenizer/tokenizer.json" "$qwen" >/dev/null
cp "$data/models/stories260K/stories260K-f32.gguf" "$work/models/"
stories=$work/models/stories260K-f32.gguf

settings() { # LANGUAGE
    cat > "$XDG_CONFIG_HOME/Hearth/Hearth.conf" <<CONF
[appearance]
language=$1
theme=light
[models]
folder=$work/models
CONF
}

# shot NAME SIZE QUIT_MS ARGS...: one run of the app, its window saved as NAME-SIZE.png.
shot() {
    local name=$1 size=$2 quit=$3
    shift 3
    "$hearth" -qwindowgeometry "$size" --database "$work/history.sqlite" --quit-after-ms "$quit" \
        --screenshot "$out/$name-$size.png" "$@" >"$work/$name-$size.log" 2>&1 \
        || { echo "screenshots: $name $size failed:" >&2; tail "$work/$name-$size.log" >&2; exit 1; }
    echo "$out/$name-$size.png"
}

# A stored conversation whose reply has a code block (a random-weight model writes none).
settings en
"$hearth" --database "$work/history.sqlite" --quit-after-ms 300 >/dev/null 2>&1 # creates the schema
now=$(date +%s%3N)
reply='Here is a small function that counts the words in a file:

```python
from collections import Counter

def word_counts(path: str) -> Counter:
    """How often each word occurs in the file at `path`."""
    with open(path, encoding="utf-8") as f:
        return Counter(word.lower() for line in f for word in line.split())

print(word_counts("notes.txt").most_common(5))
```

`Counter.most_common(5)` gives the five most frequent words with their counts.'
esc() { printf "%s" "$1" | sed "s/'/''/g"; }
sqlite3 "$work/history.sqlite" <<SQL
INSERT INTO conversations (id, title, created, updated, model_path, quant)
  VALUES (1, 'Counting words in Python', $now, $now, '$(esc "$qwen")', 'Q8_0');
INSERT INTO messages (id, conversation_id, role, text, created, parent_id)
  VALUES (1, 1, 'user', 'Write a Python function that counts the words in a text file.', $now, NULL);
INSERT INTO messages (id, conversation_id, role, text, created, parent_id, prompt_tokens,
  generated_tokens, prefill_tps, decode_tps, ttft_ms, model, quant, device, stop_reason)
  VALUES (2, 1, 'assistant', '$(esc "$reply")', $now, 1, 31, 118, 412.5, 96.3, 84.0,
          'Qwen3-Demo', 'Q8_0', 'CPU', 'eos');
SQL

for size in 1280x800 1920x1080; do
    settings en
    HEARTH_TEST_DECODE_DELAY_MS=120 shot chat-streaming "$size" 7000 --model "$qwen" \
        --send "How does a heat pump keep a house warm in winter?"
    shot code-block "$size" 3000 --model "$qwen" --conversation 1
    HEARTH_TEST_OPEN_PAGE=picker shot model-picker "$size" 4000 --model "$qwen" --conversation 1
    HEARTH_TEST_OPEN_PAGE=settings shot settings "$size" 3000 --model "$qwen" --conversation 1
    HEARTH_TEST_OPEN_PAGE=chatOptions shot chat-options "$size" 3000 --model "$qwen" --conversation 1
    HEARTH_TEST_OPEN_PAGE=about shot about "$size" 3000 --model "$qwen" --conversation 1
    HEARTH_TEST_DECODE_DELAY_MS=150 shot stories-completion "$size" 6000 --model "$stories" \
        --send "Once upon a time, there was a little dog"
    settings zh_CN
    shot chinese "$size" 3000 --model "$qwen" --conversation 1
done

# A remote server: Hearth's own, on loopback, serving the same model over the OpenAI API.
"$cli" serve -m "$qwen" --port 0 >"$work/serve.out" 2>"$work/serve.log" &
serve_pid=$!
trap 'kill "$serve_pid" 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 150); do [[ -s $work/serve.out ]] && break; sleep 0.2; done
field() { sed -n "s/.*\"$1\":\"\{0,1\}\([^\",}]*\).*/\1/p" "$work/serve.out"; }
url=$(field url) served=$(field model) context=$(field context_length)
[[ -n $url ]] || { echo "screenshots: hearth-cli serve did not start:" >&2; cat "$work/serve.log" >&2; exit 1; }
remote_settings() {
    settings en
    cat >> "$XDG_CONFIG_HOME/Hearth/Hearth.conf" <<CONF
[chat]
maxTokens=160
[remote]
active=gpu
connections\\1\\id=gpu
connections\\1\\name=GPU server
connections\\1\\baseUrl=$url/v1
connections\\1\\model=$served
connections\\1\\contextLength=$context
connections\\1\\hasKey=false
connections\\size=1
CONF
}
for size in 1280x800 1920x1080; do
    remote_settings
    shot remote-chat "$size" 5000 --send "How does a heat pump keep a house warm in winter?"
    HEARTH_TEST_OPEN_PAGE=remote shot remote-servers "$size" 2500
    HEARTH_TEST_OPEN_PAGE=connection shot connection-dialog "$size" 2500
done

if command -v optipng >/dev/null; then optipng -quiet -o2 "$out"/*.png; fi
