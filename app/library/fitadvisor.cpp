#include "fitadvisor.h"

#include <algorithm>
#include <mutex>

#include "hearth/devices.h"

double measuredCpuBandwidth()
{
    static std::once_flag once;
    static double bytesPerSecond = kDefaultCpuBandwidth;
    std::call_once(once, [] {
        const double gbps = hearth::measureCpuReadBandwidthGBps();
        if (gbps > 0)
            bytesPerSecond = gbps * 1e9;
    });
    return bytesPerSecond;
}

const char* fitVerdictName(FitVerdict verdict)
{
    switch (verdict) {
    case FitVerdict::Fits: return "fits";
    case FitVerdict::Tight: return "tight";
    case FitVerdict::DoesNotFit: return "no";
    case FitVerdict::Unknown: break;
    }
    return "unknown";
}

const char* speedClassName(SpeedClass speed)
{
    switch (speed) {
    case SpeedClass::Fast: return "fast";
    case SpeedClass::Usable: return "usable";
    case SpeedClass::Slow: return "slow";
    case SpeedClass::VerySlow: return "very-slow";
    case SpeedClass::Unknown: break;
    }
    return "unknown";
}

hearth::ModelShape engineShape(const CatalogShape& s)
{
    hearth::ModelShape shape;
    shape.architecture = s.architecture.toStdString();
    shape.vocabSize = s.vocab;
    shape.hidden = s.hidden;
    shape.layers = s.layers;
    shape.heads = s.heads;
    shape.kvHeads = s.kvHeads;
    shape.headDim = s.headDim;
    shape.ffn = s.ffn;
    shape.contextLength = s.context;
    shape.tiedEmbeddings = s.tiedEmbeddings;
    shape.ropeDims = s.ropeDims;
    shape.linearKeyHeads = s.linearKeyHeads;
    shape.linearValueHeads = s.linearValueHeads;
    shape.linearKeyDim = s.linearKeyDim;
    shape.linearValueDim = s.linearValueDim;
    if (s.linearConvKernel > 0) // else the engine's default
        shape.linearConvKernel = s.linearConvKernel;
    if (s.fullAttentionInterval > 0)
        shape.fullAttentionInterval = s.fullAttentionInterval;
    return shape;
}

quint64 shapeParameterCount(const CatalogShape& s)
{
    if (!s.sizesKnown())
        return 0;
    const quint64 hidden = quint64(s.hidden), q = quint64(s.heads) * quint64(s.headDim);
    const quint64 kv = quint64(s.kvHeads) * quint64(s.headDim);
    // Q and O, K and V; a hybrid's gated attention projects a gate beside each query.
    const quint64 attention = hidden * q * (s.hybrid() ? 3 : 2) + hidden * kv * 2;
    const quint64 feedForward = 3 * hidden * quint64(s.ffn);
    const quint64 embeddings = quint64(s.vocab) * hidden * (s.tiedEmbeddings ? 1 : 2);
    quint64 layers = quint64(s.layers) * (attention + feedForward);
    if (s.hybrid()) {
        // The DeltaNet layers: q|k|v and the gate z in, b and a per value head, the output back,
        // the conv's weights over q|k|v.
        const int interval = s.fullAttentionInterval > 0 ? s.fullAttentionInterval : 4;
        const quint64 deltaNetLayers = quint64(s.layers - s.layers / interval);
        const quint64 keys = quint64(s.linearKeyHeads) * quint64(s.linearKeyDim);
        const quint64 values = quint64(s.linearValueHeads) * quint64(s.linearValueDim);
        const quint64 conv = quint64(s.linearConvKernel > 0 ? s.linearConvKernel : 4);
        const quint64 deltaNet = hidden * (2 * keys + values) + hidden * values + 2 * hidden * quint64(s.linearValueHeads) +
                                 values * hidden + conv * (2 * keys + values);
        layers += deltaNetLayers * (deltaNet - attention);
    }
    return layers + embeddings;
}

FitVerdict classifyFit(quint64 total, quint64 available, quint64 deviceTotal, quint64 budget)
{
    const quint64 ceiling = budget > 0 ? std::min(budget, deviceTotal) : deviceTotal;
    if (total > ceiling)
        return FitVerdict::DoesNotFit;
    if (total > available) // the device holds it, but not with what is free now
        return FitVerdict::Tight;
    return double(available - total) < kTightHeadroom * double(available) ? FitVerdict::Tight : FitVerdict::Fits;
}

