// Which SIMD tier the CPU fast kernels use, decided once from the running CPU: the AVX-512 tier
// (AVX-512 F/BW/VL with VNNI), the AVX2 tier (AVX2, FMA, F16C), or the portable scalar code.
// HEARTH_CPU_SIMD=scalar|avx2|avx512 caps it (tests use it to run every tier on one machine).
#pragma once

namespace hearth::cpu {

enum class SimdTier { Scalar, Avx2, Avx512 };

// The best tier this CPU and this build support, capped by HEARTH_CPU_SIMD.
SimdTier simdTier();
const char* simdTierName(SimdTier tier); // "scalar", "avx2", "avx512"
// Whether the build has the tier's code and the CPU runs it.
bool simdTierAvailable(SimdTier tier);

} // namespace hearth::cpu
