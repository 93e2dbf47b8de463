// Hearth's engine API, all of it: one include for callers that want everything. The parts:
//   hearth/model.h     load a model, what it is, its tokenizer
//   hearth/session.h   generation on a session (KV cache reuse, stop strings, cancel)
//   hearth/sampling.h  how the next token is chosen
//   hearth/quant.h     quant presets and what one would make of a model
//   hearth/memory.h    a session's memory report and the estimate before loading
//   hearth/chat.h      conversations with the model's chat template
//   hearth/devices.h   the CPU and CUDA devices this machine offers
//   hearth/status.h    Status and Result<T>
//   hearth/tokenizer.h a model's tokenizer alone, without its weights
//   hearth/synth.h     random-weight test models of real shapes
#pragma once

#include "hearth/chat.h"
#include "hearth/devices.h"
#include "hearth/memory.h"
#include "hearth/model.h"
#include "hearth/quant.h"
#include "hearth/sampling.h"
#include "hearth/session.h"
#include "hearth/status.h"
#include "hearth/synth.h"
#include "hearth/tokenizer.h"
