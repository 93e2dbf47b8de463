#include "quant/quant_fit.h"

#include <cmath>
#include <limits>

namespace hearth::quant {
namespace {

// Eight partial sums in a fixed order: without -ffast-math the compiler may only vectorise a
// reduction written this way. Groups are 16 or 32 elements, multiples of kLanes.
constexpr int kLanes = 8;
struct Lanes {
    float v[kLanes] = {};
    float total() const { return ((v[0] + v[4]) + (v[1] + v[5])) + ((v[2] + v[6]) + (v[3] + v[7])); }
};

} // namespace

float fitSymmetric(const float* x, int n, int lo, int hi, int tries) {
    float amax = 0.0f;
    float mx = 0.0f;
    for (int i = 0; i < n; ++i) {
        const float a = std::fabs(x[i]);
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
    return std::isfinite(bestD) ? bestD : anchor / end;
}

void fitAffine(const float* x, int n, int qmax, int tries, float& scale, float& min) {
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
    float bestErr = std::numeric_limits<float>::infinity();
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
