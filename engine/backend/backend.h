// What the runtime needs from a compute backend: run one token through the model at a position,
// keeping the KV cache, and produce logits. The CPU backend defines the reference results.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "hearth/status.h"

namespace hearth {

struct LoadedModel;

class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string deviceName() const = 0;
    virtual int32_t contextLength() const = 0; // KV cache capacity in positions

    // Runs `token` at position `pos` (0-based; positions >= pos in the cache are overwritten),
    // writing vocabSize logits into `logits` unless it is empty (prompt tokens whose logits are
    // not needed skip the LM head). Errors: InvalidArgument for pos outside the cache or a
    // token outside the vocabulary.
    virtual Status forward(int32_t token, int32_t pos, std::span<float> logits) = 0;

    // State snapshots, so that a session can go back to an earlier position (regenerate, edit,
    // the next turn after a template dropped text, speculative decoding). Attention KV can be
    // cut at any position, so the attention-only backends keep nothing and restore anywhere;
    // recurrent state (Qwen3.5) can only return to positions it saved.
    // Marks `pos` (the number of tokens processed) as a turn boundary worth keeping.
    virtual void checkpoint(int32_t /*pos*/) {}
    // Prepares to continue from `pos`; returns the position the state was restored to (<= pos;
    // the caller re-runs the tokens in between).
    virtual int32_t rewindTo(int32_t pos) { return pos; }
};

struct CpuBackendParams {
    int32_t threads = 0;       // 0: all hardware threads
    int32_t contextLength = 0; // KV cache positions; 0: the model's, capped at 4096
};

// The model must outlive the backend.
Result<std::unique_ptr<Backend>> createCpuBackend(const LoadedModel& model, const CpuBackendParams& params);

} // namespace hearth
