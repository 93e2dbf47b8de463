// Whether this process's GPU can still be used, and the test-only faults that prove the engine
// survives when it cannot. A CUDA error is either non-sticky (out of memory in a workspace, a bad
// argument: the request fails, the session is reset and goes on) or sticky (illegal address,
// launch failure: the context is dead until the process restarts). After a sticky error every
// call of the module fails with DeviceLost and the reason, without touching CUDA again.
//
// HEARTH_FAULT=oom-load|oom-step|nonsticky|sticky (read once) injects each case:
//   oom-load   the model load fails with OutOfMemory after its weights were allocated
//   oom-step   the HEARTH_FAULT_STEP-th decode (default 2) fails with OutOfMemory
//   nonsticky  that decode makes a real non-sticky CUDA error (an invalid copy)
//   sticky     that decode writes to an illegal address
#pragma once

#include <cuda_runtime.h>

#include "hearth/status.h"

namespace hearth::cuda {

enum class Fault { None, OomLoad, OomStep, NonSticky, Sticky };

// The injected fault, from the environment.
Fault injectedFault();
// True once per process at the decode that should fail (counts decode calls).
bool faultStepNow();

// DeviceLost when an earlier call hit a sticky error; ok otherwise.
Status deviceHealth();
// After a failed call: if the context is dead, records it and returns DeviceLost with the
// reason; otherwise clears the error state and returns `failed` unchanged.
Status classifyFailure(Status failed);

} // namespace hearth::cuda
