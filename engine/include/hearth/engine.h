// Hearth's engine API: load a model, run a session on it, estimate its memory.
// Qt-free. Ownership: Model and Session are owned by the caller through unique_ptr; a Session
// keeps a reference to its Model, which must outlive it.
// Threading: a Model is immutable after load and may be shared by threads; a Session is used by
// one thread at a time (cancellation may be requested from any thread).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hearth/devices.h"
#include "hearth/status.h"

namespace hearth {

struct LoadedModel;
class Backend;

struct ModelParams {
    std::string path;                      // a .gguf file or a Hugging Face folder
    DeviceKind device = DeviceKind::Cpu;   // Cuda: Unsupported until the CUDA backend lands
    int32_t threads = 0;                   // CPU threads; 0 = all hardware threads
};

struct ModelInfo {
    std::string path;
    std::string format;        // "gguf" or "hf"
    std::string architecture;  // "llama", "qwen2", "qwen3"
    std::string name;
    int32_t vocabSize = 0, hidden = 0, layers = 0, heads = 0, kvHeads = 0, headDim = 0, ffn = 0;
    int32_t contextLength = 0; // trained maximum
    float ropeTheta = 0, rmsEps = 0;
    std::string ropeScaling;   // "none", "linear", "llama3", "yarn"
    std::string ropePairing;   // "adjacent" or "rotate-half"
    bool tiedEmbeddings = false;
    uint64_t parameterCount = 0;
    std::map<std::string, int> tensorTypeCounts; // "F32" -> 47
};

class Model {
public:
    // Loads and validates. Errors: NotFound (path), DataLoss (corrupt file, bad shapes),
    // Unsupported (architecture, tensor type), InvalidArgument. Any thread.
    static Result<std::unique_ptr<Model>> load(const ModelParams& params);
    ~Model();

    const ModelInfo& info() const;
    const ModelParams& params() const;
    // Encodes as the model's tokenizer does; addBos prepends BOS when the model adds one.
    std::vector<int32_t> encode(std::string_view text, bool addBos) const;
    std::string decode(const std::vector<int32_t>& ids) const;
    const std::vector<int32_t>& endOfGenerationIds() const;
    const LoadedModel& loaded() const { return *m_model; }

private:
    Model() = default;
    std::unique_ptr<LoadedModel> m_model;
    ModelInfo m_info;
    ModelParams m_params;
};

enum class StopReason { Eos, Length, Cancel, StopString };
const char* stopReasonName(StopReason reason); // "eos", "length", "cancel", "stop_string"

struct GenerateParams {
    int32_t maxTokens = 256;          // generated tokens at most (>= 0)
    float temperature = 0.0f;         // <= 0: greedy
    int32_t topK = 0;                 // 0 = off
    float topP = 1.0f;                // 1 = off
    float minP = 0.0f;                // 0 = off
    float repetitionPenalty = 1.0f;   // 1 = off
    uint64_t seed = 0;
    std::vector<int32_t> stopIds;     // extra end-of-generation ids
    bool useModelStopIds = true;      // EOS/EOT/generation_config ids stop generation
    const std::atomic<bool>* cancel = nullptr; // checked before every token
    // When set, receives the logits after every forward pass (prompt and generated), row-major.
    std::vector<float>* allLogits = nullptr;
    // Receives complete UTF-8 text as it is generated.
    std::function<void(std::string_view)> onText;
};

struct GenerateResult {
    std::vector<int32_t> outputIds;   // excludes the stop token
    std::string text;                 // bytes appended to the prompt's text
    StopReason stop = StopReason::Length;
    int32_t promptTokens = 0;
    double prefillMs = 0, decodeMs = 0;
    double prefillTokPerS = -1, decodeTokPerS = -1; // -1 when undefined (no tokens)
};

struct SessionParams {
    int32_t contextLength = 0;        // KV positions; 0 = the model's, capped at 4096
};

class Session {
public:
    // Errors: OutOfMemory when the KV cache does not fit; InvalidArgument. Owner thread.
    static Result<std::unique_ptr<Session>> create(const Model& model, const SessionParams& params);
    ~Session();

    // Processes `promptIds` from position 0 and generates. Errors: InvalidArgument (prompt
    // empty or longer than the context, bad parameters), Cancelled is not an error (stop=cancel).
    Result<GenerateResult> generate(const std::vector<int32_t>& promptIds, const GenerateParams& params);
    int32_t contextLength() const;
    std::string deviceName() const;

private:
    Session() = default;
    const Model* m_model = nullptr;
    std::unique_ptr<Backend> m_backend;
};

// ---- Memory estimate: what the app's "will it fit" and VRAM meter use. ----
enum class KvType { F32, F16 };
const char* kvTypeName(KvType type);

struct MemoryEstimate {
    uint64_t weightsBytes = 0;
    uint64_t kvCacheBytes = 0;        // for the requested context
    uint64_t kvBytesPer1024Tokens = 0;
    uint64_t recurrentStateBytes = 0; // 0 for attention-only models
    uint64_t workspaceBytes = 0;      // activations, logits, attention scores
    uint64_t totalBytes() const { return weightsBytes + kvCacheBytes + recurrentStateBytes + workspaceBytes; }
    DeviceInfo device;                // where it would run (name, total, free)
    bool fits = false;                // totalBytes() <= device.freeBytes
};

// Reads only the header/tensor table of `modelPath`. contextLength 0 = the model's maximum.
// Errors as for Model::load. Any thread.
Result<MemoryEstimate> estimateMemory(const std::string& modelPath, int32_t contextLength, KvType kvType,
                                      DeviceKind device);

} // namespace hearth
