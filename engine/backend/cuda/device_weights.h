// A model's weights on one GPU, inside the CUDA module: uploaded once from the engine's tensor
// table (backend/cuda_module_abi.h) into one device allocation, repacked there for the GEMVs,
// and shared by every session of the model.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backend/cuda_module_abi.h"
#include "hearth/status.h"
#include "hearth_kernels/deltanet.h"
#include "hearth_kernels/gemv.h"

namespace hearth::cuda {

// A matrix in its device layout: n rows (outputs) of k inputs. A view of rows
// [rowOffset, rowOffset + n) of a larger stored matrix of storedRows rows (q, k and v inside a
// layer's stacked projections) has data pointing at the stored matrix: only row-addressed readers
// (prefill's dequantizing GEMM) take views, since repacked layouts are not row-contiguous.
struct DeviceMatrix {
    kernels::GemvType type = kernels::GemvType::F32;
    int n = 0, k = 0;
    const void* data = nullptr;
    int rowOffset = 0;
    int storedRows = 0; // 0: n (not a view)
    bool takesX8() const { return kernels::gemvTakesX8(type); }
    bool isView() const { return storedRows != 0; }
    int stored() const { return storedRows ? storedRows : n; }
};

// One decode GEMV of a layer's input projections: a stored run of them, whose output rows start
// at `outRow` of the layer's projection buffer (q | gate | k | v, or qkv | z | beta | alpha).
struct ProjectionRun {
    DeviceMatrix matrix;
    int outRow = 0;
};

enum class LayerMixer { Attention = 0, GatedDeltaNet = 1 };

class GemvTuning;

struct DeviceLayer {
    LayerMixer mixer = LayerMixer::Attention;
    const float* attnNorm = nullptr; // the mixer's input norm (either mixer)
    // The input projections as decode reads them: one GEMV per run, covering every row.
    std::vector<ProjectionRun> projections;
    // Attention.
    DeviceMatrix q, k, v, o;
    const float *qBias = nullptr, *kBias = nullptr, *vBias = nullptr; // null: none
    const float *qNorm = nullptr, *kNorm = nullptr;                    // null: none
    // Gated DeltaNet.
    DeviceMatrix ssmQkv, ssmZ, ssmBeta, ssmAlpha, ssmOut;
    const float *conv = nullptr, *dtBias = nullptr, *negExpA = nullptr, *ssmNorm = nullptr;
    // The dense SwiGLU block.
    const float* ffnNorm = nullptr;
    DeviceMatrix gate, up, down;
};

struct ModelShape {
    int vocab = 0, hidden = 0, layers = 0, heads = 0, kvHeads = 0, headDim = 0, ffn = 0;
    float rmsEps = 1e-5f;
    int ropeDims = 0;
    bool ropeAdjacent = false;
    float ropeMagnitude = 1.0f;
    bool gatedAttention = false;
    int attentionLayers = 0, gdnLayers = 0;
    int gdnKeyHeads = 0, gdnValueHeads = 0, gdnKeyDim = 0, gdnValueDim = 0, gdnConvKernel = 0;
    bool gdnTiled = false;
    int gdnKeyWidth() const { return gdnKeyHeads * gdnKeyDim; }
    int gdnValueWidth() const { return gdnValueHeads * gdnValueDim; }
    int gdnChannels() const { return 2 * gdnKeyWidth() + gdnValueWidth(); }
    int queryRows() const { return (gatedAttention ? 2 : 1) * heads * headDim; } // q_proj's outputs
};

class DeviceWeights {
public:
    // Uploads every tensor of `desc`. All or nothing: on any error, nothing stays allocated.
    static Result<std::unique_ptr<DeviceWeights>> load(const HearthCudaModelDesc& desc);
    ~DeviceWeights();
    DeviceWeights(const DeviceWeights&) = delete;
    DeviceWeights& operator=(const DeviceWeights&) = delete;

    int device() const { return m_device; }
    const ModelShape& shape() const { return m_shape; }
    const std::vector<DeviceLayer>& layers() const { return m_layers; }
    const DeviceMatrix& embedding() const { return m_embedding; }
    const DeviceMatrix& output() const { return m_output; } // the embedding when tied
    const float* outputNorm() const { return m_outputNorm; }
    const float* ropeInvFreq() const { return m_invFreq; }
    uint64_t bytes() const { return m_bytes; }
    bool anyTakesX8() const { return m_anyX8; }   // some matrix reads X8 x
    bool anyTakesF32() const { return m_anyF32; } // some matrix reads fp32 x
    // The decode GEMVs' measured launch choices (gemv_tuning.h): the first session measures
    // them, the later ones reuse them (they depend on the weights and the GPU only).
    std::shared_ptr<const GemvTuning> gemvTuning() const;
    void keepGemvTuning(std::shared_ptr<const GemvTuning> tuning) const;

private:
    DeviceWeights() = default;
    Status upload(const HearthCudaModelDesc& desc);
    Status checkLayer(int index) const;

    int m_device = 0;
    ModelShape m_shape;
    void* m_arena = nullptr;
    uint64_t m_bytes = 0;
    std::vector<DeviceLayer> m_layers;
    DeviceMatrix m_embedding, m_output;
    const float* m_outputNorm = nullptr;
    const float* m_invFreq = nullptr;
    bool m_anyX8 = false, m_anyF32 = false;
    mutable std::mutex m_tuningMutex;
    mutable std::shared_ptr<const GemvTuning> m_tuning;
};

// The GEMV family of a ggml type id, or false for a type the module cannot run.
bool gemvTypeOf(uint32_t ggmlType, kernels::GemvType& type);

} // namespace hearth::cuda
