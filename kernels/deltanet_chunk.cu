// The Gated DeltaNet's recurrence over many tokens in its chunked form (prefill). Within a chunk
// of C tokens with cumulative log decays G (gamma_i = exp(G_i)) and incoming state S0, every
// token's write u_i = beta_i (v_i - gamma_i S0^T k_i - sum_{j<i} gamma_i/gamma_j (k_i.k_j) u_j)
// is one lower-triangular system, solved by forward substitution; then
//   o_i   = gamma_i S0^T q_i + sum_{j<=i} gamma_i/gamma_j (q_i.k_j) u_j
//   S_new = gamma_C S0 + sum_j gamma_C/gamma_j k_j u_j^T,
// which equals running the token-by-token rule (launchGdnDecodeStep's maths) over the chunk.
// Each value column of the state evolves on its own, so a block takes one value head and a tile
// of 32 of its columns, keeping that state tile in shared memory across the chunks.
#include "hearth_kernels/deltanet.h"

namespace hearth::kernels {
namespace {

constexpr int kChunk = 32;
constexpr int kTile = 32;    // value columns per block
constexpr int kThreads = 256;
constexpr int kPad = kChunk + 1; // the C x C matrices' row stride (no bank conflicts on columns)

size_t chunkSharedBytes(int keyDim) {
    return size_t(2 * kChunk * keyDim + keyDim * kTile + 2 * kChunk * kPad + kChunk * kTile + 2 * kChunk) *
           sizeof(float);
}

__global__ void __launch_bounds__(kThreads) gdnChunkKernel(GdnShape s, int tokens, float* __restrict__ state,
                                                           const float* __restrict__ conv,
                                                           const float* __restrict__ gates, float* __restrict__ out) {
    extern __shared__ float smem[];
    const int dk = s.keyDim, dv = s.valueDim, h = blockIdx.x, col0 = blockIdx.y * kTile;
    const int tid = threadIdx.x, channels = s.channels(), vh = s.valueHeads;
    float* Ks = smem;                // [kChunk][dk]
    float* Qs = Ks + kChunk * dk;    // [kChunk][dk]
    float* S = Qs + kChunk * dk;     // [dk][kTile]
    float* A = S + dk * kTile;       // [kChunk][kPad]: beta_i gamma_i/gamma_j (k_i.k_j), j < i
    float* QK = A + kChunk * kPad;   // [kChunk][kPad]: gamma_i/gamma_j (q_i.k_j), j <= i
    float* U = QK + kChunk * kPad;   // [kChunk][kTile]: v, then the residual, then u
    float* G = U + kChunk * kTile;   // [kChunk] cumulative log decay
    float* B = G + kChunk;           // [kChunk] beta
    const int kh = s.tiled ? h % s.keyHeads : h / (vh / s.keyHeads);
    const int qOff = kh * dk, kOff = s.keyWidth() + kh * dk, vOff = 2 * s.keyWidth() + h * dv + col0;
    float* headState = state + size_t(h) * dk * dv + col0;

    for (int e = tid; e < dk * kTile; e += kThreads) S[e] = headState[size_t(e / kTile) * dv + e % kTile];
    for (int t0 = 0; t0 < tokens; t0 += kChunk) {
        const int n = min(kChunk, tokens - t0);
        for (int e = tid; e < kChunk * dk; e += kThreads) {
            const int i = e / dk, d = e % dk;
            const float* row = conv + size_t(t0 + i) * channels;
            Ks[e] = i < n ? row[kOff + d] : 0.0f;
            Qs[e] = i < n ? row[qOff + d] : 0.0f;
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
        }
        __syncthreads();
        for (int e = tid; e < kChunk * kChunk; e += kThreads) {
            const int i = e / kChunk, j = e % kChunk;
            float kk = 0.0f, qk = 0.0f;
            if (i < n && j <= i) {
                const float* ki = Ks + i * dk;
                const float* qi = Qs + i * dk;
                const float* kj = Ks + j * dk;
                for (int d = 0; d < dk; ++d) {
                    kk += ki[d] * kj[d];
                    qk += qi[d] * kj[d];
                }
                const float ratio = expf(G[i] - G[j]);
                kk *= B[i] * ratio;
                qk *= ratio;
            }
            A[i * kPad + j] = j < i ? kk : 0.0f;
            QK[i * kPad + j] = qk;
        }
        // The residual v_i - gamma_i S0^T k_i.
        for (int e = tid; e < n * kTile; e += kThreads) {
            const int i = e / kTile, v = e % kTile;
            const float* ki = Ks + i * dk;
            float acc = 0.0f;
            for (int d = 0; d < dk; ++d) acc += ki[d] * S[d * kTile + v];
            U[e] -= expf(G[i]) * acc;
        }
        __syncthreads();
        if (tid < kTile) { // forward substitution, a column per lane: u_i = beta_i r_i - sum_j A_ij u_j
            for (int i = 0; i < n; ++i) {
                float u = B[i] * U[i * kTile + tid];
                for (int j = 0; j < i; ++j) u -= A[i * kPad + j] * U[j * kTile + tid];
                U[i * kTile + tid] = u;
            }
        }
        __syncthreads();
        for (int e = tid; e < n * kTile; e += kThreads) {
            const int i = e / kTile, v = e % kTile;
            const float* qi = Qs + i * dk;
            float fromState = 0.0f, fromChunk = 0.0f;
            for (int d = 0; d < dk; ++d) fromState += qi[d] * S[d * kTile + v];
            for (int j = 0; j <= i; ++j) fromChunk += QK[i * kPad + j] * U[j * kTile + v];
            out[size_t(t0 + i) * s.valueWidth() + size_t(h) * dv + col0 + v] = expf(G[i]) * fromState + fromChunk;
        }
        __syncthreads();
        const float last = G[n - 1];
        for (int e = tid; e < dk * kTile; e += kThreads) {
            const int d = e / kTile, v = e % kTile;
            float acc = expf(last) * S[e];
            for (int j = 0; j < n; ++j) acc += expf(last - G[j]) * Ks[j * dk + d] * U[j * kTile + v];
            S[e] = acc;
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
