// One block of floats → one GGUF block, for every block type Hearth produces: the CPU reference
// (quant_legacy.cpp and quant_k.cpp loop over blocks with these) and, compiled by nvcc into the
// CUDA module, the GPU quantizer that converts 16-bit weights at load. Bytes are written at the
// offsets of quant/blocks.h's structs, never through a packed struct, so the same code is safe
// in device memory at any byte offset.
//
// The methods are Hearth's own: least-squares scale searches (quant_fit.h); for the K types the
// sub-block scales are then rounded to their stored width and the elements re-gridded against the
// scales as stored, so that the error is measured against what a reader decodes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "quant/blocks.h"
#include "quant/host_device.h"
#include "quant/quant_fit.h"

namespace hearth::quant {

// Candidate divisors per side for the scale searches: Q8_0's error is dominated by rounding, so a
// few suffice; 4/5-bit grids gain from trading the extreme element against the rest.
constexpr int kTriesQ8 = 4;
constexpr int kTriesQ4Q5 = 10;
constexpr int kTriesK = 10;

// ---- 32-element blocks: Q8_0, Q4_0, Q5_0 -------------------------------------------------------

// The q of every element of a block for scale d (fp16-rounded), clamped to [lo, hi].
HEARTH_HD inline void gridValues(const float* x, float d, float lo, float hi, int* q) {
    const float inv = d != 0.0f ? 1.0f / d : 0.0f;
    for (int j = 0; j < kQK; ++j) q[j] = int(clampf(roundNearest(x[j] * inv), lo, hi));
}

HEARTH_HD inline void quantizeBlockQ8_0(const float* x, uint8_t* out) {
    float d = 0.0f;
    storeLe16(out + offsetof(BlockQ8_0, d), storeHalfScale(fitSymmetric(x, kQK, -127, 127, kTriesQ8), d));
    int q[kQK];
    gridValues(x, d, -127.0f, 127.0f, q);
    for (int j = 0; j < kQK; ++j) out[offsetof(BlockQ8_0, qs) + j] = uint8_t(int8_t(q[j]));
}

HEARTH_HD inline void quantizeBlockQ4_0(const float* x, uint8_t* out) {
    float d = 0.0f;
    storeLe16(out + offsetof(BlockQ4_0, d), storeHalfScale(fitSymmetric(x, kQK, -8, 7, kTriesQ4Q5), d));
    int q[kQK];
    gridValues(x, d, -8.0f, 7.0f, q);
    for (int j = 0; j < kQK / 2; ++j) out[offsetof(BlockQ4_0, qs) + j] = uint8_t((q[j] + 8) | (q[j + 16] + 8) << 4);
}

HEARTH_HD inline void quantizeBlockQ5_0(const float* x, uint8_t* out) {
    float d = 0.0f;
    storeLe16(out + offsetof(BlockQ5_0, d), storeHalfScale(fitSymmetric(x, kQK, -16, 15, kTriesQ4Q5), d));
    int q[kQK];
    gridValues(x, d, -16.0f, 15.0f, q);
    uint32_t qh = 0;
    for (int j = 0; j < kQK; ++j) {
        q[j] += 16;
        qh |= uint32_t(q[j] >> 4) << j;
    }
    for (int j = 0; j < kQK / 2; ++j) out[offsetof(BlockQ5_0, qs) + j] = uint8_t((q[j] & 0xF) | (q[j + 16] & 0xF) << 4);
    for (int i = 0; i < 4; ++i) out[offsetof(BlockQ5_0, qh) + i] = uint8_t(qh >> (8 * i));
}

// ---- 256-element super-blocks: Q4_K, Q5_K, Q6_K ------------------------------------------------

// Grid values of x ≈ ds·q − dm (ds, dm: the float products the dequantizer forms).
HEARTH_HD inline void affineGrid(const float* x, int n, float ds, float dm, int qmax, uint8_t* q) {
    const float inv = ds > 0.0f ? 1.0f / ds : 0.0f;
    for (int i = 0; i < n; ++i) q[i] = uint8_t(clampf(roundNearest((x[i] + dm) * inv), 0.0f, float(qmax)));
}

HEARTH_HD inline float affineError(const float* x, int n, float ds, float dm, int qmax) {
    const float inv = ds > 0.0f ? 1.0f / ds : 0.0f;
    float err = 0.0f;
    for (int i = 0; i < n; ++i) {
        const float q = clampf(roundNearest((x[i] + dm) * inv), 0.0f, float(qmax));
        const float e = ds * q - dm - x[i];
        err += e * e;
    }
    return err;
}

// x ≈ ds·q with q in [−32, 31] (Q6_K); symmetricGrid stores q + 32.
HEARTH_HD inline float symmetricError(const float* x, int n, float ds) {
    const float inv = ds != 0.0f ? 1.0f / ds : 0.0f;
    float err = 0.0f;
    for (int i = 0; i < n; ++i) {
        const float e = ds * clampf(roundNearest(x[i] * inv), -32.0f, 31.0f) - x[i];
        err += e * e;
    }
    return err;
}

HEARTH_HD inline void symmetricGrid(const float* x, int n, float ds, uint8_t* q) {
    const float inv = ds != 0.0f ? 1.0f / ds : 0.0f;
    for (int i = 0; i < n; ++i) q[i] = uint8_t(clampf(roundNearest(x[i] * inv), -32.0f, 31.0f) + 32.0f);
}

// Q4_K/Q5_K share everything but the 5th bit: fits the 8 sub-blocks, writes d, dmin and the packed
// scales at `out` (the two types' headers coincide), and leaves 256 values in [0, 2^Bits − 1] in q.
template <int Bits>
HEARTH_HD inline void quantizeAffineSuperBlock(const float* x, uint8_t* out, uint8_t* q) {
    constexpr int kQMax = (1 << Bits) - 1;
    constexpr int kSub = 32;
    float scale[8];
    float min[8];
    float maxScale = 0.0f;
    float maxMin = 0.0f;
    for (int j = 0; j < 8; ++j) {
        fitAffine(x + j * kSub, kSub, kQMax, kTriesK, scale[j], min[j]);
        maxScale = scale[j] > maxScale ? scale[j] : maxScale;
        maxMin = min[j] > maxMin ? min[j] : maxMin;
    }
    float d = 0.0f;
    float dmin = 0.0f;
    storeLe16(out + offsetof(BlockQ4_K, d), storeHalfScale(maxScale / 63.0f, d));
    storeLe16(out + offsetof(BlockQ4_K, dmin), storeHalfScale(maxMin / 63.0f, dmin));
    // Rounding each 6-bit scale and min on its own loses about 3 % of accuracy; trying the
    // neighbouring codes against the elements as they will be re-gridded wins most of it back.
    uint8_t ls[8];
    uint8_t lm[8];
    for (int j = 0; j < 8; ++j) {
        const float* xs = x + j * kSub;
        const int rs = d > 0.0f ? int(clampf(roundNearest(scale[j] / d), 0.0f, 63.0f)) : 0;
        const int rm = dmin > 0.0f ? int(clampf(roundNearest(min[j] / dmin), 0.0f, 63.0f)) : 0;
        ls[j] = uint8_t(rs);
        lm[j] = uint8_t(rm);
        float bestErr = -1.0f;
        for (int cs = rs - 1; cs <= rs + 1; ++cs) {
            if (cs < 0 || cs > 63 || (d == 0.0f && cs != 0)) continue;
            for (int cm = rm - 1; cm <= rm + 1; ++cm) {
                if (cm < 0 || cm > 63 || (dmin == 0.0f && cm != 0)) continue;
                const float err = affineError(xs, kSub, d * float(cs), dmin * float(cm), kQMax);
                if (bestErr < 0.0f || err < bestErr) {
                    bestErr = err;
                    ls[j] = uint8_t(cs);
                    lm[j] = uint8_t(cm);
                }
            }
        }
    }
    packScaleMins(ls, lm, out + offsetof(BlockQ4_K, scales));
    for (int j = 0; j < 8; ++j)
        affineGrid(x + j * kSub, kSub, d * float(ls[j]), dmin * float(lm[j]), kQMax, q + j * kSub);
}

HEARTH_HD inline void quantizeBlockQ4_K(const float* x, uint8_t* out) {
    uint8_t q[kQKK];
    quantizeAffineSuperBlock<4>(x, out, q);
    uint8_t* qs = out + offsetof(BlockQ4_K, qs);
    for (int c = 0; c < 4; ++c)
        for (int l = 0; l < 32; ++l) qs[32 * c + l] = uint8_t(q[64 * c + l] | q[64 * c + 32 + l] << 4);
}

HEARTH_HD inline void quantizeBlockQ5_K(const float* x, uint8_t* out) {
    uint8_t q[kQKK];
    quantizeAffineSuperBlock<5>(x, out, q);
    uint8_t* qs = out + offsetof(BlockQ5_K, qs);
    uint8_t* qh = out + offsetof(BlockQ5_K, qh);
    for (int l = 0; l < kQKK / 8; ++l) qh[l] = 0;
    for (int c = 0; c < 4; ++c) {
        for (int l = 0; l < 32; ++l) {
            const uint8_t lo = q[64 * c + l];
            const uint8_t hi = q[64 * c + 32 + l];
            qs[32 * c + l] = uint8_t((lo & 0xF) | (hi & 0xF) << 4);
            qh[l] |= uint8_t((lo >> 4) << (2 * c) | (hi >> 4) << (2 * c + 1));
        }
    }
}

HEARTH_HD inline void quantizeBlockQ6_K(const float* x, uint8_t* out) {
    constexpr int kSub = 16;
    // Each sub-block's scale puts its extreme element on −32; the super-block d then puts the
    // largest-magnitude sub-block scale on −128 (int8 scales are signed).
    float scale[16];
    float extreme = 0.0f;
    for (int j = 0; j < 16; ++j) {
        scale[j] = fitSymmetric(x + j * kSub, kSub, -32, 31, kTriesK);
        if (absFloat(scale[j]) > absFloat(extreme)) extreme = scale[j];
    }
    float d = 0.0f;
    storeLe16(out + offsetof(BlockQ6_K, d), storeHalfScale(extreme / -128.0f, d));
    uint8_t q[kQKK]; // stored values, q + 32
    for (int j = 0; j < 16; ++j) {
        // As for Q4_K: the best of the neighbouring int8 codes, judged on the final grid.
        const float* xs = x + j * kSub;
        const int r = d != 0.0f ? int(clampf(roundNearest(scale[j] / d), -128.0f, 127.0f)) : 0;
        int best = r;
        float bestErr = -1.0f;
        for (int c = r - 1; c <= r + 1; ++c) {
            if (c < -128 || c > 127 || (d == 0.0f && c != 0)) continue;
            const float err = symmetricError(xs, kSub, d * float(c));
            if (bestErr < 0.0f || err < bestErr) {
                bestErr = err;
                best = c;
            }
        }
        out[offsetof(BlockQ6_K, scales) + j] = uint8_t(int8_t(best));
        symmetricGrid(xs, kSub, d * float(best), q + j * kSub);
    }
    for (int half = 0; half < 2; ++half) {
        const uint8_t* e = q + 128 * half;
        uint8_t* ql = out + offsetof(BlockQ6_K, ql) + 64 * half;
        uint8_t* qh = out + offsetof(BlockQ6_K, qh) + 32 * half;
        for (int l = 0; l < 32; ++l) {
            ql[l] = uint8_t((e[l] & 0xF) | (e[l + 64] & 0xF) << 4);
            ql[l + 32] = uint8_t((e[l + 32] & 0xF) | (e[l + 96] & 0xF) << 4);
            qh[l] = uint8_t((e[l] >> 4) | (e[l + 32] >> 4) << 2 | (e[l + 64] >> 4) << 4 | (e[l + 96] >> 4) << 6);
        }
    }
}

} // namespace hearth::quant
