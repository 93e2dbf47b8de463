// Marks the quantizers' inline code as callable from the host and from CUDA kernels, so that the
// CUDA module quantizes on the GPU with the very code the CPU reference runs (the same rounding
// at every step, which is what makes the GPU's blocks equal the CPU's bit for bit). Without
// nvcc the marker is empty.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define HEARTH_HD __host__ __device__
#else
#define HEARTH_HD
#endif

namespace hearth::quant {

HEARTH_HD inline uint32_t floatBits(float f) {
#if defined(__CUDA_ARCH__)
    return __float_as_uint(f);
#else
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
#endif
}

HEARTH_HD inline float floatFromBits(uint32_t u) {
#if defined(__CUDA_ARCH__)
    return __uint_as_float(u);
#else
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
#endif
}

HEARTH_HD inline bool isFiniteFloat(float f) { return (floatBits(f) & 0x7f800000u) != 0x7f800000u; }

HEARTH_HD inline float absFloat(float f) { return floatFromBits(floatBits(f) & 0x7fffffffu); }

// Little-endian stores into a byte buffer (blocks sit at any byte offset).
HEARTH_HD inline void storeLe16(uint8_t* p, uint16_t v) {
    p[0] = uint8_t(v);
    p[1] = uint8_t(v >> 8);
}

} // namespace hearth::quant
