#include "fitestimate.h"

#include <algorithm>

#include "hearth/memory.h"

namespace {

hearth::DeviceKind resolve(DeviceChoice choice)
{
    if (choice != DeviceChoice::Auto)
        return choice == DeviceChoice::Cuda ? hearth::DeviceKind::Cuda : hearth::DeviceKind::Cpu;
    const auto& devices = hearth::probeDevices().devices;
    const bool cuda = std::any_of(devices.begin(), devices.end(),
                                  [](const hearth::DeviceInfo& d) { return d.kind == hearth::DeviceKind::Cuda; });
    return cuda ? hearth::DeviceKind::Cuda : hearth::DeviceKind::Cpu;
}

} // namespace

FitEstimate estimateFit(const FitQuery& q)
{
    FitEstimate fit;
    fit.device = resolve(q.device);
    const int trained = std::max(q.trainedContext, 1);
    // As the worker loads: the chosen context, but no more than the model's own.
    fit.context = q.context > 0 ? std::min(q.context, trained) : std::min(trained, 4096);
    // The CPU backend keeps its KV cache in f32 whatever the setting (hearth/session.h).
    const hearth::KvType kv = fit.device == hearth::DeviceKind::Cuda ? q.kvType : hearth::KvType::F32;
    auto at = [&](int context) { return hearth::estimateMemory(q.path.toStdString(), context, kv, fit.device); };
    const auto chosen = at(fit.context);
    const auto shortest = at(1);
    const auto longest = at(trained);
    if (!chosen.isOk() || !shortest.isOk() || !longest.isOk()) {
        const hearth::Status& failed = !chosen.isOk() ? chosen.status() : !shortest.isOk() ? shortest.status() : longest.status();
        fit.error = QString::fromStdString(failed.message());
        return fit;
    }
    fit.ok = true;
    fit.deviceName = QString::fromStdString(chosen->device.name);
    const auto preset = [&](const hearth::MemoryEstimate& e) {
        return q.weightsBytes > 0 ? e.totalBytes() - e.weightsBytes + q.weightsBytes : e.totalBytes();
    };
    fit.weightsBytes = q.weightsBytes > 0 ? q.weightsBytes : chosen->weightsBytes;
    fit.totalBytes = preset(*chosen);
    double available = double(chosen->device.freeBytes) + double(q.freedBytes);
    if (fit.device == hearth::DeviceKind::Cuda && q.budgetBytes > 0)
        available = std::min(available, double(q.budgetBytes));
    fit.fits = double(fit.totalBytes) <= available;
    // Memory grows linearly with the context (KV cache, attention scores): solve for the longest.
    const double perToken = trained > 1 ? double(preset(*longest) - preset(*shortest)) / (trained - 1) : 0;
    const double base = double(preset(*shortest)) - perToken;
    if (available < base + perToken)
        return fit;
    double longestFitting = perToken > 0 ? (available - base) / perToken : trained;
    if (longestFitting >= trained)
        fit.maxContext = trained;
    else
        fit.maxContext = longestFitting >= 256 ? int(longestFitting) / 256 * 256 : int(longestFitting);
    return fit;
}
