#!/bin/sh
# curl against a running `hearth-cli serve` (the test started it with HEARTH_TEST_DECODE_DELAY_MS,
# so that a reply takes long enough to be left halfway). Arguments: URL API_KEY MODEL_ID.
# Exit 0: every check held; 1: one did not (the message says which).
set -u
url=$1
key=$2
model=$3
auth="Authorization: Bearer $key"
json="Content-Type: application/json"
fail() { echo "curl_client.sh: $*" >&2; exit 1; }
# has TEXT FRAGMENT...: TEXT contains every fragment
has() {
    text=$1
    shift
    for fragment in "$@"; do
        case $text in *"$fragment"*) ;; *) return 1 ;; esac
    done
}
chat() { # BODY-FIELDS: the chat request body with one user message
    printf '{"model":"%s","messages":[{"role":"user","content":"Once upon a time"}],%s}' "$model" "$1"
}

out=$(curl -sS "$url/health") || fail "GET /health failed"
has "$out" '"ok"' || fail "GET /health: $out"

code=$(curl -sS -o /dev/null -w '%{http_code}' "$url/v1/models")
[ "$code" = 401 ] || fail "GET /v1/models without the key: $code, expected 401"
out=$(curl -sS -H "$auth" "$url/v1/models")
has "$out" "\"id\":\"$model\"" '"object":"list"' || fail "GET /v1/models: $out"

out=$(curl -sS -H "$auth" -H "$json" -d "$(chat '"max_tokens":6,"temperature":0')" "$url/v1/chat/completions")
has "$out" '"object":"chat.completion"' '"role":"assistant"' '"finish_reason":"length"' '"completion_tokens":6' ||
    fail "chat: $out"

out=$(curl -sSN -H "$auth" -H "$json" \
    -d "$(chat '"max_tokens":6,"temperature":0,"stream":true,"stream_options":{"include_usage":true}')" \
    "$url/v1/chat/completions")
has "$out" 'data: {' '"object":"chat.completion.chunk"' '"finish_reason":"length"' '"completion_tokens":6' \
    'data: [DONE]' || fail "streamed chat: $out"

out=$(curl -sS -H "$auth" -H "$json" -d '{"prompt":"Once upon a time","max_tokens":4,"stop":["\n"]}' \
    "$url/v1/completions")
has "$out" '"object":"text_completion"' '"text":' || fail "completion: $out"

out=$(curl -sS -w ' %{http_code}' -H "$auth" -H "$json" -d '{"messages": [' "$url/v1/chat/completions")
has "$out" '"error":' '"type":"invalid_request_error"' ' 400' || fail "malformed JSON: $out"

# Leave a long streamed reply after a second; the next request must not wait for it to finish
# (400 tokens at the test's delay take far longer than the 5 s allowed below).
curl -sSN --max-time 1 -H "$auth" -H "$json" -d "$(chat '"max_tokens":400,"stream":true')" \
    "$url/v1/chat/completions" >/dev/null 2>&1
out=$(curl -sS --max-time 5 -H "$auth" -H "$json" -d "$(chat '"max_tokens":2')" "$url/v1/chat/completions") ||
    fail "the request after a disconnected one was not answered within 5 s"
has "$out" '"chat.completion"' || fail "after the disconnect: $out"
echo "curl_client.sh: all checks passed"
