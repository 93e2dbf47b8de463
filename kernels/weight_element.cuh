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

// Eight consecutive elements W[row][col0 .. col0+7] (col0 % 8 == 0, k % 8 == 0): the same values
// as weightAt, with one aligned load of the quants and the block's scales decoded once, so that
// prefill's dequantization streams at memory speed instead of re-decoding a block per element.
template <GemvType T>
__device__ __forceinline__ void weightsAt8(const uint8_t* __restrict__ w, int n, int k, int row, int col0, float* v) {
    const size_t i = size_t(row) * size_t(k) + size_t(col0);
    if constexpr (T == GemvType::F32) {
        const float4 a = reinterpret_cast<const float4*>(w)[i / 4], b = reinterpret_cast<const float4*>(w)[i / 4 + 1];
        v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w, v[4] = b.x, v[5] = b.y, v[6] = b.z, v[7] = b.w;
    } else if constexpr (T == GemvType::F16 || T == GemvType::BF16) {
        const uint4 raw = reinterpret_cast<const uint4*>(w)[i / 8];
        const uint32_t words[4] = {raw.x, raw.y, raw.z, raw.w};
        for (int j = 0; j < 4; ++j) {
            const uint16_t lo = uint16_t(words[j] & 0xFFFF), hi = uint16_t(words[j] >> 16);
            if constexpr (T == GemvType::F16) {
                v[2 * j] = __half2float(__ushort_as_half(lo));
                v[2 * j + 1] = __half2float(__ushort_as_half(hi));
            } else {
                v[2 * j] = __uint_as_float(uint32_t(lo) << 16);
                v[2 * j + 1] = __uint_as_float(uint32_t(hi) << 16);
            }
        }
    } else if constexpr (T == GemvType::Q8_0) {
        const size_t blocks = size_t(n) * size_t(k / 32), b = i >> 5;
        const float d = halfAt(w + blocks * 32 + b * 2);
        const uint2 q = *reinterpret_cast<const uint2*>(w + i);
        for (int j = 0; j < 8; ++j) v[j] = d * float(int8_t(((j < 4 ? q.x : q.y) >> (8 * (j & 3))) & 0xFF));
    } else if constexpr (T == GemvType::Q4_0) {
        const size_t blocks = size_t(n) * size_t(k / 32), b = i >> 5;
        const int j0 = int(i & 31);
        const float d = halfAt(w + blocks * 16 + b * 2);
        const uint2 q = *reinterpret_cast<const uint2*>(w + b * 16 + (j0 & 15));
        const int shift = j0 < 16 ? 0 : 4;
        for (int j = 0; j < 8; ++j) v[j] = d * float(int((((j < 4 ? q.x : q.y) >> (8 * (j & 3) + shift)) & 15)) - 8);
    } else if constexpr (T == GemvType::Q4_K || T == GemvType::Q5_K) {
        constexpr int kBytes = T == GemvType::Q4_K ? 144 : 176;
        const uint8_t* blk = w + (i >> 8) * kBytes;
        const int e = int(i & 255), j = e >> 5, c = e >> 6, l0 = e & 31;
        float sc, mn;
        scaleMinK(blk + 4, j, sc, mn);
        const float d = halfAt(blk) * sc, m = halfAt(blk + 2) * mn;
        const uint2 q = *reinterpret_cast<const uint2*>(blk + (T == GemvType::Q4_K ? 16 : 48) + 32 * c + l0);
        uint2 h{0, 0};
        if constexpr (T == GemvType::Q5_K) h = *reinterpret_cast<const uint2*>(blk + 16 + l0);
        for (int t = 0; t < 8; ++t) {
            const uint32_t qw = t < 4 ? q.x : q.y, hw = t < 4 ? h.x : h.y;
            int x = int((qw >> (8 * (t & 3) + 4 * (j & 1))) & 15);
            if constexpr (T == GemvType::Q5_K) x += int((hw >> (8 * (t & 3) + j)) & 1) << 4;
            v[t] = d * float(x) - m;
        }
    } else if constexpr (T == GemvType::Q6_K) { // repacked, as weightAt reads it
        const size_t blocks = size_t(n) * size_t(k / 256), b = i >> 8;
        const int e = int(i & 255), j = e >> 5, bb0 = e & 15;
        const uint8_t* q = w + b * 192;
        const uint2 lo = *reinterpret_cast<const uint2*>(q + 16 * j + bb0);
        const uint8_t* hp = q + 128 + 8 * j + ((e & 16) ? 4 : 0);
        const uint32_t h = uint32_t(hp[0]) | uint32_t(hp[1]) << 8 | uint32_t(hp[2]) << 16 | uint32_t(hp[3]) << 24;
        const float d = halfAt(w + blocks * 208 + b * 2) * float(int8_t(w[blocks * 192 + b * 16 + (e >> 4)]));
        for (int t = 0; t < 8; ++t) {
            const int bb = bb0 + t;
            const int low = int((((t < 4 ? lo.x : lo.y) >> (8 * (t & 3))) >> ((e & 16) ? 4 : 0)) & 15);
            const int shift = 8 * (bb & 3) + 2 * (bb >> 2);
            v[t] = d * float((low | int(((h >> shift) & 3u) << 4)) - 32);
        }
    } else { // Q5_0: 22-byte blocks, no alignment to lean on
        for (int t = 0; t < 8; ++t) v[t] = weightAt<T>(w, n, k, row, col0 + t);
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
