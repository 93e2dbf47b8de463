#include "fitestimate.h"

#include <algorithm>
#include <functional>

#include "hearth/memory.h"
#include "hearth/model.h"
#include "library/fitadvisor.h"

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

using Estimator = std::function<hearth::Result<hearth::MemoryEstimate>(const hearth::MemoryEstimateParams&)>;

FitEstimate fitWith(const FitQuery& q, const Estimator& estimate)
{
    FitEstimate fit;
    fit.device = resolve(q.device);
    const int trained = std::max(q.trainedContext, 1);
    // As the worker loads: the chosen context, but no more than the model's own.
    fit.context = q.context > 0 ? std::min(q.context, trained) : std::min(trained, 4096);
    const bool gpu = fit.device == hearth::DeviceKind::Cuda;
    auto at = [&](int context) {
        hearth::MemoryEstimateParams p;
        p.path = q.path.toStdString();
        p.contextLength = context;
        p.kvType = q.kvType; // both backends store the KV cache in it
        p.device = fit.device;
        p.quant = q.quant.toStdString();
        p.budgetBytes = gpu ? q.budgetBytes : 0; // the budget is VRAM's
        return estimate(p);
    };
    const auto chosen = at(fit.context);
    if (!chosen.isOk()) {
        fit.error = QString::fromStdString(chosen.status().message());
        return fit;
    }
    fit.ok = true;
    fit.deviceName = QString::fromStdString(chosen->device.name);
    fit.weightsBytes = chosen->weightsBytes;
    fit.totalBytes = chosen->totalBytes();
    if (!gpu) {
        const double bytes = double(chosen->decode.at(fit.context / 2));
        fit.tokensPerSecond = bytes > 0 ? measuredCpuBandwidth() / bytes : 0;
    }
    const auto rounded = [&](double context) {
        if (context >= trained)
            return trained;
        return context >= 256 ? int(context) / 256 * 256 : int(std::max(context, 0.0));
    };
    if (q.freedBytes == 0) { // the engine's own answer
        fit.fits = chosen->fits;
        fit.maxContext = rounded(chosen->largestContext);
        return fit;
    }
    // A load frees the loaded model first, which the engine cannot know: count it as free.
    double available = double(chosen->device.freeBytes) + double(q.freedBytes);
    if (gpu && q.budgetBytes > 0)
        available = std::min(available, double(q.budgetBytes));
    fit.fits = double(fit.totalBytes) <= available;
    // Memory grows linearly with the context (KV cache, attention scores): solve for the longest.
    const auto shortest = at(1);
    const auto longest = at(trained);
    if (!shortest.isOk() || !longest.isOk())
        return fit;
    const double perToken = trained > 1 ? double(longest->totalBytes() - shortest->totalBytes()) / (trained - 1) : 0;
    const double base = double(shortest->totalBytes()) - perToken;
    if (available < base + perToken)
        return fit;
    fit.maxContext = rounded(perToken > 0 ? (available - base) / perToken : trained);
    return fit;
}

} // namespace

FitEstimate estimateFit(const FitQuery& q)
{
    // Up to three estimates of one file: its header is read once.
    auto header = hearth::ModelHeader::read(q.path.toStdString());
    if (header.isOk())
        return estimateFit(q, *header.value());
    return fitWith(q, [&](const hearth::MemoryEstimateParams&) -> hearth::Result<hearth::MemoryEstimate> {
        return header.status();
    });
}

FitEstimate estimateFit(const FitQuery& q, const hearth::ModelHeader& header)
{
    return fitWith(q, [&](const hearth::MemoryEstimateParams& p) { return header.estimateMemory(p); });
}
