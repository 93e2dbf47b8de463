#include "backend/cpu/simd/cpu_features.h"

#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace hearth::cpu {

bool simdTierAvailable(SimdTier tier) {
    switch (tier) {
    case SimdTier::Scalar: return true;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    case SimdTier::Avx2:
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
    case SimdTier::Avx512:
        return simdTierAvailable(SimdTier::Avx2) && __builtin_cpu_supports("avx512f") &&
               __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
               __builtin_cpu_supports("avx512vnni");
#else
    default: return false;
#endif
    }
    return false;
}

SimdTier simdTier() {
    static const SimdTier tier = [] {
        SimdTier cap = SimdTier::Avx512;
        if (const char* env = std::getenv("HEARTH_CPU_SIMD")) {
            if (std::strcmp(env, "scalar") == 0) cap = SimdTier::Scalar;
            if (std::strcmp(env, "avx2") == 0) cap = SimdTier::Avx2;
        }
        for (SimdTier t : {SimdTier::Avx512, SimdTier::Avx2})
            if (int(t) <= int(cap) && simdTierAvailable(t)) return t;
        return SimdTier::Scalar;
    }();
    return tier;
}

const char* simdTierName(SimdTier tier) {
    switch (tier) {
    case SimdTier::Scalar: return "scalar";
    case SimdTier::Avx2: return "avx2";
    case SimdTier::Avx512: return "avx512";
    }
    return "scalar";
}

} // namespace hearth::cpu
