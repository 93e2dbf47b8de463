// The device half of sampling: the repetition penalty on a copy of the logits, and the whole
// vocabulary sorted best first (CUB's stable radix sort, so equal logits keep the lower id first,
// as the CPU sampler's ranking does). The host takes the first top-k pairs and finishes the chain
// (softmax, top-p, min-p, draw) with the CPU sampler's own code.
#include <cub/device/device_radix_sort.cuh>

#include <cfloat>

#include "hearth_kernels/ops.h"

namespace hearth::kernels {
namespace {

__global__ void cleanKernel(const float* __restrict__ in, int n, float* __restrict__ out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = in[i];
    if (isnan(v)) v = -INFINITY;
    if (v == INFINITY) v = FLT_MAX;
    if (v == 0.0f) v = 0.0f; // -0 sorts below +0 in a radix sort; the CPU sees them equal
    out[i] = v;
}

__global__ void penaliseKernel(const int* __restrict__ ids, int count, int n, float penalty, float* __restrict__ out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    const int id = ids[i];
    if (id < 0 || id >= n) return;
    const float l = out[id];
    out[id] = l > 0.0f ? l / penalty : l * penalty;
}

__global__ void iotaKernel(int* __restrict__ ids, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) ids[i] = i;
}

size_t cubBytes(int n) {
    size_t bytes = 0;
    cub::DeviceRadixSort::SortPairsDescending(nullptr, bytes, static_cast<const float*>(nullptr),
                                              static_cast<float*>(nullptr), static_cast<const int*>(nullptr),
                                              static_cast<int*>(nullptr), n);
    return bytes;
}

size_t alignUp(size_t b) { return (b + 255) / 256 * 256; }

} // namespace

cudaError_t launchPenalise(const float* logits, int n, const int* ids, int count, float penalty, float* out,
                           cudaStream_t stream) {
    if (!logits || !out || n <= 0 || count < 0 || (count > 0 && !ids) || !(penalty > 0.0f)) return cudaErrorInvalidValue;
    cleanKernel<<<unsigned((n + 255) / 256), 256, 0, stream>>>(logits, n, out);
    if (count > 0 && penalty != 1.0f)
        penaliseKernel<<<unsigned((count + 255) / 256), 256, 0, stream>>>(ids, count, n, penalty, out);
    return cudaGetLastError();
}

size_t sortScratchBytes(int n) { return alignUp(size_t(n) * sizeof(int)) + alignUp(cubBytes(n)); }

cudaError_t launchSortDescending(const float* logits, int n, float* sortedLogits, int* sortedIds, void* scratch,
                                 size_t scratchBytes, cudaStream_t stream) {
    if (!logits || !sortedLogits || !sortedIds || !scratch || n <= 0 || scratchBytes < sortScratchBytes(n))
        return cudaErrorInvalidValue;
    int* ids = static_cast<int*>(scratch);
    void* temp = static_cast<char*>(scratch) + alignUp(size_t(n) * sizeof(int));
    size_t tempBytes = scratchBytes - alignUp(size_t(n) * sizeof(int));
    iotaKernel<<<unsigned((n + 255) / 256), 256, 0, stream>>>(ids, n);
    if (cudaError_t err = cudaGetLastError(); err != cudaSuccess) return err;
    return cub::DeviceRadixSort::SortPairsDescending(temp, tempBytes, logits, sortedLogits, ids, sortedIds, n, 0,
                                                     int(sizeof(float) * 8), stream);
}

} // namespace hearth::kernels
