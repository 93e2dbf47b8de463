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
class DeviceModel;
class BackendSession;
class Sampler;

struct ModelParams {
    std::string path;                      // a .gguf file or a Hugging Face folder
    DeviceKind device = DeviceKind::Cpu;   // Cuda: Unsupported until the CUDA backend lands
    int32_t threads = 0;                   // CPU threads; 0 = all hardware threads
    // Quant preset applied at load ("Q4_K_M", "q8_0", "F16", ...; see quantPresetList()); empty
    // keeps the types as stored. Unknown names: InvalidArgument listing the valid ones.
    std::string quant;
    // Converting already-quantized matrices to another type loses quality; refused unless set.
    bool allowRequantize = false;
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
    const DeviceModel& device() const { return *m_device; }

private:
    Model() = default;
    std::unique_ptr<LoadedModel> m_model;
    std::unique_ptr<DeviceModel> m_device; // the weights on the chosen device (after m_model: it refers to it)
    ModelInfo m_info;
    ModelParams m_params;
};

// Length: maxTokens were generated; Context: the session's context filled up first.
enum class StopReason { Eos, Length, Cancel, StopString, Context };
const char* stopReasonName(StopReason reason); // "eos", "length", "cancel", "stop_string", "context"

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
    // Generation stops when the text contains one of these; the text ends before it. Text that
    // could be the start of a stop string is held back from onText until it is decided.
    std::vector<std::string> stopStrings;
    // Set from any thread to stop: checked before every token (prompt and generated), so at
    // most the token in flight completes. The result's stop reason is then Cancel.
    const std::atomic<bool>* cancel = nullptr;
    // When set, receives the logits after every forward pass this call runs (the prompt tokens
    // after the reused prefix, then generated tokens), row-major [passes x vocab].
    std::vector<float>* allLogits = nullptr;
    // Receives complete UTF-8 text as it is generated.
    std::function<void(std::string_view)> onText;
};

struct GenerateResult {
    std::vector<int32_t> outputIds;   // excludes the stop token
    std::string text;                 // bytes appended to the prompt's text
    StopReason stop = StopReason::Length;
    int32_t stopTokenId = -1;         // the end-of-generation id that stopped it (stop == Eos)
    int32_t promptTokens = 0;
    int32_t reusedTokens = 0;         // prompt tokens whose KV state was already in the session
    double prefillMs = 0, decodeMs = 0;
    double prefillTokPerS = -1, decodeTokPerS = -1; // -1 when undefined (no tokens)
};

// What a session's model and state hold, by category, and the device as it is now (the app's
// VRAM meter reads this about once a second).
struct MemoryReport {
    DeviceInfo device;                 // total and free memory read when the report was made
    uint64_t weightsBytes = 0;         // the model's weights on the device (shared by its sessions)
    uint64_t kvCacheBytes = 0;
    uint64_t recurrentStateBytes = 0;  // 0 for attention-only models
    uint64_t workspaceBytes = 0;       // activations, logits, attention scores
    uint64_t deviceContextBytes = 0;   // CUDA context and libraries; 0 on the CPU
    uint64_t totalBytes() const {
        return weightsBytes + kvCacheBytes + recurrentStateBytes + workspaceBytes + deviceContextBytes;
    }
};

struct SessionParams {
    int32_t contextLength = 0;        // KV positions; 0 = the model's, capped at 4096
};

class Session {
public:
    // Errors: OutOfMemory when the KV cache does not fit; InvalidArgument. Owner thread.
    static Result<std::unique_ptr<Session>> create(const Model& model, const SessionParams& params);
    ~Session();

    // Generates a continuation of `promptIds` (the whole conversation so far, as tokens). The
    // session keeps the state of every token it processed; only the tokens after the longest
    // common prefix of that state and `promptIds` are processed again, so the next turn of a
    // conversation costs only its new tokens, and editing or regenerating rewinds to the common
    // prefix. Errors: InvalidArgument (prompt empty or longer than the context, bad parameters);
    // cancellation is not an error (stop == Cancel). On an error the session is reset.
    Result<GenerateResult> generate(const std::vector<int32_t>& promptIds, const GenerateParams& params);
    // The tokens whose state the session holds (positions 0..n-1).
    const std::vector<int32_t>& cachedTokens() const { return m_cached; }
    // Forgets all state (the next generate starts from position 0).
    void reset() { m_cached.clear(); }
    // Marks the current end of the cached tokens as a turn boundary (a snapshot the session can
    // return to later; free for attention-only models).
    void markTurnBoundary();
    int32_t contextLength() const;
    std::string deviceName() const;
    // Any time, from the owner thread; reads the device's free memory fresh.
    MemoryReport memoryReport() const;

private:
    Session();
    Status validate(const std::vector<int32_t>& promptIds, const GenerateParams& params) const;
    size_t reusePrefix(const std::vector<int32_t>& promptIds);
    Status prefill(const std::vector<int32_t>& promptIds, size_t from, const GenerateParams& params, bool& cancelled);
    Result<int32_t> decode(int32_t token, Sampler& sampler, const GenerateParams& params);

    const Model* m_model = nullptr;
    std::unique_ptr<BackendSession> m_state;
    std::vector<int32_t> m_cached;
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
