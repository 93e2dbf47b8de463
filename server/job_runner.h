// Runs one request on the model's thread: checks that the prompt fits the context before any of
// it is processed (a 400 naming both sizes otherwise), applies the request's sampling over the
// model's recommendation, and posts the job's events — thinking and answer apart — until it has
// finished or failed. A cancelled job stops at the next token. Qt-free.
#pragma once

#include "hearth/model.h"
#include "server/job.h"
#include "server/model_slot.h"

namespace hearth::server {

// Always posts an ending event (Finished or Failed); never throws.
void runJob(const Model& model, ModelSlot& slot, Job& job);

// The generation settings for `request`: its sampling over the model's recommendation over the
// chat defaults (a random seed when it names none), its stop strings, and at most the rest of
// the context when it sets no max_tokens.
GenerateParams generateParams(const Model& model, const ApiRequest& request, int32_t promptTokens,
                              int32_t contextLength);

} // namespace hearth::server
