// The backend factory: a loaded model onto the device kind asked for.
#include "backend/backend.h"

namespace hearth {

Result<std::unique_ptr<DeviceModel>> createDeviceModel(const LoadedModel& model, const DeviceModelParams& params) {
    switch (params.kind) {
    case DeviceKind::Cpu: return createCpuDeviceModel(model, params.threads);
    case DeviceKind::Cuda:
        return unsupported("the CUDA backend cannot run models yet in this version; use --device cpu");
    }
    return invalidArgument("unknown device kind");
}

} // namespace hearth
