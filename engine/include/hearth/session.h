// A session: one conversation's state (KV cache, recurrent state) on a loaded model, and
// generation from a prompt of tokens. Qt-free. Ownership: the caller owns the Session; its Model
// must outlive it. Threading: one thread at a time (cancellation may be requested from any thread).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hearth/memory.h"
#include "hearth/model.h"
#include "hearth/sampling.h"
#include "hearth/status.h"

namespace hearth {

// Length: maxTokens were generated; Context: the session's context filled up first.
enum class StopReason { Eos, Length, Cancel, StopString, Context };
const char* stopReasonName(StopReason reason); // "eos", "length", "cancel", "stop_string", "context"

// Where a generation stands, passed with every streamed piece (the app's live statistics).
struct GenerateStats {
    int32_t tokens = 0;           // tokens generated so far, the piece's own included
    double ttftMs = 0;            // from the call to the first generated token
    double prefillTokPerS = -1;   // prompt tokens processed per second; -1: none were
    double decodeTokPerS = -1;    // generated tokens per second so far; -1: not yet measurable
};

struct GenerateParams {
    int32_t maxTokens = 256;          // generated tokens at most (>= 0)
    SamplingParams sampling;          // greedy by default
    std::vector<int32_t> stopIds;     // extra end-of-generation ids
    bool useModelStopIds = true;      // EOS/EOT/generation_config ids stop generation
    // Generation stops when the text contains one of these; the text ends before it. Text that
    // could be the start of a stop string is held back from onText until it is decided.
    std::vector<std::string> stopStrings;
    // Set from any thread to stop: checked before every token (prompt and generated), so at
    // most the token in flight completes. The result's stop reason is then Cancel.
    const std::atomic<bool>* cancel = nullptr;
    // Receives complete UTF-8 text as it is generated, with the statistics so far.
    std::function<void(std::string_view text, const GenerateStats& stats)> onText;
    // A model with recurrent state (Qwen3.5) can return only to positions it saved: besides the
    // end of the prompt, keep the state after this many prompt tokens (ChatSession: the history
    // before the reply's opening, which the next turn's template may render differently).
    // 0: none. Free for attention-only models.
    int32_t checkpointAt = 0;
};

struct GenerateResult {
    std::vector<int32_t> outputIds;   // excludes the stop token
    std::string text;                 // bytes appended to the prompt's text
    StopReason stop = StopReason::Length;
    int32_t stopTokenId = -1;         // the end-of-generation id that stopped it (stop == Eos)
    int32_t promptTokens = 0;
    int32_t reusedTokens = 0;         // prompt tokens whose KV state was already in the session
    double ttftMs = 0;                // from the call to the first generated token
    double prefillMs = 0, decodeMs = 0;
    double prefillTokPerS = -1, decodeTokPerS = -1; // -1 when undefined (no tokens)
};

struct SessionParams {
    // KV positions; 0 = the model's trained context, capped by what fits: the VRAM budget, else
    // the GPU's free memory less a margin (on the CPU a quarter of the free RAM), rounded down
    // to a multiple of 256. Session::contextLength() says what was chosen.
    int32_t contextLength = 0;
    // The KV cache's element type on every backend: K and V are rounded to it when stored (f16
    // and bf16 halve the cache; a test that compares with a reference names F32).
    KvType kvType = KvType::F16;
};

class Session {
public:
    // Errors: OutOfMemory when the KV cache does not fit; InvalidArgument. Owner thread.
    static Result<std::unique_ptr<Session>> create(const Model& model, const SessionParams& params);
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    // Generates a continuation of `promptIds` (the whole conversation so far, as tokens). The
    // session keeps the state of every token it processed; only the tokens after the longest
    // common prefix of that state and `promptIds` are processed again, so the next turn of a
    // conversation costs only its new tokens, and editing or regenerating rewinds to the common
    // prefix. Errors: InvalidArgument (prompt empty or longer than the context, bad parameters,
    // naming the field); cancellation is not an error (stop == Cancel). On an error the session
    // is reset.
    Result<GenerateResult> generate(const std::vector<int32_t>& promptIds, const GenerateParams& params);
    // Teacher-forced logits: runs `ids` from position 0 (nothing of the session's state is
    // reused) and returns, row-major [ids.size() x vocabSize], the logits after each token — row i
    // scores the token that follows ids[0..i]. The same numbers generate() samples from, for
    // scoring text, perplexity and comparisons with a reference. Mind the size: a 150k
    // vocabulary is 0.6 MB per token. Afterwards the session holds exactly `ids`, so a generate()
    // that continues them reuses that state. Errors: InvalidArgument (empty, longer than the
    // context, an id outside the vocabulary); on an error the session is reset.
    Result<std::vector<float>> evaluate(const std::vector<int32_t>& ids);
    // The tokens whose state the session holds (positions 0..n-1).
    const std::vector<int32_t>& cachedTokens() const;
    // Forgets all state (the next generate starts from position 0).
    void reset();
    // Marks the current end of the cached tokens as a turn boundary (a snapshot the session can
    // return to later; free for attention-only models).
    void markTurnBoundary();
    int32_t contextLength() const;
    std::string deviceName() const;
    // Any time, from the owner thread; reads the device's free memory fresh.
    MemoryReport memoryReport() const;
    // What each decode step reads (the speed bound's bytes: the model's weights as loaded, this
    // session's KV cache type). Any time, from the owner thread.
    DecodeBytes decodeBytes() const;

private:
    Session();
    struct Impl;
    std::unique_ptr<Impl> m_impl;
    friend struct SessionTesting; // test seams (runtime/session_testing.h)
};

// TEST ONLY: every session sleeps `ms` before each decode step from now on (0 = off), so that a
// test driving a whole program (the app killed mid-reply) sees a reply still streaming. Programs
// call it only when a test asks them to (the app: HEARTH_TEST_DECODE_DELAY_MS). Any thread.
void setTestDecodeDelayMs(int ms);

} // namespace hearth
