// A check both Qwen3.5 session tests share (cpu.qwen35_state, cuda.cuda_qwen35): a backend session
// with recurrent state refuses a run that does not start where its state is, instead of computing
// on the wrong past, and rewinds to the start, a saved point or the live state as the rules say.
#pragma once

#include <string>

#include "hearth/devices.h"

namespace hearth::test {

void checkRecurrentPositionGuard(const std::string& modelPath, DeviceKind device);

} // namespace hearth::test
