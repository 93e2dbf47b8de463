// One weight element read from its device layout (GGUF's, or the GEMV repack of gemv_q6k.cu,
// gemv_q8_0.cu and gemv_q4_0.cu): the definition the dequantizer and the generic GEMV share.
// Scalar and unhurried: it serves prefill's tile dequantization and the rare types, not the
// tuned decode GEMVs.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "hearth_kernels/gemv.h"

namespace hearth::kernels::detail {

__device__ __forceinline__ float halfAt(const uint8_t* p) {
    return __half2float(__ushort_as_half(uint16_t(p[0] | (p[1] << 8))));
}

// K-quant sub-block j's 6-bit scale and min from the 12 packed bytes (GGUF's layout).
__device__ __forceinline__ void scaleMinK(const uint8_t* s, int j, float& scale, float& min) {
    if (j < 4) {
        scale = float(s[j] & 63);
        min = float(s[j + 4] & 63);
    } else {
        scale = float((s[j + 4] & 0xF) | ((s[j - 4] >> 6) << 4));
        min = float((s[j + 4] >> 4) | ((s[j] >> 6) << 4));
    }
}

template <GemvType T>
__device__ __forceinline__ float weightAt(const uint8_t* __restrict__ w, int n, int k, int row, int col) {
    const size_t i = size_t(row) * size_t(k) + size_t(col);
    if constexpr (T == GemvType::F32) {
        return reinterpret_cast<const float*>(w)[i];
    } else if constexpr (T == GemvType::F16) {
        return __half2float(reinterpret_cast<const __half*>(w)[i]);
    } else if constexpr (T == GemvType::BF16) {
        return __bfloat162float(reinterpret_cast<const __nv_bfloat16*>(w)[i]);
    } else if constexpr (T == GemvType::Q8_0) { // repacked: quants [blocks][32], then fp16 d
        const size_t blocks = size_t(n) * size_t(k / 32), b = i >> 5;
        return halfAt(w + blocks * 32 + b * 2) * float(int8_t(w[b * 32 + (i & 31)]));
    } else if constexpr (T == GemvType::Q4_0) { // repacked: quants [blocks][16], then fp16 d
        const size_t blocks = size_t(n) * size_t(k / 32), b = i >> 5;
        const int j = int(i & 31);
        const uint8_t byte = w[b * 16 + (j & 15)];
        const int q = j < 16 ? (byte & 15) : (byte >> 4);
        return halfAt(w + blocks * 16 + b * 2) * float(q - 8);
    } else if constexpr (T == GemvType::Q5_0) { // GGUF: fp16 d, qh[4], qs[16] (22 bytes)
        const uint8_t* blk = w + (i >> 5) * 22;
        const int j = int(i & 31);
        const uint32_t qh = uint32_t(blk[2]) | uint32_t(blk[3]) << 8 | uint32_t(blk[4]) << 16 | uint32_t(blk[5]) << 24;
        const uint8_t byte = blk[6 + (j & 15)];
        const int q = (j < 16 ? (byte & 15) : (byte >> 4)) | int(((qh >> j) & 1u) << 4);
        return halfAt(blk) * float(q - 16);
    } else if constexpr (T == GemvType::Q4_K || T == GemvType::Q5_K) { // GGUF, 144 / 176 bytes
        constexpr int kBytes = T == GemvType::Q4_K ? 144 : 176;
        const uint8_t* blk = w + (i >> 8) * kBytes;
        const int e = int(i & 255), j = e >> 5, c = e >> 6, l = e & 31;
        float sc, mn;
        scaleMinK(blk + 4, j, sc, mn);
        const uint8_t* qs = blk + (T == GemvType::Q4_K ? 16 : 48);
        int q = (qs[32 * c + l] >> (4 * (j & 1))) & 15;
        if constexpr (T == GemvType::Q5_K) q += int((blk[16 + l] >> j) & 1) << 4;
        return halfAt(blk) * sc * float(q) - halfAt(blk + 2) * mn;
    } else { // Q6_K repacked: quants [blocks][192], scales [blocks][16] int8, d [blocks] fp16
        const size_t blocks = size_t(n) * size_t(k / 256), b = i >> 8;
        const int e = int(i & 255), j = e >> 5, bb = e & 15;
        const uint8_t* q = w + b * 192;
        const uint8_t lo = q[16 * j + bb];
        const int low = (e & 16) ? (lo >> 4) : (lo & 15);
        const uint8_t* hw = q + 128 + 8 * j + ((e & 16) ? 4 : 0);
        const int shift = 8 * (bb & 3) + 2 * (bb >> 2);
        const uint32_t h = uint32_t(hw[0]) | uint32_t(hw[1]) << 8 | uint32_t(hw[2]) << 16 | uint32_t(hw[3]) << 24;
        const int v = low | int(((h >> shift) & 3u) << 4);
        const float sc = float(int8_t(w[blocks * 192 + b * 16 + (e >> 4)]));
        return halfAt(w + blocks * 208 + b * 2) * sc * float(v - 32);
    }
}

// Calls f.template operator()<T>() for the runtime type (a switch instantiating every family).
template <typename F>
__host__ cudaError_t withWeightType(GemvType type, F&& f) {
    switch (type) {
    case GemvType::Q4_K: return f.template operator()<GemvType::Q4_K>();
    case GemvType::Q5_K: return f.template operator()<GemvType::Q5_K>();
    case GemvType::Q6_K: return f.template operator()<GemvType::Q6_K>();
    case GemvType::Q8_0: return f.template operator()<GemvType::Q8_0>();
    case GemvType::Q4_0: return f.template operator()<GemvType::Q4_0>();
    case GemvType::BF16: return f.template operator()<GemvType::BF16>();
    case GemvType::F32: return f.template operator()<GemvType::F32>();
    case GemvType::F16: return f.template operator()<GemvType::F16>();
    case GemvType::Q5_0: return f.template operator()<GemvType::Q5_0>();
    }
    return cudaErrorInvalidValue;
}

} // namespace hearth::kernels::detail
