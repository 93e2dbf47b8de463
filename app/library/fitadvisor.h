// Will a catalog model fit: the engine's estimate from the family's published shape (no file is
// needed: hearth::estimateMemoryForShape) against the chosen device's total and free memory, the
// largest context that fits, the variant to recommend for this machine, and on the CPU an honest
// speed class from the bytes each token reads against the memory's bandwidth. Plain values and
// functions; any thread.
#pragma once

#include <QList>
#include <QString>

#include "catalog.h"
#include "hearth/devices.h"
#include "hearth/memory.h"

enum class FitVerdict {
    Unknown,    // no estimate: the architecture is not supported yet, the catalog does not know the
                // model's sizes (VariantFit::sizesUnknown), or the engine refused the shape
    Fits,
    Tight,      // fits, but with little to spare, or only once other programs free memory
    DoesNotFit, // more than the device holds at the chosen context
};
const char* fitVerdictName(FitVerdict verdict); // "unknown", "fits", "tight", "no"

// Where the model would run and how.
struct FitTarget {
    hearth::DeviceInfo device;     // a CUDA device (total and free VRAM) or the CPU (RAM)
    int context = 0;               // the context asked for; 0: the model's own, capped at 4096
    hearth::KvType kvType = hearth::KvType::F16;
    quint64 budgetBytes = 0;       // on a GPU, the most Hearth may use; 0: all of it
    quint64 freedBytes = 0;        // what the model loaded now holds (a load frees it first)
    // CPU only: the memory bandwidth the speed class is worked out from, in bytes per second.
    // 0: kDefaultCpuBandwidth, a typical dual-channel desktop (stated as an assumption).
    double cpuBandwidth = 0;
};
inline constexpr double kDefaultCpuBandwidth = 50e9;
// This machine's memory read bandwidth in bytes per second, measured on the first call (half a
// second to a second: hearth::measureCpuReadBandwidthGBps) and remembered; kDefaultCpuBandwidth when it
// cannot be measured. Any thread; call it off the UI thread.
double measuredCpuBandwidth();
// Below this share of the available memory left over, a fit is tight.
inline constexpr double kTightHeadroom = 0.10;
// The context a recommended variant must reach (or the model's own, when shorter).
inline constexpr int kRecommendedContext = 16384;

enum class SpeedClass { Unknown, Fast, Usable, Slow, VerySlow };
const char* speedClassName(SpeedClass speed); // "unknown", "fast", "usable", "slow", "very-slow"

struct VariantFit {
    FitVerdict verdict = FitVerdict::Unknown;
    QString error;             // why there is no estimate (the engine's words)
    bool sizesUnknown = false; // Unknown because the catalog lacks sizes: nothing to estimate from
    int context = 0;           // the context the figures are for
    quint64 totalBytes = 0;    // weights, KV cache, workspace, device context at `context`
    quint64 weightsBytes = 0;
    quint64 availableBytes = 0; // free (plus what a load frees), within the budget
    int maxContext = 0;        // the largest context that fits now; 0: none
    bool needsFreeing = false; // fits the device, not its free memory: other programs hold memory
    // CPU: the most tokens per second a decode can reach (bandwidth / bytes read per token).
    double tokensPerSecond = 0;
    SpeedClass speed = SpeedClass::Unknown;
};

// The estimate for one variant of `family` on `target`.
VariantFit estimateVariantFit(const CatalogFamily& family, const CatalogVariant& variant, const FitTarget& target);
// Classifies a total against the memory: the rules behind estimateVariantFit's verdict.
FitVerdict classifyFit(quint64 totalBytes, quint64 availableBytes, quint64 deviceTotalBytes, quint64 budgetBytes);
SpeedClass speedClassFor(double tokensPerSecond);

// The variant to recommend (an index into `fits`, one per variant of `family`), -1 when none: the
// one with the most weight bytes (the highest quality) that fits with at least
// kRecommendedContext tokens of context; a comfortable fit beats a tight one. On the CPU a variant
// of at least the Usable speed class beats a slower one, and among slow ones the fastest wins.
int recommendedVariant(const CatalogFamily& family, const QList<VariantFit>& fits);

// The engine's shape from the catalog's.
hearth::ModelShape engineShape(const CatalogShape& shape);
// The parameter count the shape implies (attention or Gated DeltaNet mixers, feed-forward,
// embeddings and head); 0 when a size is unknown.
quint64 shapeParameterCount(const CatalogShape& shape);
