// One decode token of a Gated DeltaNet layer in one kernel: the conv step with its SiLU, the q/k
// L2 norms and the gates, the delta rule on the state, and the gated RMSNorm (+ X8) of the
// read-out. The multi-token conv and the chunked form for prefill live in deltanet.cu and
// deltanet_chunk.cu; the maths are the CPU reference's (engine/backend/cpu/deltanet_ops.h).
//
// Why one kernel, split by columns: the state (valueHeads × keyDim × valueDim fp32, 3 MB a layer
// on the 27B) is the step's only real traffic, and a block per value head left 48 blocks moving
// it; the rule's value columns are independent, so a block takes 32 of them (4-16x the blocks) and
// recomputes the head's q/k conv (256 channels, a few µs of L2 reads over the grid). Measured in
// the step (docs/PERFORMANCE.md): ~7 µs a layer before and after — what is left is the chain of
// dependent steps below, not bandwidth.
// The state's loads are issued before the PDL wait: the state was last written by this layer's
// kernel a token ago, and every kernel of a step waits before it triggers its successor, so
// nothing in flight can still write it — the loads overlap the projection GEMV's tail. The norm
// over a head's values spans the head's blocks: each leaves its sum of squares, and the last to
// finish (a counter per head in `scratch`) norms the whole head and resets the counter. The q/k
// history is shared by the key head's blocks, so the last of those to finish advances it.
#include "hearth_kernels/deltanet.h"

#include "deltanet_math.cuh"
#include "pdl.cuh"
#include "x8_group.cuh"

