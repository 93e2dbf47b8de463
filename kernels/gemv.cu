// The public GEMV entries (gemv.h, gemv_experiments.h): one check of the type, shape and
// pointers, then the weight type's family (gemv_<type>.cu) picks its kernel.
#include "gemv_dispatch.h"
#include "hearth_kernels/gemv.h"
#include "hearth_kernels/gemv_experiments.h"

namespace hearth::kernels {
namespace {

// Elements per block of `type` (k must be a multiple); 0 for a value outside the enum.
int blockElems(GemvType type) {
    switch (type) {
    case GemvType::Q4_K:
    case GemvType::Q5_K:
    case GemvType::Q6_K: return 256;
    case GemvType::Q8_0:
    case GemvType::Q4_0:
    case GemvType::Q5_0: return 32;
    case GemvType::BF16: return 8;
    case GemvType::F16:
    case GemvType::F32: return 1; // the generic kernel takes any k
    }
    return 0;
}

cudaError_t dispatch(GemvType type, const detail::GemvCall& call) {
    if (!gemvSupports(type, call.n, call.k) || !call.wa || !call.x || !call.y || (call.glu && !call.wb))
        return cudaErrorInvalidValue;
    switch (type) {
    case GemvType::Q4_K: return detail::gemvQ4K(call);
    case GemvType::Q5_K: return detail::gemvQ5K(call);
    case GemvType::Q6_K: return detail::gemvQ6K(call);
    case GemvType::Q8_0: return detail::gemvQ8_0(call);
    case GemvType::Q4_0: return detail::gemvQ4_0(call);
    case GemvType::BF16: return detail::gemvBF16(call);
    case GemvType::F32:
    case GemvType::F16:
    case GemvType::Q5_0:
        if (call.variant) return cudaErrorInvalidValue; // no experiments for the generic kernel
        return detail::gemvGeneric(type, call);
    }
    return cudaErrorInvalidValue;
}

} // namespace

bool gemvTakesX8(GemvType type) {
    return type == GemvType::Q4_K || type == GemvType::Q5_K || type == GemvType::Q6_K || type == GemvType::Q8_0 ||
           type == GemvType::Q4_0;
}

bool gemvSupports(GemvType type, int n, int k) {
    const int block = blockElems(type);
    return block > 0 && n > 0 && k > 0 && k % block == 0;
}

bool gemvNeedsRepack(GemvType type) {
    return type == GemvType::Q6_K || type == GemvType::Q8_0 || type == GemvType::Q4_0;
}

size_t gemvRowBytes(GemvType type, int k) {
    if (!gemvSupports(type, 1, k)) return 0;
    const size_t blocks = size_t(k) / size_t(blockElems(type));
    switch (type) {
    case GemvType::Q4_K: return blocks * 144;
    case GemvType::Q5_K: return blocks * 176;
    case GemvType::Q6_K: return blocks * 210;
    case GemvType::Q8_0: return blocks * 34;
    case GemvType::Q4_0: return blocks * 18;
    case GemvType::Q5_0: return blocks * 22;
    case GemvType::BF16: return blocks * 16;
    case GemvType::F16: return blocks * 2;
    case GemvType::F32: return blocks * 4;
    }
    return 0;
}

bool gemvTakesRowsPerBlock(GemvType type) {
    return type == GemvType::Q4_K || type == GemvType::Q5_K || type == GemvType::Q6_K || type == GemvType::Q8_0 ||
           type == GemvType::Q4_0 || type == GemvType::BF16;
}

cudaError_t launchGemvRepack(GemvType type, const void* gguf, void* dst, int n, int k, cudaStream_t stream) {
    if (!gemvNeedsRepack(type) || !gemvSupports(type, n, k) || !gguf || !dst) return cudaErrorInvalidValue;
    switch (type) {
    case GemvType::Q6_K: return detail::repackQ6K(gguf, dst, n, k, stream);
    case GemvType::Q8_0: return detail::repackQ8_0(gguf, dst, n, k, stream);
    case GemvType::Q4_0: return detail::repackQ4_0(gguf, dst, n, k, stream);
    default: return cudaErrorInvalidValue;
    }
}

cudaError_t launchGemv(GemvType type, const void* w, const void* x, float* y, int n, int k, cudaStream_t stream,
                       const GemvLaunch& opt) {
    return dispatch(type, {w, nullptr, x, y, n, k, stream, opt, false, 0});
}

cudaError_t launchGemvGateUp(GemvType type, const void* wg, const void* wu, const void* x, float* y, int n, int k,
                             cudaStream_t stream, const GemvLaunch& opt) {
    return dispatch(type, {wg, wu, x, y, n, k, stream, opt, true, 0});
}

bool gemvPairSupported(GemvType first, GemvType second) { return detail::gemvPairTakes(first, second); }

cudaError_t launchGemvPair(const GemvMatrix& first, const GemvMatrix& second, const void* x, int k,
                           cudaStream_t stream, bool pdl) {
    auto rowsOk = [](int r) { return r == 0 || r == 1 || r == 2 || r == 4 || r == 8; };
    if (!gemvPairSupported(first.type, second.type) || !gemvSupports(first.type, first.n, k) ||
        !gemvSupports(second.type, second.n, k) || !first.w || !first.y || !second.w || !second.y || !x ||
        !rowsOk(first.rowsPerBlock) || !rowsOk(second.rowsPerBlock))
        return cudaErrorInvalidValue;
    return detail::gemvPair(first, second, x, k, stream, pdl);
}

cudaError_t launchGemvExperiment(GemvType type, const void* w, const void* x, float* y, int n, int k,
                                 cudaStream_t stream, const GemvExperiment& opt) {
    return dispatch(type, {w, nullptr, x, y, n, k, stream, opt, false, opt.variant});
}

cudaError_t launchGemvGateUpExperiment(GemvType type, const void* wg, const void* wu, const void* x, float* y,
                                       int n, int k, cudaStream_t stream, const GemvExperiment& opt) {
    return dispatch(type, {wg, wu, x, y, n, k, stream, opt, true, opt.variant});
}

} // namespace hearth::kernels
