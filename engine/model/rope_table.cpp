// RoPE frequencies for each scaling type, as the original papers / reference code define them:
// linear (position interpolation), llama3 (per-wavelength blend), yarn (NTK-by-parts + mscale).
#include <algorithm>
#include <cmath>
#include <numbers>

#include "model/model_config.h"

namespace hearth {

const char* ropeScalingName(RopeScaling scaling) {
    switch (scaling) {
    case RopeScaling::None: return "none";
    case RopeScaling::Linear: return "linear";
    case RopeScaling::Llama3: return "llama3";
    case RopeScaling::Yarn: return "yarn";
    }
    return "unknown";
}

namespace {

// The dimension index at which a frequency completes `rotations` turns over `context` positions.
double yarnCorrectionDim(double rotations, int dims, double base, int context) {
    return dims * std::log(context / (rotations * 2.0 * std::numbers::pi)) / (2.0 * std::log(base));
}

} // namespace

RopeTable computeRopeTable(const RopeParams& rope) {
    const int pairs = rope.dims / 2;
    RopeTable table;
    table.inverseFrequencies.resize(pairs);
    for (int i = 0; i < pairs; ++i)
        table.inverseFrequencies[i] =
            static_cast<float>(1.0 / std::pow(double(rope.theta), 2.0 * i / rope.dims));

    switch (rope.scaling) {
    case RopeScaling::None: break;
    case RopeScaling::Linear:
        for (float& f : table.inverseFrequencies) f /= rope.factor;
        break;
    case RopeScaling::Llama3: {
        const double lowWavelen = rope.originalContext / rope.lowFreqFactor;
        const double highWavelen = rope.originalContext / rope.highFreqFactor;
        for (float& f : table.inverseFrequencies) {
            const double wavelen = 2.0 * std::numbers::pi / f;
            if (wavelen < highWavelen) continue; // high frequencies are kept
            if (wavelen > lowWavelen) {
                f = static_cast<float>(f / rope.factor);
                continue;
            }
            const double smooth = (rope.originalContext / wavelen - rope.lowFreqFactor) /
                                  (rope.highFreqFactor - rope.lowFreqFactor);
            f = static_cast<float>((1.0 - smooth) * f / rope.factor + smooth * f);
        }
        break;
    }
    case RopeScaling::Yarn: {
        double low = std::floor(yarnCorrectionDim(rope.yarnBetaFast, rope.dims, rope.theta, rope.originalContext));
        double high = std::ceil(yarnCorrectionDim(rope.yarnBetaSlow, rope.dims, rope.theta, rope.originalContext));
        low = std::max(low, 0.0);
        high = std::min(high, double(rope.dims - 1));
        if (low == high) high += 0.001; // avoid a zero-width ramp
        for (int i = 0; i < pairs; ++i) {
            const double ramp = std::clamp((i - low) / (high - low), 0.0, 1.0);
            const double extrapolation = 1.0 - ramp; // share of the original frequency
            const double f = table.inverseFrequencies[i];
            table.inverseFrequencies[i] =
                static_cast<float>(f / rope.factor * (1.0 - extrapolation) + f * extrapolation);
        }
        if (rope.yarnAttentionFactor > 0.0f)
            table.magnitude = rope.yarnAttentionFactor;
        else
            table.magnitude = rope.factor <= 1.0f ? 1.0f : static_cast<float>(0.1 * std::log(rope.factor) + 1.0);
        break;
    }
    }
    if (!rope.freqFactors.empty())
        for (int i = 0; i < pairs && i < int(rope.freqFactors.size()); ++i)
            table.inverseFrequencies[i] /= rope.freqFactors[i];
    return table;
}

} // namespace hearth
