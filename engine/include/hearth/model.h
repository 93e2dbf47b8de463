// A loaded model: load it from a GGUF file or a Hugging Face folder, ask what it is, use its
// tokenizer. Qt-free. Ownership: the caller owns the Model through unique_ptr; every Session and
// ChatSession made on it keeps a reference, so it must outlive them.
// Threading: a Model is immutable after load and may be shared by threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hearth/devices.h"
#include "hearth/memory.h"
#include "hearth/quant.h"
#include "hearth/sampling.h"
#include "hearth/status.h"

namespace hearth {

// What a load is doing, for the words beside a progress bar (loadPhaseName).
enum class LoadPhase {
    Reading,         // the file's header, tensor table and tokenizer; checking the tensors
    Converting,      // applying a quant preset on the CPU (minutes for a large 16-bit source)
    Uploading,       // copying the weights to the GPU
    QuantizingOnGpu, // copying a 16-bit source to the GPU and applying the preset there
};
// "reading the model", "converting on the CPU", "uploading to the GPU", "quantizing on the GPU"
const char* loadPhaseName(LoadPhase phase);

enum class CpuKernels { Fast, Reference };

struct ModelParams {
    std::string path;                      // a .gguf file or a Hugging Face folder
    // Cpu, Cuda, or Auto: CUDA when a usable device is present, else the CPU (Model::placement()
    // says which and why). Cpu by default so that a program names the GPU when it wants one.
    DeviceKind device = DeviceKind::Cpu;
    int32_t gpu = 0;                       // CUDA device ordinal (NotFound when there is none)
    // A GPU memory budget (e.g. 22.5 GiB standing for a 24 GB card with a desktop on it); 0: none.
    // On CUDA, Load refuses before it allocates anything a model whose weights, CUDA context and a
    // session of budgetContextLength positions (0: the model's, at most 4096) with budgetKvType
    // would exceed it (OutOfMemory naming the numbers and the longest context that would fit);
    // Session::create then refuses a session that would take the model past it.
    uint64_t vramBudgetBytes = 0;
    int32_t budgetContextLength = 0;
    KvType budgetKvType = KvType::F16;
    int32_t threads = 0;                   // CPU threads; 0 = all hardware threads
    // The CPU backend's matrix-vector products: Fast (SIMD kernels chosen for the CPU at run
    // time, block-quantized weights against x quantized to 8 bits; F32 weights as the reference)
    // or Reference (fp32 x, the definition every kernel is tested against).
    CpuKernels cpuKernels = CpuKernels::Fast;
    // Quant preset applied at load ("Q4_K_M", "q8_0", "F16", ...; see hearth/quant.h); empty
    // keeps the types as stored. Unknown names: InvalidArgument listing the valid ones.
    std::string quant;
    // Converting already-quantized matrices to another type loses quality; refused unless set.
    bool allowRequantize = false;
    // The load's progress on the loading thread: a fraction in [0, 1] (0 first, 1 when done;
    // between them as a preset converts tensors and as weights go to the GPU) and the phase.
    // With a preset and a CUDA device, 16-bit weights are quantized on the GPU (seconds, where
    // the CPU takes minutes), giving the blocks the CPU's quantizer would.
    std::function<void(double fraction, LoadPhase phase)> onProgress;
    // Set from any thread to stop the load (checked before reading and between converted
    // tensors): the load then fails with Cancelled.
    const std::atomic<bool>* cancel = nullptr;
};

struct DevicePlacement {
    DeviceKind kind = DeviceKind::Cpu; // Cpu or Cuda
    int index = 0;
    std::string name;                  // "NVIDIA H200", the CPU's model name
    std::string why;                   // "asked for", "auto: CUDA device 0 is usable", "auto: ..."
    CudaUnavailable cudaUnavailable = CudaUnavailable::None; // auto fell back to the CPU: why
};

// The sampling the model's makers recommend, where its files say: a Hugging Face folder's
// generation_config.json (temperature, top_k, top_p, min_p, repetition_penalty; do_sample false
// means greedy, temperature 0); a GGUF's general.sampling.* keys (temp, top_k, top_p, min_p,
// penalty_repeat, as llama.cpp writes them), then, for what those leave out, a
// generation_config.json in the .gguf's folder. An empty field: the files do not say. They are
// advice and read leniently: a value of the wrong type or outside what SamplingParams accepts is
// left out and named in `problems`; it never fails a load or a description.
struct SamplingDefaults {
    std::optional<float> temperature;       // >= 0; 0: greedy
    std::optional<int32_t> topK;            // >= 0; 0: off
    std::optional<float> topP;              // in (0, 1]
    std::optional<float> minP;              // in [0, 1]
    std::optional<float> repetitionPenalty; // > 0; 1: off
    // "…/generation_config.json: top_p must be a number in (0, 1], got 1.5 (left out)"; several
    // are separated by "; ". Empty: nothing was left out.
    std::string problems;

