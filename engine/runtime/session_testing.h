// Test seams of Session, outside the public API: the logits of every forward pass (reference
// comparisons) and a delay before each decode step (cancellation tests). Tests only: the public
// way to teacher-forced logits is Session::evaluate.
#pragma once

#include <vector>

#include "hearth/session.h"

namespace hearth {

struct SessionTesting {
    // Session::generate, also appending the logits of every forward pass it runs (the prompt
    // tokens after the reused prefix, then generated tokens) to `allLogits`, row-major
    // [passes x vocab].
    static Result<GenerateResult> generateWithLogits(Session& session, const std::vector<int32_t>& promptIds,
                                                     const GenerateParams& params, std::vector<float>& allLogits);
    // Every session sleeps `ms` before each decode step from now on (0 = off); any thread.
    static void setDecodeDelayMs(int ms);
};

} // namespace hearth