SpeedClass speedClassFor(double tokensPerSecond)
{
    if (tokensPerSecond <= 0)
        return SpeedClass::Unknown;
    if (tokensPerSecond >= 20)
        return SpeedClass::Fast;
    if (tokensPerSecond >= 8)
        return SpeedClass::Usable;
    if (tokensPerSecond >= 2)
        return SpeedClass::Slow;
    return SpeedClass::VerySlow;
}

VariantFit estimateVariantFit(const CatalogFamily& family, const CatalogVariant& variant, const FitTarget& target)
{
    VariantFit fit;
    const int trained = std::max(family.shape.context, 1);
    fit.context = target.context > 0 ? std::min(target.context, trained) : std::min(trained, 4096);
    if (!variant.requiresArch.isEmpty()) {
        fit.error = QStringLiteral("needs the %1 architecture, which this Hearth does not run yet").arg(variant.requiresArch);
        return fit;
    }
    if (!family.shape.sizesKnown()) {
        fit.sizesUnknown = true;
        fit.error = QStringLiteral("the catalog does not know this model's sizes, so its memory cannot be estimated");
        return fit;
    }
    hearth::MemoryEstimateParams p;
    p.contextLength = fit.context;
    p.kvType = target.kvType;
    p.quant = variant.quant.toStdString();
    const bool gpu = target.device.kind == hearth::DeviceKind::Cuda;
    // The loaded model's memory counts as free: a load releases it first.
    hearth::DeviceInfo device = target.device;
    device.freeBytes = std::min<uint64_t>(device.totalBytes, device.freeBytes + target.freedBytes);
    p.budgetBytes = gpu ? target.budgetBytes : 0;
    const auto estimate = hearth::estimateMemoryForShape(engineShape(family.shape), p, device);
    if (!estimate.isOk()) {
        fit.error = QString::fromStdString(estimate.status().message());
        return fit;
    }
    fit.totalBytes = estimate->totalBytes();
    fit.weightsBytes = estimate->weightsBytes;
    fit.availableBytes = estimate->availableBytes;
    fit.maxContext = estimate->largestContext;
    fit.verdict = classifyFit(fit.totalBytes, fit.availableBytes, device.totalBytes, p.budgetBytes);
    fit.needsFreeing = fit.verdict == FitVerdict::Tight && fit.totalBytes > fit.availableBytes;
    if (!gpu) {
        // Decoding reads every weight and the cache once per token: memory bandwidth bounds it.
        const double bandwidth = target.cpuBandwidth > 0 ? target.cpuBandwidth : kDefaultCpuBandwidth;
        const double bytes = double(estimate->decode.at(fit.context / 2));
        fit.tokensPerSecond = bytes > 0 ? bandwidth / bytes : 0;
        fit.speed = speedClassFor(fit.tokensPerSecond);
    }
    return fit;
}

int recommendedVariant(const CatalogFamily& family, const QList<VariantFit>& fits)
{
    const int wanted = std::min(kRecommendedContext, std::max(family.shape.context, 1));
    int best = -1;
    // On the CPU speed matters first: a quant that reads at a usable pace beats a better one that crawls.
    auto usable = [&](int i) { return fits[i].speed == SpeedClass::Unknown || fits[i].speed <= SpeedClass::Usable; };
    auto better = [&](int i) {
        if (best < 0)
            return true;
        const bool comfortable = fits[i].verdict == FitVerdict::Fits, bestComfortable = fits[best].verdict == FitVerdict::Fits;
        if (comfortable != bestComfortable)
            return comfortable;
        if (usable(i) != usable(best))
            return usable(i);
        // Among usable ones the best quant (most bytes); among slow ones the fastest (fewest).
        return usable(i) ? fits[i].weightsBytes > fits[best].weightsBytes : fits[i].weightsBytes < fits[best].weightsBytes;
    };
    for (int i = 0; i < fits.size() && i < family.variants.size(); ++i) {
        const VariantFit& f = fits[i];
        const bool eligible = (f.verdict == FitVerdict::Fits || (f.verdict == FitVerdict::Tight && !f.needsFreeing)) &&
                              f.maxContext >= wanted;
        if (eligible && better(i))
            best = i;
    }
    return best;
}
