// Q4_K, Q5_K, Q6_K: 256-element super-blocks whose sub-block scales (and mins) are themselves
// quantized against one fp16 d (and dmin). Dequantization follows ggml's arithmetic exactly
// ((d·sc)·q − dmin·m); quantization is Hearth's own: a least-squares fit per sub-block, then the
// sub-block scales rounded to 6 bits (int8 for Q6_K) and the elements re-gridded against the
// scales as stored, so that the error is measured against what a reader will decode.
#include <cmath>
#include <cstring>

#include "quant/blocks.h"
#include "quant/dequantize.h"
#include "quant/quant_fit.h"

namespace hearth::quant {
namespace {

constexpr int kTriesK = 10; // candidate grid spacings per side for each sub-block fit

// Grid values of x ≈ ds·q − dm (ds, dm: the float products the dequantizer forms).
void affineGrid(const float* x, int n, float ds, float dm, int qmax, uint8_t* q) {
    const float inv = ds > 0.0f ? 1.0f / ds : 0.0f;
    for (int i = 0; i < n; ++i) q[i] = uint8_t(clampf(roundNearest((x[i] + dm) * inv), 0.0f, float(qmax)));
}

float affineError(const float* x, int n, float ds, float dm, int qmax) {
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
float symmetricError(const float* x, int n, float ds) {
    const float inv = ds != 0.0f ? 1.0f / ds : 0.0f;
    float err = 0.0f;
    for (int i = 0; i < n; ++i) {
        const float e = ds * clampf(roundNearest(x[i] * inv), -32.0f, 31.0f) - x[i];
        err += e * e;
    }
    return err;
}

void symmetricGrid(const float* x, int n, float ds, uint8_t* q) {
    const float inv = ds != 0.0f ? 1.0f / ds : 0.0f;
    for (int i = 0; i < n; ++i) q[i] = uint8_t(clampf(roundNearest(x[i] * inv), -32.0f, 31.0f) + 32.0f);
}

// Q4_K/Q5_K share everything but the 5th bit; this is the element part of one super-block.
// q receives 256 values in [0, 2^bits − 1]; the returned header fields fill d/dmin/scales.
template <int Bits>
void quantizeAffineSuperBlock(const float* x, uint16_t& dOut, uint16_t& dminOut, uint8_t* scalesOut,
                              uint8_t* q) {
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
    dOut = storeHalfScale(maxScale / 63.0f, d);
    dminOut = storeHalfScale(maxMin / 63.0f, dmin);
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
    packScaleMins(ls, lm, scalesOut);
    for (int j = 0; j < 8; ++j)
        affineGrid(x + j * kSub, kSub, d * float(ls[j]), dmin * float(lm[j]), kQMax, q + j * kSub);
}

} // namespace

void dequantizeQ4_K(const uint8_t* src, float* dst, int64_t blocks) {
    for (int64_t b = 0; b < blocks; ++b) {
        BlockQ4_K blk;
        std::memcpy(&blk, src + b * sizeof blk, sizeof blk);
        const float d = halfToFloat(blk.d);
        const float dmin = halfToFloat(blk.dmin);
        const uint8_t* q = blk.qs;
        for (int c = 0; c < 4; ++c, q += 32, dst += 64) {
            uint8_t sc1, m1, sc2, m2;
            unpackScaleMin(blk.scales, 2 * c, sc1, m1);
            unpackScaleMin(blk.scales, 2 * c + 1, sc2, m2);
            const float d1 = d * float(sc1), o1 = dmin * float(m1);
            const float d2 = d * float(sc2), o2 = dmin * float(m2);
            for (int l = 0; l < 32; ++l) {
                dst[l] = d1 * float(q[l] & 0xF) - o1;
                dst[l + 32] = d2 * float(q[l] >> 4) - o2;
            }
        }
    }
}

void dequantizeQ5_K(const uint8_t* src, float* dst, int64_t blocks) {
    for (int64_t b = 0; b < blocks; ++b) {
        BlockQ5_K blk;
        std::memcpy(&blk, src + b * sizeof blk, sizeof blk);
        const float d = halfToFloat(blk.d);
        const float dmin = halfToFloat(blk.dmin);
        const uint8_t* q = blk.qs;
        for (int c = 0; c < 4; ++c, q += 32, dst += 64) {
            uint8_t sc1, m1, sc2, m2;
            unpackScaleMin(blk.scales, 2 * c, sc1, m1);
            unpackScaleMin(blk.scales, 2 * c + 1, sc2, m2);
            const float d1 = d * float(sc1), o1 = dmin * float(m1);
            const float d2 = d * float(sc2), o2 = dmin * float(m2);
            const int lowBit = 2 * c;
            const int highBit = 2 * c + 1;
            for (int l = 0; l < 32; ++l) {
                const int h1 = ((blk.qh[l] >> lowBit) & 1) << 4;
                const int h2 = ((blk.qh[l] >> highBit) & 1) << 4;
                dst[l] = d1 * float((q[l] & 0xF) + h1) - o1;
                dst[l + 32] = d2 * float((q[l] >> 4) + h2) - o2;
            }
        }
    }
}

void dequantizeQ6_K(const uint8_t* src, float* dst, int64_t blocks) {
    for (int64_t b = 0; b < blocks; ++b) {
        BlockQ6_K blk;
        std::memcpy(&blk, src + b * sizeof blk, sizeof blk);
        const float d = halfToFloat(blk.d);
        for (int half = 0; half < 2; ++half, dst += 128) {
            const uint8_t* ql = blk.ql + 64 * half;
            const uint8_t* qh = blk.qh + 32 * half;
            const int8_t* sc = blk.scales + 8 * half;
            for (int l = 0; l < 32; ++l) {
                const int is = l / 16;
                const int q1 = ((ql[l] & 0xF) | ((qh[l] >> 0) & 3) << 4) - 32;
                const int q2 = ((ql[l + 32] & 0xF) | ((qh[l] >> 2) & 3) << 4) - 32;
                const int q3 = ((ql[l] >> 4) | ((qh[l] >> 4) & 3) << 4) - 32;
                const int q4 = ((ql[l + 32] >> 4) | ((qh[l] >> 6) & 3) << 4) - 32;
                dst[l] = d * float(sc[is]) * float(q1);
                dst[l + 32] = d * float(sc[is + 2]) * float(q2);
                dst[l + 64] = d * float(sc[is + 4]) * float(q3);
                dst[l + 96] = d * float(sc[is + 6]) * float(q4);
            }
        }
    }
}

void quantizeQ4_K(const float* src, uint8_t* dst, int64_t blocks) {
    for (int64_t b = 0; b < blocks; ++b, src += kQKK) {
        BlockQ4_K blk;
        uint8_t q[kQKK];
        quantizeAffineSuperBlock<4>(src, blk.d, blk.dmin, blk.scales, q);
        for (int c = 0; c < 4; ++c)
            for (int l = 0; l < 32; ++l)
                blk.qs[32 * c + l] = uint8_t(q[64 * c + l] | q[64 * c + 32 + l] << 4);
        std::memcpy(dst + b * sizeof blk, &blk, sizeof blk);
    }
}

void quantizeQ5_K(const float* src, uint8_t* dst, int64_t blocks) {
    for (int64_t b = 0; b < blocks; ++b, src += kQKK) {
        BlockQ5_K blk;
        uint8_t q[kQKK];
        quantizeAffineSuperBlock<5>(src, blk.d, blk.dmin, blk.scales, q);
        std::memset(blk.qh, 0, sizeof blk.qh);
        for (int c = 0; c < 4; ++c) {
            for (int l = 0; l < 32; ++l) {
                const uint8_t lo = q[64 * c + l];
                const uint8_t hi = q[64 * c + 32 + l];
                blk.qs[32 * c + l] = uint8_t((lo & 0xF) | (hi & 0xF) << 4);
                blk.qh[l] |= uint8_t((lo >> 4) << (2 * c) | (hi >> 4) << (2 * c + 1));
            }
        }
        std::memcpy(dst + b * sizeof blk, &blk, sizeof blk);
    }
}

void quantizeQ6_K(const float* src, uint8_t* dst, int64_t blocks) {
    constexpr int kSub = 16;
    for (int64_t b = 0; b < blocks; ++b, src += kQKK) {
        // Each sub-block's scale puts its extreme element on −32; the super-block d then puts
        // the largest-magnitude sub-block scale on −128 (int8 scales are signed).
        float scale[16];
        float extreme = 0.0f;
        for (int j = 0; j < 16; ++j) {
            scale[j] = fitSymmetric(src + j * kSub, kSub, -32, 31, kTriesK);
            if (std::fabs(scale[j]) > std::fabs(extreme)) extreme = scale[j];
        }
        BlockQ6_K blk;
        float d = 0.0f;
        blk.d = storeHalfScale(extreme / -128.0f, d);
        uint8_t q[kQKK]; // stored values, q + 32
        for (int j = 0; j < 16; ++j) {
            // As for Q4_K: the best of the neighbouring int8 codes, judged on the final grid.
            const float* xs = src + j * kSub;
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
            blk.scales[j] = int8_t(best);
            symmetricGrid(xs, kSub, d * float(best), q + j * kSub);
        }
        for (int half = 0; half < 2; ++half) {
            const uint8_t* e = q + 128 * half;
            uint8_t* ql = blk.ql + 64 * half;
            uint8_t* qh = blk.qh + 32 * half;
            for (int l = 0; l < 32; ++l) {
                ql[l] = uint8_t((e[l] & 0xF) | (e[l + 64] & 0xF) << 4);
                ql[l + 32] = uint8_t((e[l + 32] & 0xF) | (e[l + 96] & 0xF) << 4);
                qh[l] = uint8_t((e[l] >> 4) | (e[l + 32] >> 4) << 2 | (e[l + 64] >> 4) << 4 |
                                (e[l + 96] >> 4) << 6);
            }
        }
        std::memcpy(dst + b * sizeof blk, &blk, sizeof blk);
    }
}

} // namespace hearth::quant
