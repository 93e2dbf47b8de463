// The Gated DeltaNet's recurrence over many tokens in its chunked form (prefill). Within a chunk
// of C tokens with cumulative log decays G (gamma_i = exp(G_i)) and incoming state S0, every
// token's write u_i = beta_i (v_i - gamma_i S0^T k_i - sum_{j<i} gamma_i/gamma_j (k_i.k_j) u_j)
// is one lower-triangular system, solved by forward substitution; then
//   o_i   = gamma_i S0^T q_i + sum_{j<=i} gamma_i/gamma_j (q_i.k_j) u_j
//   S_new = gamma_C S0 + sum_j gamma_C/gamma_j k_j u_j^T,
// which equals running the token-by-token rule (launchGdnDecode's maths) over the chunk.
// Each value column of the state evolves on its own, so a block takes one value head and a tile
// of 32 of its columns, keeping that state tile in shared memory across the chunks.
#include "hearth_kernels/deltanet.h"

#include "deltanet_math.cuh"

namespace hearth::kernels {
namespace {

constexpr int kChunk = 32;
constexpr int kTile = 32;    // value columns per block
constexpr int kThreads = 256; // 8 warps: a warp per 4 rows of the chunk, a lane per column
constexpr int kWarps = kThreads / 32;
constexpr int kPad = kChunk + 1; // the C x C matrices' row stride (no bank conflicts on columns)

// Shared memory is read through small register tiles (each value loaded once serves 4-16 products)
// and 16-byte loads: K and Q rows are keyDim + 4 apart, so a quarter warp's 16-byte loads of eight
// different rows fall in distinct banks.
__host__ __device__ int rowStride(int keyDim) { return keyDim + 4; }

size_t chunkSharedBytes(int keyDim) {
    return size_t(2 * kChunk * rowStride(keyDim) + keyDim * kTile + 2 * kChunk * kPad + kChunk * kTile +
                  3 * kChunk + 2 * kWarps * 32) *
           sizeof(float);
}

__device__ __forceinline__ float4 at4(const float* p) { return *reinterpret_cast<const float4*>(p); }
__device__ __forceinline__ float dot4(float4 a, float4 b, float acc) {
    return fmaf(a.x, b.x, fmaf(a.y, b.y, fmaf(a.z, b.z, fmaf(a.w, b.w, acc))));
}

__global__ void __launch_bounds__(kThreads) gdnChunkKernel(GdnShape s, int tokens, float* __restrict__ state,
                                                           const float* __restrict__ conv,
                                                           const float* __restrict__ gates, float* __restrict__ out) {
    extern __shared__ __align__(16) float smem[];
    const int dk = s.keyDim, dv = s.valueDim, h = blockIdx.x, col0 = blockIdx.y * kTile;
    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, channels = s.channels(), vh = s.valueHeads;
    const int ld = rowStride(dk);
    float* Ks = smem;                // [kChunk][ld]
    float* Qs = Ks + kChunk * ld;    // [kChunk][ld]
    float* S = Qs + kChunk * ld;     // [dk][kTile]
    float* A = S + dk * kTile;       // [kChunk][kPad]: beta_i gamma_i/gamma_j (k_i.k_j), j < i
    float* QK = A + kChunk * kPad;   // [kChunk][kPad]: gamma_i/gamma_j (q_i.k_j), j <= i
    float* U = QK + kChunk * kPad;   // [kChunk][kTile]: v, then the residual, then u
    float* G = U + kChunk * kTile;   // [kChunk] cumulative log decay
    float* B = G + kChunk;           // [kChunk] beta
    float* W = B + kChunk;           // [kChunk] gamma_C / gamma_j, the state update's weights
    float* red = W + kChunk;         // [2][kWarps][32]: the substitution's partial sums
    const int kh = detail::keyHeadOf(s, h);
    const int qOff = kh * dk, kOff = s.keyWidth() + kh * dk, vOff = 2 * s.keyWidth() + h * dv + col0;
    float* headState = state + size_t(h) * dk * dv + col0;
    const int i0 = 4 * warp; // this warp's rows in the residual and output steps; lane = column

    for (int e = tid; e < dk * kTile; e += kThreads) S[e] = headState[size_t(e / kTile) * dv + e % kTile];
    for (int t0 = 0; t0 < tokens; t0 += kChunk) {
        const int n = min(kChunk, tokens - t0);
        for (int e = tid; e < kChunk * dk; e += kThreads) {
            const int i = e / dk, d = e % dk;
            const float* row = conv + size_t(t0 + i) * channels;
            Ks[i * ld + d] = i < n ? row[kOff + d] : 0.0f;
            Qs[i * ld + d] = i < n ? row[qOff + d] : 0.0f;
        }
        for (int e = tid; e < kChunk * kTile; e += kThreads) {
            const int i = e / kTile;
            U[e] = i < n ? conv[size_t(t0 + i) * channels + vOff + e % kTile] : 0.0f;
        }
        if (tid < 32) { // the cumulative log decay: one warp's inclusive scan
            const float* g = gates + size_t(t0 + tid) * 2 * vh;
            float x = tid < n ? g[vh + h] : 0.0f;
#pragma unroll
            for (int o = 1; o < 32; o <<= 1) {
                const float y = __shfl_up_sync(0xffffffffu, x, o);
                if (tid >= o) x += y;
            }
            G[tid] = x;
            B[tid] = tid < n ? g[h] : 0.0f;
            W[tid] = expf(__shfl_sync(0xffffffffu, x, n - 1) - x);
        }
        __syncthreads();
        { // K.K^T and Q.K^T in 2 x 2 tiles: rows 2ib, 2ib+1; columns jb, jb+16
            const int ib = tid >> 4, jb = tid & 15, ia = 2 * ib;
            float kk[2][2] = {}, qk[2][2] = {};
            if (jb <= ia + 1) {
                for (int d = 0; d < dk; d += 4) {
                    const float4 k0 = at4(Ks + ia * ld + d), k1 = at4(Ks + (ia + 1) * ld + d);
                    const float4 q0 = at4(Qs + ia * ld + d), q1 = at4(Qs + (ia + 1) * ld + d);
                    const float4 j0 = at4(Ks + jb * ld + d), j1 = at4(Ks + (jb + 16) * ld + d);
                    kk[0][0] = dot4(k0, j0, kk[0][0]), kk[0][1] = dot4(k0, j1, kk[0][1]);
                    kk[1][0] = dot4(k1, j0, kk[1][0]), kk[1][1] = dot4(k1, j1, kk[1][1]);
                    qk[0][0] = dot4(q0, j0, qk[0][0]), qk[0][1] = dot4(q0, j1, qk[0][1]);
                    qk[1][0] = dot4(q1, j0, qk[1][0]), qk[1][1] = dot4(q1, j1, qk[1][1]);
                }
            }
#pragma unroll
            for (int r = 0; r < 2; ++r)
#pragma unroll
                for (int c = 0; c < 2; ++c) {
                    const int i = ia + r, j = jb + 16 * c;
                    const bool inside = i < n && j <= i;
                    const float ratio = inside ? expf(G[i] - G[j]) : 0.0f;
                    A[i * kPad + j] = j < i ? kk[r][c] * B[i] * ratio : 0.0f;
                    QK[i * kPad + j] = qk[r][c] * ratio;
                }
        }
        // The residual v_i - gamma_i S0^T k_i (rows past n: K and v are 0).
        {
            float acc[4] = {};
            for (int d = 0; d < dk; d += 4) {
                const float s0 = S[d * kTile + lane], s1 = S[(d + 1) * kTile + lane], s2 = S[(d + 2) * kTile + lane],
                            s3 = S[(d + 3) * kTile + lane];
                const float4 sv = make_float4(s0, s1, s2, s3);
#pragma unroll
                for (int a = 0; a < 4; ++a) acc[a] = dot4(at4(Ks + (i0 + a) * ld + d), sv, acc[a]);
            }
#pragma unroll
            for (int a = 0; a < 4; ++a) U[(i0 + a) * kTile + lane] -= expf(G[i0 + a]) * acc[a];
        }
        __syncthreads();
        { // Forward substitution u_i = beta_i r_i - sum_{j<i} A_ij u_j, a lane per column: warp w
          // keeps u_j for j = w (mod 8) in registers, the eight partial sums meet in shared memory.
            float u[kChunk / kWarps] = {};
#pragma unroll
            for (int i = 0; i < kChunk; ++i) {
                float part = 0.0f;
#pragma unroll
                for (int m = 0; m < kChunk / kWarps; ++m) {
                    const int j = warp + kWarps * m;
                    if (j < i) part = fmaf(A[i * kPad + j], u[m], part);
                }
                float* slot = red + (i & 1) * kWarps * 32;
                slot[warp * 32 + lane] = part;
                __syncthreads();
                if (warp == i % kWarps) {
                    float sum = 0.0f;
#pragma unroll
                    for (int w = 0; w < kWarps; ++w) sum += slot[w * 32 + lane];
                    const float ui = B[i] * U[i * kTile + lane] - sum;
#pragma unroll
                    for (int m = 0; m < kChunk / kWarps; ++m) // a register, not a local-memory index
                        if (m == i / kWarps) u[m] = ui;
                    U[i * kTile + lane] = ui;
                }
            }
        }
        __syncthreads();
        { // o_i = gamma_i S0^T q_i + sum_{j<=i} QK_ij u_j
            float fromState[4] = {}, fromChunk[4] = {};
            for (int d = 0; d < dk; d += 4) {
                const float4 sv = make_float4(S[d * kTile + lane], S[(d + 1) * kTile + lane],
                                              S[(d + 2) * kTile + lane], S[(d + 3) * kTile + lane]);
#pragma unroll
                for (int a = 0; a < 4; ++a) fromState[a] = dot4(at4(Qs + (i0 + a) * ld + d), sv, fromState[a]);
            }
            for (int j = 0; j < kChunk; ++j) {
                const float uj = U[j * kTile + lane];
#pragma unroll
                for (int a = 0; a < 4; ++a) fromChunk[a] = fmaf(QK[(i0 + a) * kPad + j], uj, fromChunk[a]);
            }
#pragma unroll
            for (int a = 0; a < 4; ++a)
                if (i0 + a < n)
                    out[size_t(t0 + i0 + a) * s.valueWidth() + size_t(h) * dv + col0 + lane] =
                        expf(G[i0 + a]) * fromState[a] + fromChunk[a];
        }
        __syncthreads();
        { // S = gamma_C S0 + sum_j gamma_C/gamma_j k_j u_j^T, in 4 x 4 tiles (rows d, columns v)
            const float decay = expf(G[n - 1]);
            const int v0 = 4 * (tid & 7);
            for (int d0 = 4 * (tid >> 3); d0 < dk; d0 += 4 * (kThreads / 8)) {
                float4 acc[4];
#pragma unroll
                for (int a = 0; a < 4; ++a) {
                    const float4 sv = at4(S + (d0 + a) * kTile + v0);
                    acc[a] = make_float4(decay * sv.x, decay * sv.y, decay * sv.z, decay * sv.w);
                }
                for (int j = 0; j < n; ++j) {
                    const float4 kv = at4(Ks + j * ld + d0), uv = at4(U + j * kTile + v0);
                    const float w = W[j];
                    const float kw[4] = {kv.x * w, kv.y * w, kv.z * w, kv.w * w};
#pragma unroll
                    for (int a = 0; a < 4; ++a) {
                        acc[a].x = fmaf(kw[a], uv.x, acc[a].x), acc[a].y = fmaf(kw[a], uv.y, acc[a].y);
                        acc[a].z = fmaf(kw[a], uv.z, acc[a].z), acc[a].w = fmaf(kw[a], uv.w, acc[a].w);
                    }
                }
#pragma unroll
                for (int a = 0; a < 4; ++a) *reinterpret_cast<float4*>(S + (d0 + a) * kTile + v0) = acc[a];
            }
        }
        __syncthreads();
    }
    for (int e = tid; e < dk * kTile; e += kThreads) headState[size_t(e / kTile) * dv + e % kTile] = S[e];
}

} // namespace

cudaError_t launchGdnChunked(const GdnShape& s, int tokens, float* state, const float* conv, const float* gates,
                             float* out, cudaStream_t stream) {
    if (!gdnSupports(s.keyHeads, s.valueHeads, s.keyDim, s.valueDim, s.convKernel) || tokens <= 0 || !state ||
        !conv || !gates || !out)
        return cudaErrorInvalidValue;
    const size_t shared = chunkSharedBytes(s.keyDim);
    const cudaError_t set =
        cudaFuncSetAttribute(gdnChunkKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared));
    if (set != cudaSuccess) return set;
    gdnChunkKernel<<<dim3(unsigned(s.valueHeads), unsigned(s.valueDim / kTile)), kThreads, shared, stream>>>(
        s, tokens, state, conv, gates, out);
    return cudaGetLastError();
}

} // namespace hearth::kernels
