// The backend factory: a loaded model onto the device kind asked for.
#include "backend/backend.h"

namespace hearth {

Result<std::unique_ptr<DeviceModel>> createDeviceModel(const LoadedModel& model, const DeviceModelParams& params) {
    switch (params.kind) {
    case DeviceKind::Cpu: return createCpuDeviceModel(model, params.threads, params.fastCpuKernels);
    case DeviceKind::Cuda: return createCudaDeviceModel(model, params);
    case DeviceKind::Auto: return invalidArgument("the device must be chosen before a model is placed on it");
    }
    return invalidArgument("unknown device kind");
}

} // namespace hearth
