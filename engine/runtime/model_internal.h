// The engine's own view of a public Model: the loaded model and its weights on the device. For
// runtime/, tools and tests; never part of the public API.
#pragma once

#include "hearth/model.h"

namespace hearth {

struct LoadedModel;
class DeviceModel;

struct ModelAccess {
    static const LoadedModel& loaded(const Model& model);
    static const DeviceModel& device(const Model& model);
    // ModelParams::vramBudgetBytes against a new session of `context` positions (CUDA only).
    static Status checkSessionBudget(const Model& model, int32_t context, KvType kvType);
    // SessionParams::contextLength 0: the model's trained context, capped by what fits now — the
    // VRAM budget, else the GPU's free memory less a margin, on the CPU a quarter of the free RAM.
    static int32_t defaultContextLength(const Model& model, KvType kvType);
};

inline const LoadedModel& loadedModel(const Model& model) { return ModelAccess::loaded(model); }
inline const DeviceModel& deviceModel(const Model& model) { return ModelAccess::device(model); }

} // namespace hearth
