// Token sampling on the CPU: greedy, temperature, top-k, top-p, min-p, repetition penalty, seed.
//
// One sample() call runs this fixed chain (the order users expect; the same as Hugging Face's
// and close to llama.cpp's common default chain, except that temperature is applied before
// top-p and min-p, so those two see the distribution that is actually drawn from):
//   1. repetition penalty on a copy of the logits (the caller's logits are never modified);
//   2. temperature <= 0: greedy, return the argmax (lowest index among equal maxima);
//   3. top-k: keep the k highest logits;
//   4. softmax with temperature over the survivors;
//   5. top-p over the survivors sorted by probability: keep the smallest prefix whose
//      cumulative probability reaches topP (at least one token);
//   6. min-p: keep tokens with p >= minP * p_max;
//   7. renormalise and draw one token with the seeded generator.
//
// Non-finite logits: NaN counts as -inf; a -inf token is never returned unless every logit is
// -inf/NaN, in which case sample() returns 0 (the argmax rule, deterministically). +inf counts as
// the largest finite float, so several +inf tokens share the probability equally.
//
// Reproducibility: same seed + same params + same sequence of accept()/sample() calls with the
// same logits -> the same tokens, on any compiler and standard library (the generator and the
// orderings are fully specified; ties are broken by the lower token id).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "hearth/sampling.h"
#include "hearth/status.h"
#include "sampling/rng.h"

namespace hearth {

// Turns a logits vector into a token id. One per session; it keeps the token history for the
// repetition penalty and the generator state.
//
// Thread safety: owner thread only (one thread at a time; no internal locking). Distinct
// Sampler objects are independent.
// Memory: sample() reuses member buffers; after the first call with a given vocabulary size it
// does not allocate (with repetitionWindow -1 the penalty's scratch still grows with the history).
// Cost over 151936 tokens: one pass with top-k or greedy; top-p without top-k sorts the nucleus,
// which is slow (milliseconds) on flat distributions. accept() appends to the history (amortised O(1); with repetitionWindow -1
// the history grows by one int per token until reset()).
class Sampler {
public:
    // Takes a copy of `params`. Does not fail: values that validate() would reject are treated
    // as "off" (NaN temperature -> greedy, bad topK/topP/minP/penalty/window -> disabled), so a
    // Sampler never crashes on bad settings; call validate() first to tell the user instead.
    explicit Sampler(const SamplingParams& params);

    // Checks every field. Returns InvalidArgument naming the first bad field and its value
    // ("sampling topP must be in (0, 1], got 1.5"), or ok. Negative temperature is valid
    // (greedy). May be called from any thread.
    static Status validate(const SamplingParams& params);

    // The params as given to the constructor (not the sanitised values).
    const SamplingParams& params() const { return m_params; }

    // Picks the next token from `logits` (one float per vocabulary entry) following the chain in
    // the file comment, using the accepted history for the penalty. Returns a token id in
    // [0, logits.size()), 0 if every logit is -inf/NaN, or -1 if `logits` is empty (a caller
    // bug). Does not add the token to the history: call accept() with the token actually used.
    // Every non-greedy call consumes exactly one random number, whatever the distribution, so the
    // stream position depends only on the number of calls. History tokens outside
    // [0, logits.size()) are ignored. Owner thread only.
    int32_t sample(std::span<const float> logits);

    // For a backend that picks candidates where the logits are (the CUDA backend): what it must
    // do there, and the rest of the chain here, so that the result is exactly sample()'s.
    //  - deviceTopK(): k when this sampler's candidates are the k best tokens (top-k on and not
    //    greedy), else 0 (greedy, or top-k off: the backend returns an argmax or all logits).
    //  - penaltyTokens(): the distinct ids the repetition penalty divides/multiplies now (empty
    //    when off), sorted; the backend penalises a copy of the logits with penalty() first.
    //  - sampleCandidates(): given the best tokens after the penalty (NaN and -inf left out, +inf
    //    clamped to FLT_MAX, best first, ties by lower id: at most deviceTopK() of them), runs
    //    softmax, top-p, min-p and the draw, consuming one random number as sample() does.
    int32_t deviceTopK() const { return m_greedy || m_topK <= 0 ? 0 : m_topK; }
    const std::vector<int32_t>& penaltyTokens();
    float penalty() const { return m_penalty; }
    int32_t sampleCandidates(std::span<const int32_t> ids, std::span<const float> logits);

    // Appends `token` to the repetition history. Feed prompt tokens too, so the penalty sees
    // them. Any value is accepted (out-of-vocabulary ids are ignored by sample()). Owner thread.
    void accept(int32_t token);

    // Clears the history and restarts the generator from params().seed, so the next calls
    // reproduce those of a freshly constructed Sampler. Keeps buffer capacity. Owner thread.
    void reset();

private:
    struct Candidate {
        float logit;  // after penalty and +inf clamping
        int32_t id;   // token id
        double p;     // unnormalised probability after softmax with temperature
    };
    // The ranking every stage uses: higher logit first, then lower id (a strict total order, so
    // results do not depend on the standard library's sort algorithms).
    static bool ranksBefore(const Candidate& a, const Candidate& b) {
        return a.logit > b.logit || (a.logit == b.logit && a.id < b.id);
    }

    std::span<const float> penalisedCopy(std::span<const float> logits);
    float minPFloor(std::span<const float> logits) const;
    void loadCandidates(std::span<const float> logits, float floor);
    void selectTopK(std::span<const float> logits);
    void sortPrefix(size_t count);
    void applySoftmax();
    void applyTopP();
    void applyMinP();
    int32_t draw(double u) const;

    SamplingParams m_params;
    // Sanitised settings actually used (see the constructor).
    bool m_greedy = false;
    double m_temperature = 1.0;
    int32_t m_topK = 0;
    double m_topP = 1.0;
    double m_minP = 0.0;
    float m_penalty = 1.0f;
    int32_t m_window = 0;

    Xoshiro256 m_rng;
    std::vector<int32_t> m_history;
    // Scratch reused across calls (no allocation in the decode loop).
    std::vector<int32_t> m_penalised;
    std::vector<float> m_logits; // penalised copy of the caller's logits
    std::vector<Candidate> m_candidates;
    size_t m_sortedCount = 0; // m_candidates[0, m_sortedCount) is sorted, best first
};

} // namespace hearth