namespace hearth::kernels {
namespace {

constexpr int kColumns = 32;    // value columns a block takes: one warp wide, one X8 group
constexpr int kRows = 16;       // state rows (key dimensions) a thread keeps in registers
constexpr int kMaxChunks = kGdnMaxHeadDim / kColumns; // gdnDecodeScratchBytes counts these

using detail::siluOf;

struct Scratch {
    int* headCounters; // [valueHeads], zero between launches
    int* keyCounters;  // [keyHeads], zero between launches
    float* squares;    // [valueHeads][kMaxChunks]
};
__device__ Scratch scratchOf(void* p, const GdnShape& s) {
    int* counters = static_cast<int*>(p);
    return {counters, counters + s.valueHeads, reinterpret_cast<float*>(counters + s.valueHeads + s.keyHeads)};
}

__device__ __forceinline__ float warpSum(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

// Block (chunk, h): value columns [32 chunk, 32 chunk + 32) of value head h; thread (slice,
// lane) keeps state rows [16 slice, 16 slice + 16) of column 32 chunk + lane. 2·keyDim threads:
// thread t also convolves channel t of the head's q | k.
__global__ void __launch_bounds__(256) gdnDecodeKernel(GdnShape s, GdnDecodeIo io, float eps) {
    __shared__ float qk[2 * kGdnMaxHeadDim]; // the head's q | k after conv, SiLU and norms
    __shared__ float part[kGdnMaxHeadDim / kRows][kColumns]; // per slice partial sums
    __shared__ float vals[kColumns], norms[2 * kGdnMaxHeadDim / 32];
    __shared__ bool lastOfHead, lastOfKeyHead;
    const int chunk = blockIdx.x, h = blockIdx.y, chunks = s.valueDim / kColumns;
    const int dk = s.keyDim, dv = s.valueDim, K = s.convKernel, C = s.channels();
    const int lane = int(threadIdx.x & 31), slice = int(threadIdx.x >> 5), t = int(threadIdx.x);
    const int kh = detail::keyHeadOf(s, h);
    const int col = chunk * kColumns + lane;

    // Before the wait: the state, the conv's weights and history, the norm's and gates' constants.
    float* S = io.state + (size_t(h) * dk + size_t(slice) * kRows) * dv + col;
    float reg[kRows];
#pragma unroll
    for (int i = 0; i < kRows; ++i) reg[i] = S[size_t(i) * dv];
    // This thread's q/k channel, and for warp 0 the v channel of its column.
    const int qkChannel = t < dk ? kh * dk + t : s.keyWidth() + kh * dk + (t - dk);
    const int vChannel = 2 * s.keyWidth() + h * dv + col;
    float wq[kGdnMaxConvKernel], hq[kGdnMaxConvKernel], wv[kGdnMaxConvKernel], hv[kGdnMaxConvKernel];
    for (int j = 0; j < K; ++j) {
        wq[j] = io.convWeight[size_t(qkChannel) * K + j];
        hq[j] = j + 1 < K ? io.history[size_t(j) * C + qkChannel] : 0.0f;
        if (slice == 0) {
            wv[j] = io.convWeight[size_t(vChannel) * K + j];
            hv[j] = j + 1 < K ? io.history[size_t(j) * C + vChannel] : 0.0f;
        }
    }
    const float dtBias = io.dtBias[h], negExpA = io.negExpA[h];
    const float normW = t < dv ? io.normWeight[t] : 0.0f; // for the head's norm, if this block is last
    detail::pdlWait(); // the projections (the GEMV before) are read from here on
    detail::pdlTrigger();
    // Every projection this thread reads, issued together: one latency, not a chain of them.
    const float newQk = io.qkv[qkChannel];
    const float newV = slice == 0 ? io.qkv[vChannel] : 0.0f;
    const float rawB = io.b[h], rawA = io.a[h];
    const float zv = t < dv ? io.z[h * dv + t] : 0.0f;

    // Conv + SiLU of the q/k channel. The v channels' history belongs to this block alone and
    // advances here; the q/k history at the end (see above).
    float y = wq[K - 1] * newQk;
    for (int j = 0; j + 1 < K; ++j) y += wq[j] * hq[j];
    y = siluOf(y);
    // L2 norms of q (threads < dk) and k: whole warps each (dk % 32 == 0).
    const float sq = warpSum(y * y);
    if (lane == 0) norms[slice] = sq;
    if (slice == 0) {
        float v = wv[K - 1] * newV;
        for (int j = 0; j + 1 < K; ++j) v += wv[j] * hv[j];
        vals[lane] = siluOf(v);
        for (int j = 0; j + 2 < K; ++j) io.history[size_t(j) * C + vChannel] = hv[j + 1];
        io.history[size_t(K - 2) * C + vChannel] = newV;
    }
    __syncthreads();
    {
        const int warpsPerHalf = dk / 32, first = t < dk ? 0 : warpsPerHalf;
        float total = 0.0f;
        for (int w = 0; w < warpsPerHalf; ++w) total += norms[first + w];
        y *= rsqrtf(total + detail::kGdnL2Eps);
        if (t < dk) y *= rsqrtf(float(dk));
        qk[t] = y;
    }
    const float beta = detail::gdnBeta(rawB);
    const float decay = expf(detail::gdnLogDecay(rawA, dtBias, negExpA));
    __syncthreads();

    // The delta rule on this thread's rows of its column.
    const float* q = qk + slice * kRows;
    const float* k = qk + dk + slice * kRows;
    float m = 0.0f;
#pragma unroll
    for (int i = 0; i < kRows; ++i) {
        reg[i] *= decay;
        m += reg[i] * k[i];
    }
    part[slice][lane] = m;
    __syncthreads();
    const int slices = dk / kRows;
    if (slice == 0) {
        float total = 0.0f;
        for (int j = 0; j < slices; ++j) total += part[j][lane];
        vals[lane] = beta * (vals[lane] - total);
    }
    __syncthreads();
    const float u = vals[lane];
    float o = 0.0f;
#pragma unroll
    for (int i = 0; i < kRows; ++i) {
        reg[i] += k[i] * u;
        S[size_t(i) * dv] = reg[i];
        o += reg[i] * q[i];
    }
    part[slice][lane] = o;
    __syncthreads();

    // Warp 0: the raw read-out of the block's columns and their sum of squares. Every read of the
    // history is behind the block's syncs, so the counters may be bumped.
    const Scratch scratch = scratchOf(io.scratch, s);
    float* outHead = io.out + size_t(h) * dv;
    if (slice == 0) {
        o = 0.0f;
        for (int j = 0; j < slices; ++j) o += part[j][lane];
        outHead[col] = o;
        const float squares = warpSum(o * o);
        if (lane == 0) scratch.squares[h * kMaxChunks + chunk] = squares;
        __threadfence(); // every lane's read-out visible before the count says so
        __syncwarp();
        if (lane == 0) {
            const int before = atomicAdd(scratch.headCounters + h, 1); // both in flight at once
            const int keyBefore = atomicAdd(scratch.keyCounters + kh, 1);
            lastOfHead = before == chunks - 1;
            lastOfKeyHead = keyBefore == chunks * (s.valueHeads / s.keyHeads) - 1;
        }
    }
    __syncthreads();
    if (lastOfKeyHead) { // the key head's other blocks have read the q/k history
        for (int j = 0; j + 2 < K; ++j) io.history[size_t(j) * C + qkChannel] = hq[j + 1];
        io.history[size_t(K - 2) * C + qkChannel] = newQk;
        if (t == 0) scratch.keyCounters[kh] = 0;
    }
    if (!lastOfHead) return;
    __threadfence();
    float total = 0.0f;
    for (int j = 0; j < chunks; ++j) total += __ldcg(scratch.squares + h * kMaxChunks + j);
    const float scale = rsqrtf(total / float(dv) + eps);
    // Thread t norms column t (and t + 2·keyDim when the value heads are wider); warps are whole
    // X8 groups (dv % 32 == 0).
    for (int c = t; c < dv; c += int(blockDim.x)) {
        const float w = c == t ? normW : __ldg(io.normWeight + c), gate = c == t ? zv : io.z[h * dv + c];
        const float yv = __ldcg(outHead + c) * scale * w * siluOf(gate);
        outHead[c] = yv;
        if (io.outX8) detail::storeX8Group(yv, lane, s.valueWidth(), (h * dv + c) >> 5, static_cast<int8_t*>(io.outX8));
    }
    if (t == 0) scratch.headCounters[h] = 0;
}

} // namespace

cudaError_t launchGdnDecode(const GdnShape& s, const GdnDecodeIo& io, float eps, cudaStream_t stream, bool pdl) {
    if (!gdnSupports(s.keyHeads, s.valueHeads, s.keyDim, s.valueDim, s.convKernel) || !io.qkv || !io.b || !io.a ||
        !io.z || !io.history || !io.convWeight || !io.dtBias || !io.negExpA || !io.state || !io.normWeight || !io.out ||
        !io.scratch)
        return cudaErrorInvalidValue;
    const dim3 grid(unsigned(s.valueDim / kColumns), unsigned(s.valueHeads));
    return detail::launchEx(gdnDecodeKernel, grid, dim3(unsigned(2 * s.keyDim)), 0, stream, pdl, s, io, eps);
}

} // namespace hearth::kernels