    bool empty() const { return !temperature && !topK && !topP && !minP && !repetitionPenalty; }
    // `base` with each field the model states in place of its own (seed and window are kept).
    SamplingParams over(SamplingParams base) const {
        if (temperature) base.temperature = *temperature;
        if (topK) base.topK = *topK;
        if (topP) base.topP = *topP;
        if (minP) base.minP = *minP;
        if (repetitionPenalty) base.repetitionPenalty = *repetitionPenalty;
        return base;
    }
};

struct ModelInfo {
    std::string path;
    std::string format;        // "gguf" or "hf"
    std::string architecture;  // "llama", "qwen2", "qwen3", "qwen35"
    std::string name;          // general.name; a Hugging Face folder's name
    std::string license;       // general.license or the model card's; empty: not stated
    int32_t vocabSize = 0, hidden = 0, layers = 0, heads = 0, kvHeads = 0, headDim = 0, ffn = 0;
    int32_t contextLength = 0; // trained maximum
    int32_t ropeScaledContextLength = 0; // what the RoPE scaling reaches when more; else 0
    float ropeTheta = 0, rmsEps = 0;
    std::string ropeScaling;   // "none", "linear", "llama3", "yarn"
    std::string ropePairing;   // "adjacent" or "rotate-half"
    bool tiedEmbeddings = false;
    uint64_t parameterCount = 0;
    std::map<std::string, int> tensorTypeCounts; // "F32" -> 47
    // What loading leaves out on purpose, in words ("the multi-token-prediction block (blk.64.*,
    // ...) is ignored until speculative decoding lands"; a vision tower); empty: nothing.
    std::vector<std::string> notes;
    SamplingDefaults sampling;                   // what the model's files recommend
};

// What the model at `path` (a .gguf file or a Hugging Face folder) is, without loading it: only
// the GGUF header and tensor table (or config.json, the model card and the safetensors headers),
// and a generation_config.json beside it, are read. Errors as for Model::load. Any thread.
Result<ModelInfo> describeModelFile(const std::string& path);

// A model's header and tensor table read once, for a caller with several questions about one
// file (the app's quant switcher asks every preset, each at a few contexts): each answer is the
// free call's for the file as it was when read, and the file is not read again. Ownership: the
// caller owns it through unique_ptr; it keeps the file mapped (no tensor data is read) while it
// lives, so hold it for a batch of questions, not for long. Threading: immutable after read, so
// its calls may be made from any thread, at once.
class ModelHeader {
public:
    // Reads the header and tensor table (describeModelFile's reads). Errors as there.
    static Result<std::unique_ptr<ModelHeader>> read(const std::string& path);
    ~ModelHeader();
    ModelHeader(const ModelHeader&) = delete;
    ModelHeader& operator=(const ModelHeader&) = delete;

    const ModelInfo& info() const; // describeModelFile's
    // planQuantPreset(path, preset). Errors as there.
    Result<QuantPlan> planQuantPreset(const std::string& preset) const;
    // estimateMemory(params); params.path is not used. Errors as there.
    Result<MemoryEstimate> estimateMemory(const MemoryEstimateParams& params) const;

private:
    ModelHeader();
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

class Model {
public:
    // Loads and validates. Errors: NotFound (path), DataLoss (corrupt file, bad shapes),
    // Unsupported (architecture, tensor type), InvalidArgument, FailedPrecondition (a preset
    // would re-quantize and allowRequantize is off), Cancelled. Any thread.
    static Result<std::unique_ptr<Model>> load(const ModelParams& params);
    ~Model();
    Model(const Model&) = delete;
    Model& operator=(const Model&) = delete;

    const ModelInfo& info() const;
    const ModelParams& params() const; // as given, without onProgress and cancel
    // Where the weights live (kind, index, name) and why there: "--device auto" and the app show
    // it ("cpu: no CUDA device: no NVIDIA driver is installed").
    const DevicePlacement& placement() const;
    // Encodes as the model's tokenizer does; addBos prepends BOS when the model adds one.
    // Special-token text in `text` stays plain text.
    std::vector<int32_t> encode(std::string_view text, bool addBos) const;
    std::string decode(const std::vector<int32_t>& ids) const;
    const std::vector<int32_t>& endOfGenerationIds() const;

private:
    Model();
    struct Impl;
    std::unique_ptr<Impl> m_impl;
    friend struct ModelAccess; // the engine's own view (runtime/model_internal.h)
};

} // namespace hearth
