// How the next token is chosen: one set of settings shared by Session::generate (through
// GenerateParams::sampling) and the engine's sampler. Qt-free. The defaults are greedy with every
// filter off, so a default request is deterministic; chatDefaults() is what a chat front end
// starts from.
#pragma once

#include <cstdint>

namespace hearth {

struct SamplingParams {
    // Softmax temperature. <= 0: greedy (the argmax, lowest id among equal maxima). Finite.
    float temperature = 0.0f;
    // Keep only the k most likely tokens. 0 = off. >= 0.
    int32_t topK = 0;
    // Keep the smallest set of most likely tokens whose probabilities sum to topP (at least one).
    // 1 = off. In (0, 1]. Applied over the top-k survivors when both are set.
    float topP = 1.0f;
    // Keep tokens at least minP times as likely as the most likely one. 0 = off. In [0, 1].
    float minP = 0.0f;
    // Penalty on recently seen tokens (prompt included): a positive logit is divided by it, a
    // negative one multiplied, each distinct token of the window once. 1 = off. Finite, > 0.
    float repetitionPenalty = 1.0f;
    // How many of the most recent tokens the penalty considers. -1 = all, 0 = none. >= -1.
    int32_t repetitionWindow = 64;
    // Seed of the random generator; every value (0 included) is a distinct stream.
    uint64_t seed = 0;

    // The chat settings hearth-cli chat and the app start from: temperature 0.7, top-k 20,
    // top-p 0.8 (the Qwen3 model cards' non-thinking recommendation), everything else as above.
    static SamplingParams chatDefaults() {
        SamplingParams p;
        p.temperature = 0.7f;
        p.topK = 20;
        p.topP = 0.8f;
        return p;
    }
};

} // namespace hearth
