// Two matrices of different types that read the same X8 x, in one launch (launchGemvPair): a
// layer's input projections whose types differ, as Q4_K_M stores them (attn_v, and on half the
// layers Qwen3.5's DeltaNet qkv, in Q6_K beside Q4_K matrices). The first matrix's blocks come
// first, then the second's; each block runs gemv_kernel.cuh's gemvBlock exactly as that matrix's
// own launch would, so the results are bit-identical to two launches, with one hand-over between
// kernels fewer. A separate instantiation: the single-matrix kernels keep their registers.
#include "gemv_dispatch.h"
#include "gemv_q4k.cuh"
#include "gemv_q6k.cuh"

namespace hearth::kernels::detail {
namespace {

template <class FA, int RA, class FB, int RB>
__global__ void __launch_bounds__(kMaxWarps * 32) gemvPairKernel(Mat a, float* __restrict__ ya, Mat b,
                                                                 float* __restrict__ yb, int blocksA,
                                                                 const void* __restrict__ x) {
    if (int(blockIdx.x) < blocksA)
        gemvBlock<FA, RA, false, false>(a, a, x, ya, int(blockIdx.x));
    else
        gemvBlock<FB, RB, false, false>(b, b, x, yb, int(blockIdx.x) - blocksA);
}

struct PairCall {
    Mat a, b;
    float *ya, *yb;
    const void* x;
    cudaStream_t stream;
    bool pdl;
};

template <class FA, int RA, class FB, int RB>
cudaError_t launchRows(const PairCall& c) {
    const int blocksA = (c.a.n + RA - 1) / RA, blocksB = (c.b.n + RB - 1) / RB;
    // One block size serves both: one k, and units of the same size (static_assert in withRows).
    const unsigned threads = 32u * unsigned(pickWarps(c.a.k / FA::kUnitElems));
    return launchEx(gemvPairKernel<FA, RA, FB, RB>, unsigned(blocksA + blocksB), threads, c.stream, c.pdl, c.a, c.ya,
                    c.b, c.yb, blocksA, c.x);
}

template <class FA, int RA, class FB>
cudaError_t withRowsB(int rb, const PairCall& c) {
    switch (rb) {
    case 1: return launchRows<FA, RA, FB, 1>(c);
    case 2: return launchRows<FA, RA, FB, 2>(c);
    case 4: return launchRows<FA, RA, FB, 4>(c);
    case 8: return launchRows<FA, RA, FB, 8>(c);
    default: return cudaErrorInvalidValue;
    }
}

template <class FA, class FB>
cudaError_t withRows(const GemvMatrix& first, const GemvMatrix& second, const PairCall& c) {
    static_assert(FA::kUnitElems == FB::kUnitElems, "one block size serves both matrices");
    const int k = c.a.k;
    const int ra = first.rowsPerBlock > 0 ? first.rowsPerBlock : pickRows(first.n, k, false, FA::kRows);
    const int rb = second.rowsPerBlock > 0 ? second.rowsPerBlock : pickRows(second.n, k, false, FB::kRows);
    switch (ra) {
    case 1: return withRowsB<FA, 1, FB>(rb, c);
    case 2: return withRowsB<FA, 2, FB>(rb, c);
    case 4: return withRowsB<FA, 4, FB>(rb, c);
    case 8: return withRowsB<FA, 8, FB>(rb, c);
    default: return cudaErrorInvalidValue;
    }
}

} // namespace

bool gemvPairTakes(GemvType first, GemvType second) {
    const bool a = first == GemvType::Q4_K || first == GemvType::Q6_K;
    const bool b = second == GemvType::Q4_K || second == GemvType::Q6_K;
    return a && b && first != second; // a same-type pair is one stacked matrix already
}

cudaError_t gemvPair(const GemvMatrix& first, const GemvMatrix& second, const void* x, int k, cudaStream_t stream,
                     bool pdl) {
    const PairCall c{Mat{static_cast<const uint8_t*>(first.w), first.n, k},
                     Mat{static_cast<const uint8_t*>(second.w), second.n, k},
                     first.y,
                     second.y,
                     x,
                     stream,
                     pdl};
    if (first.type == GemvType::Q4_K && second.type == GemvType::Q6_K)
        return withRows<Q4K<true>, Q6K<true>>(first, second, c);
    if (first.type == GemvType::Q6_K && second.type == GemvType::Q4_K)
        return withRows<Q6K<true>, Q4K<true>>(first, second, c);
    return cudaErrorInvalidValue;
}

} // namespace hearth::kernels::detail
