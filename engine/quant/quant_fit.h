// Scale fitting shared by the quantizers: for a short group of floats, the scale (and min) whose
// uniform grid gives the least squared error. Inline for the host and the GPU (host_device.h):
// the CUDA module's quantizer runs this code, so its arithmetic order is part of the contract.
#pragma once

#include <cstdint>

#include "quant/half.h"
#include "quant/host_device.h"

namespace hearth::quant {

// Rounds to the nearest integer (ties to even) for |v| < 2^22, without a libm call so that loops
// over it vectorise at the baseline instruction set.
HEARTH_HD inline float roundNearest(float v) {
    // Adding 1.5·2^23 pushes the fraction out of the mantissa (the FPU rounds it to even);
    // this relies on the engine never being built with -ffast-math (nor the GPU code with fused
    // multiply-adds contracted), which could fold it away.
    constexpr float kMagic = 12582912.0f;
    return (v + kMagic) - kMagic;
}

// Written as max-then-min so that it maps onto SIMD max/min instructions.
HEARTH_HD inline float clampf(float v, float lo, float hi) {
    const float atLeastLo = v < lo ? lo : v;
    return hi < atLeastLo ? hi : atLeastLo;
}

// Stores a block scale as fp16 (saturating at ±65504 rather than becoming Inf, which
// validateBlocks would reject) and returns, in `rounded`, the value readers will see: the
// elements are then quantized against that value, not the unrounded one.
HEARTH_HD inline uint16_t storeHalfScale(float d, float& rounded) {
    const float kMaxHalf = 65504.0f;
    const uint16_t h = floatToHalf(clampf(d, -kMaxHalf, kMaxHalf));
    rounded = halfToFloat(h);
    return h;
}

// Eight partial sums in a fixed order: without -ffast-math the compiler may only vectorise a
// reduction written this way. Groups are 16 or 32 elements, multiples of kLanes.
constexpr int kLanes = 8;
struct Lanes {
    float v[kLanes] = {};
    HEARTH_HD float total() const { return ((v[0] + v[4]) + (v[1] + v[5])) + ((v[2] + v[6]) + (v[3] + v[7])); }
};

// Symmetric grid x ≈ d·q with q in [lo, hi] (lo < 0 < hi). Returns d, signed so that the
// largest-magnitude element lands on `lo` (ggml's convention for Q4_0/Q5_0/Q6_K, which uses the
// extra negative level), or 0 when the group is all zero. `tries` candidate divisors around
// that starting point are compared by least-squares error; each candidate's d is refitted.
HEARTH_HD inline float fitSymmetric(const float* x, int n, int lo, int hi, int tries) {
    float amax = 0.0f;
    float mx = 0.0f;
    for (int i = 0; i < n; ++i) {
        const float a = absFloat(x[i]);
        if (a > amax) {
            amax = a;
            mx = x[i];
        }
    }
    if (amax == 0.0f) return 0.0f;

    // A symmetric grid (Q8_0) keeps d positive, as ggml writes it; an asymmetric one puts the
    // extreme element on the extra negative level, so its sign decides d's sign.
    const bool symmetric = lo == -hi;
    const float anchor = symmetric ? amax : mx;
    const float end = symmetric ? float(hi) : float(lo);
    const float step = end * 0.0125f;
    const float flo = float(lo);
    const float fhi = float(hi);

    float bestD = anchor / end;
    float bestScore = -1.0f;
    // Error at the least-squares d for a fixed assignment q is Σx² − (Σxq)²/Σq²: maximise the
    // second term. Divisors beyond `end` clip the extreme element, below it coarsen the grid.
    auto tryScale = [&](float d) {
        const float inv = 1.0f / d;
        Lanes sxqLanes, sqqLanes;
        for (int i = 0; i < n; i += kLanes) {
            for (int l = 0; l < kLanes; ++l) {
                const float q = clampf(roundNearest(x[i + l] * inv), flo, fhi);
                sxqLanes.v[l] += x[i + l] * q;
                sqqLanes.v[l] += q * q;
            }
        }
        const float sxq = sxqLanes.total();
        const float sqq = sqqLanes.total();
        if (sqq <= 0.0f) return;
        const float score = sxq * sxq / sqq;
        if (score > bestScore) {
            bestScore = score;
            bestD = sxq / sqq;
        }
    };
    for (int k = -tries; k <= tries; ++k) tryScale(anchor / (end + step * float(k)));
    tryScale(bestD); // one refinement on the refitted scale
    return isFiniteFloat(bestD) ? bestD : anchor / end;
}

// Affine grid x ≈ scale·q − min with q in [0, qmax], scale >= 0, min >= 0 (GGUF's K-type mins
// only shift downwards). Minimises squared error over a small search of grid spacings, each
// refitted by least squares.
HEARTH_HD inline void fitAffine(const float* x, int n, int qmax, int tries, float& scale, float& min) {
    float lo = 0.0f; // mins only shift down: the grid always reaches zero or below
    float hi = x[0];
    float sx = 0.0f;
    float sxx = 0.0f;
    for (int i = 0; i < n; ++i) {
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
        sx += x[i];
        sxx += x[i] * x[i];
    }
    if (!(hi > lo)) { // every element equals lo (<= 0): the min alone represents them
        scale = 0.0f;
        min = -lo;
        return;
    }

    const float fn = float(n);
    const float fqmax = float(qmax);
    const float step = 0.1f * fqmax / 15.0f; // same relative search width for 4 and 5 bits
    float bestScale = (hi - lo) / fqmax;
    float bestOffset = lo;
    float bestErr = floatFromBits(0x7f800000u); // +inf
    for (int k = -tries; k <= tries; ++k) {
        const float iscale = (fqmax + step * float(k)) / (hi - lo);
        Lanes sqLanes, sqqLanes, sxqLanes;
        for (int i = 0; i < n; i += kLanes) {
            for (int l = 0; l < kLanes; ++l) {
                const float q = clampf(roundNearest(iscale * (x[i + l] - lo)), 0.0f, fqmax);
                sqLanes.v[l] += q;
                sqqLanes.v[l] += q * q;
                sxqLanes.v[l] += x[i + l] * q;
            }
        }
        const float sq = sqLanes.total(), sqq = sqqLanes.total(), sxq = sxqLanes.total();
        // Least squares for x ≈ s·q + b over this assignment; b > 0 is not representable
        // (a min is subtracted), so then fit s alone with b = 0.
        const float det = fn * sqq - sq * sq;
        if (!(det > 0.0f)) continue;
        float s = (fn * sxq - sq * sx) / det;
        float b = (sqq * sx - sq * sxq) / det;
        if (b > 0.0f) {
            b = 0.0f;
            s = sxq / sqq;
        }
        if (!(s > 0.0f)) continue;
        const float err = sxx - 2.0f * s * sxq - 2.0f * b * sx + s * s * sqq + 2.0f * s * b * sq +
                          fn * b * b;
        if (err < bestErr) {
            bestErr = err;
            bestScale = s;
            bestOffset = b;
        }
    }
    scale = bestScale;
    min = -bestOffset;
}

} // namespace hearth::quant
